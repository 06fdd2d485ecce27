"""Checkpoints: the policy, what it was trained on, and (for resume) the whole trainer state.

A checkpoint is one `torch.save` file read back with `weights_only=True` (plain tensors, numbers and
strings; nothing executable). The trainer's own state - optimizer, rngs, opponent pool, the games in
progress - travels as one pickled blob that is only unpickled when resuming a run.
"""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path
from typing import Any

import torch

from .config import NetConfig, from_dict
from .nets import PolicyNet

FORMAT = "tabletop-training-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, from another game, or another network."""


def save_checkpoint(
    path: str | Path,
    net: PolicyNet,
    config,
    info,
    iteration: int,
    decisions: int,
    trainer_state: dict | None = None,
) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "game": config.game,
        "game_config": dict(info.game_config),
        "num_players": info.num_players,
        "obs_dim": info.obs_dim,
        "num_actions": info.num_actions,
        "state_dim": info.state_dim,
        "train_config": config.to_dict(),
        "model": net.state_dict(),
        "iteration": iteration,
        "decisions": decisions,
        "trainer": pickle.dumps(trainer_state) if trainer_state is not None else None,
    }
    buffer = io.BytesIO()
    torch.save(data, buffer)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(buffer.getvalue())
    os.replace(tmp, path)
    return path


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {str(path)!r}")
    if path.is_dir():
        latest = path / "checkpoints" / "latest.pt"
        if not latest.exists():
            latest = path / "latest.pt"
        if not latest.exists():
            raise CheckpointError(f"{str(path)!r} is a directory without checkpoints/latest.pt")
        path = latest
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds for damaged files
        raise CheckpointError(
            f"{str(path)!r} is not a readable checkpoint (corrupt or truncated file?): "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a training checkpoint (no {FORMAT!r} header)")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{str(path)!r} has checkpoint version {data.get('version')!r}; this code reads version {VERSION}"
        )
    missing = [k for k in ("game", "model", "train_config", "obs_dim", "num_actions") if k not in data]
    if missing:
        raise CheckpointError(f"{str(path)!r} lacks {missing}: damaged checkpoint")
    data["path"] = str(path)
    return data


def check_compatible(data: dict, info, game: str, what: str = "this run") -> None:
    """Raise CheckpointError if the checkpoint was trained on another game or configuration."""
    problems = []
    if data["game"] != game:
        problems.append(f"game {data['game']!r} vs {game!r}")
    for key, mine in (
        ("num_players", info.num_players),
        ("obs_dim", info.obs_dim),
        ("num_actions", info.num_actions),
    ):
        if data.get(key) != mine:
            problems.append(f"{key} {data.get(key)} vs {mine}")
    if problems:
        raise CheckpointError(f"checkpoint {data['path']!r} does not match {what}: " + "; ".join(problems))


def build_net(data: dict) -> PolicyNet:
    """The policy network stored in a checkpoint, weights loaded, with clear errors on mismatch."""
    try:
        config = from_dict(data["train_config"])
    except Exception as exc:
        raise CheckpointError(f"checkpoint {data['path']!r} holds an unusable config: {exc}") from None
    return net_from(data, config.net)


def net_from(data: dict, net_config: NetConfig) -> PolicyNet:
    net = PolicyNet(data["obs_dim"], data["num_actions"], data.get("state_dim", 0), net_config)
    try:
        net.load_state_dict(data["model"])
    except RuntimeError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()][:4]
        raise CheckpointError(
            f"checkpoint {data['path']!r} does not fit the network {net_config}: " + " ".join(lines)
        ) from None
    return net


def trainer_state(data: dict) -> dict:
    blob = data.get("trainer", b"")
    if not blob:
        raise CheckpointError(f"checkpoint {data['path']!r} holds no trainer state to resume from")
    try:
        return pickle.loads(blob)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {data['path']!r} has a damaged trainer state: {exc}") from None
