"""Golden playthroughs: seeded games stored with every observation and mask, replayed on each run
(tests/core/test_generic.py) and rewritten on purpose by scripts/regenerate_golden.py."""

from __future__ import annotations

import importlib
import io
import json
from pathlib import Path

import numpy as np

from envs.core.registry import config_id

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"  # tests/golden


def record(spec, config: dict, seed: int) -> dict[str, np.ndarray]:
    """Play one game through the AEC env, choosing uniformly among legal actions with `seed`."""
    face = importlib.import_module(f"envs.{spec.name}_v0")
    env = face.env(**config)
    env.reset(seed=seed)
    game = env.unwrapped.game
    rng = np.random.default_rng(seed + 1)
    players, actions, masks, observations = [], [], [], []
    while not game.is_terminal():
        player = game.current_player()
        mask = game.legal_action_mask()
        legal = np.flatnonzero(mask)
        action = int(legal[rng.integers(len(legal))])
        players.append(player)
        actions.append(action)
        masks.append(np.packbits(mask))
        observations.append(np.stack([game.observation(p) for p in range(game.num_players)]))
        env.step(action)
    return {
        "config": np.frombuffer(json.dumps(config, sort_keys=True).encode(), dtype=np.uint8),
        "seed": np.array(seed),
        "players": np.array(players, dtype=np.int16),
        "actions": np.array(actions, dtype=np.int32),
        "masks": np.array(masks, dtype=np.uint8),
        "observations": np.array(observations, dtype=np.float32),
        "final_observations": np.stack([game.observation(p) for p in range(game.num_players)]),
        "returns": np.asarray(game.returns(), dtype=np.float64),
    }


def save(path: Path, data: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **data)
    path.write_bytes(buffer.getvalue())


def load(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    config = json.loads(arrays.pop("config").tobytes().decode())
    return config, arrays


def replay(spec, path: Path) -> None:
    """Replay a stored game; raise AssertionError at the first step that differs."""
    config, stored = load(path)
    face = importlib.import_module(f"envs.{spec.name}_v0")
    env = face.env(**config)
    env.reset(seed=int(stored["seed"]))
    game = env.unwrapped.game
    for step, action in enumerate(stored["actions"]):
        where = f"{path.name} step {step}"
        assert not game.is_terminal(), f"{where}: the game ended early"
        assert game.current_player() == stored["players"][step], f"{where}: player to move differs"
        mask = np.packbits(game.legal_action_mask())
        assert np.array_equal(mask, stored["masks"][step]), f"{where}: legal mask differs"
        for p in range(game.num_players):
            obs = game.observation(p)
            assert np.array_equal(obs, stored["observations"][step][p]), (
                f"{where}: observation of player {p} differs in pieces "
                f"{_differing_pieces(game.observation_layout, obs, stored['observations'][step][p])}"
            )
        env.step(int(action))
    assert game.is_terminal(), f"{path.name}: the game did not end where it ended before"
    for p in range(game.num_players):
        assert np.array_equal(game.observation(p), stored["final_observations"][p]), f"{path.name}: final obs"
    assert np.allclose(game.returns(), stored["returns"]), f"{path.name}: returns differ"


def _differing_pieces(layout, a: np.ndarray, b: np.ndarray) -> list[str]:
    return [p.name for p in layout if not np.array_equal(a[p.slice], b[p.slice])]


def golden_paths(spec) -> list[Path]:
    return sorted((GOLDEN_DIR / spec.name).glob("*.npz"))


def golden_path(spec, config: dict, seed: int) -> Path:
    return GOLDEN_DIR / spec.name / f"{config_id(config)}-seed{seed}.npz"
