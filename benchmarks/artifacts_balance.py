"""Artifacts balance report: each side's win rate under random play and with the scripted baselines
(one per side), for 5, 7 and 10 players, with 95% Wilson intervals. Prints; asserts nothing.

    python -m benchmarks.artifacts_balance [--games 1000] [--players 5 7 10] [--config key=value ...]

Settings: both sides random; both sides scripted; scripted Academics vs random Looters; random
Academics vs scripted Looters. The design target: no side above 75% with both sides scripted at the
default player count (7).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from benchmarks.common import rate
from envs.artifacts.baseline import ScriptedArtifactsPolicy
from envs.artifacts.data import ACADEMICS, LOOTERS, ROLE_SIDE
from envs.artifacts.rules import Artifacts


def play(config: dict, academics: str, looters: str, games: int, seed: int = 0):
    n = config["num_players"]
    policy = ScriptedArtifactsPolicy(n, seed=seed)
    rng = np.random.default_rng(seed)
    wins, reasons, rounds = Counter(), Counter(), []
    for g in range(games):
        game = Artifacts(rng=np.random.default_rng(seed * 100_003 + g), **config)
        kinds = [academics if ROLE_SIDE[int(r)] == ACADEMICS else looters for r in game.roles]
        while not game.is_terminal():
            p = game.current_player()
            mask = game.legal_action_mask()
            if kinds[p] == "scripted":
                action = policy(game.observation(p), mask)
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[rng.integers(len(legal))])
            game.apply_action(action)
        wins[game.winner] += 1
        reasons[game.end_reason.split(":")[0].split(" called")[0]] += 1
        rounds.append(game.round)
    return wins, reasons, float(np.mean(rounds))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="+", default=[5, 7, 10])
    parser.add_argument("--config", nargs="*", default=[], help="extra options, e.g. site=china")
    args = parser.parse_args()
    extra = {}
    for item in args.config:
        key, value = item.split("=", 1)
        extra[key] = {"True": True, "False": False}.get(value, value)
    settings = [
        ("random", "random"),
        ("scripted", "scripted"),
        ("scripted", "random"),
        ("random", "scripted"),
    ]
    for n in args.players:
        config = {"num_players": n, **extra}
        print(f"\n== {config} ==")
        for academics, looters in settings:
            start = time.perf_counter()
            wins, reasons, mean_rounds = play(config, academics, looters, args.games)
            print(
                f"Academics {academics:8s} vs Looters {looters:8s}: Academics win "
                f"{rate(wins[ACADEMICS], args.games)}; Looters {wins[LOOTERS] / args.games:.3f}; "
                f"mean rounds {mean_rounds:.1f}; {time.perf_counter() - start:.0f}s"
            )
            print("    endings: " + "; ".join(f"{k} {v}" for k, v in reasons.most_common()))


if __name__ == "__main__":
    main()
