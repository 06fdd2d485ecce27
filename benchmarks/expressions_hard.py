"""Expressions Hard mode against Normal: the scripted team's win rate in each, and their ratio.

    python -m benchmarks.expressions_hard [--games 2000] [--players 2 3 4 5] [--sweep]

Per player count, the scripted team (envs/expressions/baseline.py, every seat) plays the same seeded
games 0 .. games-1 in Normal and in Hard (the Hard side of the set-up chart, data.HARD_SETUP_CHART);
prints each win rate with its 95% Wilson interval and the ratio Hard / Normal, which the design asks to
lie between a third and two thirds (shared/design/expressions.md; RULES.md, "Set-up").

--sweep also plays every Hard chart that deals the whole deck (h cards each, the other 50 - n*h cards
the Timer Stack, at least 2), by setting each in turn as the Hard side for the measurement (the chart
is put back after): how the chart in data.py was chosen. It prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envs
from benchmarks.common import rate
from envs.expressions import data


def scripted_wins(n: int, mode: str, games: int) -> int:
    """Games the scripted team wins out of seeds 0 .. games-1 (each seed deals the table)."""
    spec = envs.spec("expressions")
    wins = 0
    for seed in range(games):
        game = spec.new_game(np.random.default_rng(seed), num_players=n, mode=mode)
        policies = [spec.scripted_policy(game.config, seat) for seat in range(n)]
        while not game.is_terminal():
            p = game.current_player()
            game.apply_action(int(policies[p](game.observation(p), game.legal_action_mask())))
        wins += game.team_wins()
    return wins


def with_hard_chart(n: int, hand: int, games: int) -> int:
    """Scripted wins in Hard with `hand` cards each and the rest of the deck as the Timer Stack."""
    kept = data.HARD_SETUP_CHART[n]
    data.HARD_SETUP_CHART[n] = (hand, data.NUM_CARDS - n * hand)
    try:
        return scripted_wins(n, "hard", games)
    finally:
        data.HARD_SETUP_CHART[n] = kept


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    parser.add_argument("--sweep", action="store_true", help="also every Hard chart that deals the deck")
    args = parser.parse_args()
    games = args.games
    print(f"Expressions, scripted team: win rate [95% Wilson] over seeds 0..{games - 1}, Normal and Hard")
    for n in args.players:
        start = time.perf_counter()
        normal = scripted_wins(n, "normal", games)
        hard = scripted_wins(n, "hard", games)
        ratio = hard / normal if normal else float("nan")
        band = "inside" if 1 / 3 <= ratio <= 2 / 3 else "outside"
        print(
            f"  {n} players  Normal {data.SETUP_CHART[n]} win {rate(normal, games)}\n"
            f"             Hard   {data.HARD_SETUP_CHART[n]} win {rate(hard, games)}\n"
            f"             ratio Hard / Normal {ratio:.3f} ({band} [1/3, 2/3])"
            f"   ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        if args.sweep:
            for hand in range(1, data.NUM_CARDS // n + 1):
                if data.NUM_CARDS - n * hand < 2:
                    continue
                wins = with_hard_chart(n, hand, games)
                chart = (hand, data.NUM_CARDS - n * hand)
                ratio = wins / normal if normal else float("nan")
                print(f"      Hard {chart}: win {rate(wins, games)}  ratio {ratio:.3f}", flush=True)


if __name__ == "__main__":
    main()
