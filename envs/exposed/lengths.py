"""Measure game lengths (decisions) under random play, for choosing `max_decisions`.

    python -m envs.exposed.lengths [--games 2000] [--config 0 1 ...]

Plays uniformly random legal actions on each test configuration of `envs.exposed_v0.SPEC` and prints
the mean, high percentiles and maximum number of decisions per game (RULES.md quotes the numbers).
"""

from __future__ import annotations

import argparse

import numpy as np

from .rules import Exposed


def random_lengths(config: dict, games: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(games, dtype=np.int64)
    for i in range(games):
        g = Exposed(rng=np.random.default_rng([seed, i]), **config, max_decisions=10**9)
        while not g.is_terminal():
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
        out[i] = g.num_decisions
    return out


def main() -> None:
    from envs.exposed_v0 import SPEC

    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--config", type=int, nargs="*", help="indices into SPEC.test_configs")
    args = parser.parse_args()
    for i, config in enumerate(SPEC.test_configs):
        if args.config and i not in args.config:
            continue
        n = random_lengths(config, args.games)
        p99, p999 = np.percentile(n, [99, 99.9])
        print(
            f"{config}: games {len(n)} mean {n.mean():.0f} p99 {p99:.0f} p99.9 {p999:.0f} max {n.max()}",
            flush=True,
        )


if __name__ == "__main__":
    main()
