"""Strength of the scripted Exposed baseline: one baseline seat against random players.

    python -m benchmarks.exposed_strength [--games 1000] [--players 2 4]

Prints the baseline's win rate (shared wins count as wins) with a 95% Wilson interval, beside the
share a random player gets in the same seat (the same games' seeds, every seat random). Asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.common import rate
from envs.exposed.baseline import ScriptedExposedPolicy
from envs.exposed.rules import Exposed

MAX_DECISIONS = 20_000  # a safety net; random and baseline games end long before


def play(num_players: int, seed: int, scripted_seat: int | None) -> bool:
    """One game; True if `scripted_seat` (or, with None, seat 0 played at random) wins."""
    game = Exposed(num_players=num_players, rng=np.random.default_rng(seed))
    policy = ScriptedExposedPolicy(game.config, seed=seed) if scripted_seat is not None else None
    rng = np.random.default_rng(seed + 1)
    seat = 0 if scripted_seat is None else scripted_seat
    for _ in range(MAX_DECISIONS):
        if game.is_terminal():
            break
        p = game.current_player()
        mask = game.legal_action_mask()
        if p == seat and policy is not None:
            action = policy(game.observation(p), mask)
        else:
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(len(legal))])
        game.apply_action(action)
    return bool(game.is_terminal() and game.returns()[seat] > 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4])
    args = parser.parse_args()
    for n in args.players:
        start = time.perf_counter()
        scripted = sum(play(n, seed, seed % n) for seed in range(args.games))
        random_wins = sum(play(n, seed, None) for seed in range(args.games))
        took = time.perf_counter() - start
        print(f"{n} players: scripted baseline wins {rate(scripted, args.games)}")
        print(f"{n} players: random player wins    {rate(random_wins, args.games)}  ({took:.0f} s)")


if __name__ == "__main__":
    main()
