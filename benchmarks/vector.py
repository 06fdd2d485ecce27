"""Decisions per second of random legal play through VectorGames beside Gymnasium's vector envs over our
single-seat env, every game at its benchmark configuration.

Opponents mode (one learning seat per game, the other seats random inside the env) is compared with
`gymnasium.make_vec("tabletop/<Game>-v0", vectorization_mode="async" | "sync")` (masks from
infos["action_mask"], auto-reset in the same step as ours) and with one plain single-seat env; these
rows count the learner's decisions (the opponents' are played too, uncounted). Self-play rows count
every decision (all seats are played from outside). Every env is built and seeded once, as a training
loop does, before any timing; worker start-up is not timed. The measurements are interleaved in rounds,
and each line is the median of the rounds (with the lowest and highest).

    python -m benchmarks.vector [--seconds 1] [--rounds 5] [--games exposed ...] [--large 64]
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import envs
from benchmarks.common import interleaved_medians
from envs.core import VectorGames

STEPS_PER_CALL = 8  # steps of a vector env between two looks at the clock


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (the same sampling cost for every env measured)."""
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def vector_games_play(games: VectorGames, per_step: int) -> Callable[[int], int]:
    """Steps of a VectorGames reset once; `per_step` decisions are counted per step."""
    rng = np.random.default_rng(0)
    state = {"step": games.reset(seed=0)}

    def play(_seed: int) -> int:
        step = state["step"]
        for _ in range(STEPS_PER_CALL):
            step = games.step(random_legal(step.mask, rng))
        state["step"] = step
        return STEPS_PER_CALL * per_step

    return play


def gymnasium_vector_play(env) -> Callable[[int], int]:
    """Steps of a Gymnasium vector env (same-step auto-reset, so every step is a decision of every env)."""
    rng = np.random.default_rng(0)
    _obs, infos = env.reset(seed=0)
    state = {"mask": infos["action_mask"]}

    def play(_seed: int) -> int:
        mask = state["mask"]
        for _ in range(STEPS_PER_CALL):
            _obs, _reward, _terminated, _truncated, infos = env.step(random_legal(mask, rng))
            mask = infos["action_mask"]
        state["mask"] = mask
        return STEPS_PER_CALL * env.num_envs

    return play


def single_env_play(env) -> Callable[[int], int]:
    """One gymnasium.make env stepped in a plain loop, reset when an episode ends."""
    rng = np.random.default_rng(0)
    _obs, info = env.reset(seed=0)
    state = {"mask": info["action_mask"]}

    def play(_seed: int) -> int:
        mask = state["mask"]
        for _ in range(STEPS_PER_CALL):
            _obs, _reward, terminated, truncated, info = env.step(int(random_legal(mask[None], rng)[0]))
            if terminated or truncated:
                _obs, info = env.reset()
            mask = info["action_mask"]
        state["mask"] = mask
        return STEPS_PER_CALL

    return play


def players_for(name: str, large: int) -> tuple[dict[str, Callable[[int], int]], list]:
    """What is measured for one game, and everything to close afterwards."""
    spec = envs.spec(name)
    config = spec.benchmark_config
    players, opened = {}, []

    def vector(label: str, num_games: int, workers: int, versus: bool) -> None:
        games = VectorGames(
            name, num_games, workers, seed=0, opponents="random" if versus else None, **config
        )
        opened.append(games)
        players[label] = vector_games_play(games, num_games)

    def gym_vector(label: str, num_envs: int, mode: str) -> None:
        env = gymnasium.make_vec(
            spec.gym_id,
            num_envs=num_envs,
            vectorization_mode=mode,
            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
            **config,
        )
        opened.append(env)
        players[label] = gymnasium_vector_play(env)

    single = gymnasium.make(spec.gym_id, **config)
    opened.append(single)
    players["single-seat env, plain loop"] = single_env_play(single)
    for num_envs in (1, 2):
        gym_vector(f"gymnasium AsyncVectorEnv n={num_envs}", num_envs, "async")
    for num_envs in (2, large):
        gym_vector(f"gymnasium SyncVectorEnv n={num_envs}", num_envs, "sync")
    for workers in (1, 2):
        for num_games in (workers, large):
            vector(f"VectorGames opponents W={workers} N={num_games}", num_games, workers, True)
    for workers in (1, 2):
        vector(f"VectorGames self-play W={workers} N={large} (all seats)", large, workers, False)
    return players, opened


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the median is shown")
    parser.add_argument("--games", nargs="*", default=list(envs.GAMES))
    parser.add_argument("--large", type=int, default=64, help="the larger number of games (default 64)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(f"median of {args.rounds} interleaved rounds of {args.seconds:g} s; {os.cpu_count()} CPUs")
    for name in args.games:
        config = envs.spec(name).benchmark_config
        players, opened = players_for(name, args.large)
        try:
            results = interleaved_medians(players, args.seconds, args.rounds)
        finally:
            for env in opened:
                env.close()
        label = ", ".join(f"{k}={v}" for k, v in config.items())
        base = results["gymnasium AsyncVectorEnv n=1"][0]
        print(f"\n{name} ({label})")
        print(f"{'what':48s} {'decisions/s':>12s} {'(min-max)':>17s} {'x async n=1':>12s}")
        for what, (value, low, high) in results.items():
            print(f"{what:48s} {value:12,.0f} {f'{low:,.0f}-{high:,.0f}':>17s} {value / base:12.2f}")


if __name__ == "__main__":
    main()
