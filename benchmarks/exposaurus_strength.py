"""Exposaurus: the scripted baseline (envs/exposaurus/baseline.py) against uniformly random players.

    python -m benchmarks.exposaurus_strength [games per player count] [player counts...]

One baseline seat (rotating over the seats) against random players; prints the baseline's win rate
(a shared win counts as 1/k), its mean score margin over the others, and 95% Wilson intervals next
to the chance level 1/num_players. Prints; asserts nothing.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from benchmarks.common import wilson_interval


def play(num_players: int, games: int, seed: int = 0) -> dict:
    from envs.exposaurus import Exposaurus
    from envs.exposaurus.baseline import make_policy

    policy = make_policy()
    rng = np.random.default_rng(seed)
    wins, margins, decisions = 0.0, [], 0
    for g in range(games):
        game = Exposaurus(rng=np.random.default_rng(seed + g), num_players=num_players)
        seat = g % num_players
        while not game.is_terminal():
            player = game.current_player()
            mask = game.legal_action_mask()
            if player == seat:
                action = policy(game.observation(player), mask)
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[rng.integers(len(legal))])
            game.apply_action(action)
            decisions += 1
        if seat in game.winners:
            wins += 1 / len(game.winners)
        scores = game.scores()
        margins.append(scores[seat] - np.mean([s for p, s in enumerate(scores) if p != seat]))
    return {
        "wins": wins,
        "games": games,
        "margin": float(np.mean(margins)),
        "margin_sd": float(np.std(margins)),
        "decisions": decisions,
    }


def main(games: int = 1000, counts: tuple[int, ...] = (2, 3, 4)) -> None:
    print(
        f"Exposaurus scripted baseline vs random players, {games} games per player count "
        "(baseline seat rotating; default die setting)"
    )
    for n in counts:
        start = time.perf_counter()
        r = play(n, games, seed=1000 * n)
        low, high = wilson_interval(r["wins"], games)
        half = 1.96 * r["margin_sd"] / math.sqrt(games)
        print(
            f"  {n} players: win rate {r['wins'] / games:.3f} (95% CI {low:.3f}-{high:.3f}; chance "
            f"{1 / n:.3f}); score margin over the others' mean {r['margin']:+.1f} "
            f"(+-{half:.1f}); {time.perf_counter() - start:.0f}s"
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 1000, tuple(int(a) for a in args[1:]) or (2, 3, 4))
