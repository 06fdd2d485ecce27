"""Shared measuring helpers for the benchmark scripts (they print numbers; they assert nothing)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from envs.core.policies import play_random_episode


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(successes: float, trials: int) -> str:
    low, high = wilson_interval(successes, trials)
    return f"{successes / max(trials, 1):.3f} [{low:.3f}, {high:.3f}] over {trials}"


def decisions_per_second(play_one: Callable[[int], int], min_seconds: float = 3.0) -> float:
    """Run play_one(seed) -> decisions until min_seconds pass; return decisions per second."""
    decisions, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < min_seconds:
        decisions += play_one(seed)
        seed += 1
    return decisions / (time.perf_counter() - start)


def aec_random_play(make_env) -> Callable[[int], int]:
    """Random-play episodes through any PettingZoo AEC env using its action masks, seeded as a
    training loop seeds an env: once, at the first reset. (Reseeding PettingZoo's rlcard games on every
    reset rebuilds their rlcard environment, which halves leduc_holdem_v4's speed: no user pays that.)"""
    env = make_env()
    rng = np.random.default_rng(0)
    seeded = [False]

    def play(seed: int) -> int:
        if seeded[0]:
            env.reset()
        else:
            env.reset(seed=seed)
            seeded[0] = True
        return play_random_episode(env, rng)

    return play


def interleaved_medians(players: dict[str, Callable[[int], int]], seconds: float, rounds: int) -> dict:
    """Decisions per second of each player: `rounds` rounds of `seconds` each, the players interleaved
    within every round (so a slow spell of a shared machine hits all of them), as median, min, max."""
    samples: dict[str, list[float]] = {name: [] for name in players}
    names = list(players)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:  # rotate who goes first
            samples[name].append(decisions_per_second(players[name], seconds))
    return {name: (float(np.median(v)), min(v), max(v)) for name, v in samples.items()}


def engine_random_play(spec, config: dict) -> Callable[[int], int]:
    """A seeded random-play game on the raw engine, building the mover's observation each decision."""
    rng = np.random.default_rng(0)

    def play(seed: int) -> int:
        game = spec.new_game(np.random.default_rng(seed), **config)
        decisions = 0
        while not game.is_terminal():
            game.observation(game.current_player())
            legal = np.flatnonzero(game.legal_action_mask())
            game.apply_action(int(legal[rng.integers(len(legal))]))
            decisions += 1
        return decisions

    return play


def add_overrides_argument(parser, example: str) -> None:
    """`--set KEY=VALUE ...`: config overrides applied to every run a training benchmark makes."""
    parser.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help=f"config overrides for every run, e.g. {example}",
    )
