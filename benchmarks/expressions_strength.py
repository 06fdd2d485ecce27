"""Expressions: the scripted team's win rate against a random team (each over the same seeds).

    python -m benchmarks.expressions_strength [--games 1000] [--players 2 3 4 5]

Prints team win rates with 95% Wilson intervals and the mean Harmony − Agony.
"""

from __future__ import annotations

import argparse

import numpy as np

import envs
from benchmarks.common import rate
from envs.core.policies import RandomPolicy


def play_team(spec, config: dict, make_policy, games: int) -> tuple[int, float]:
    wins, margin = 0, 0.0
    for seed in range(games):
        game = spec.new_game(np.random.default_rng(seed), **config)
        policies = [make_policy(game.config, seat, seed) for seat in range(game.num_players)]
        while not game.is_terminal():
            p = game.current_player()
            game.apply_action(int(policies[p](game.observation(p), game.legal_action_mask())))
        wins += game.team_wins()
        margin += len(game.harmony) - len(game.agony)
    return wins, margin / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    parser.add_argument("--mode", default="normal")
    args = parser.parse_args()
    spec = envs.spec("expressions")
    teams = {
        "scripted": lambda config, seat, seed: spec.scripted_policy(config, seat),
        "random": lambda config, seat, seed: RandomPolicy(seed * 10 + seat),
    }
    print(
        f"Expressions ({args.mode}), team win rate [95% Wilson], mean Harmony - Agony, {args.games} games each"
    )
    for n in args.players:
        for name, make in teams.items():
            wins, margin = play_team(spec, {"num_players": n, "mode": args.mode}, make, args.games)
            print(f"  {n} players, {name:8s} team: win {rate(wins, args.games)}   margin {margin:+.2f}")


if __name__ == "__main__":
    main()
