"""A benchmark card: random, scripted, a trained run, search and guided search on one rating scale.

    python -m benchmarks.search_card RUN [--games 20] [--simulations N] [--threads 1]

RUN is a run directory (e.g. runs/exposaurus-seed0 from `python -m training train exposaurus`); its
game and configuration are the card's. Plays the round robin of `training.rating_table` (seats rotated)
and prints a Markdown table: each player's Elo-scale rating (random at 0) with its 95% bootstrap
interval, and the seconds per decision of the two searches. Cooperative games (Expressions) have no
head-to-head: the card lists each player's team win rate instead. The same table as JSON:
`python -m training rate random scripted RUN search search:RUN --games N`. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from envs.core.search import SearchBudget
from training import checkpoint as ckpt
from training.cli import run_evaluates_greedy, scored_info
from training.evaluate import rating_table
from training.search import search_agent


def card(run: str, games: int, simulations: int | None, seed: int = 0) -> tuple[dict, dict, object]:
    data = ckpt.read_checkpoint(run)
    info = scored_info(data)
    budget = SearchBudget(simulations=simulations) if simulations else None  # None: the defaults
    searches = {
        "search": search_agent("search", info, budget, seed),
        "guided search": search_agent(f"search:{run}", info, budget, seed),
    }
    players = {"random": "random", "scripted": "scripted", "PPO": ckpt.build_net(data).eval(), **searches}
    # PPO plays as its run evaluates (greedy where the config says eval.greedy); the searches are their own
    table = rating_table(info, players, games, seed, greedy=run_evaluates_greedy(data))
    times = {name: s.seconds_per_decision() for name, s in searches.items()}
    return table, times, info


def markdown(table: dict, times: dict) -> str:
    lines = []
    if "ratings" in table:
        lines += ["| player | Elo (random = 0) | 95% interval | s / decision |", "|---|---|---|---|"]
        for name, elo in table["ratings"].items():
            low, high = table["ci95"][name]
            lines.append(f"| {name} | {elo:+.0f} | [{low:+.0f}, {high:+.0f}] | {time_of(name, times)} |")
    else:
        lines += [
            "| team of | win rate | 95% interval | mean return | s / decision |",
            "|---|---|---|---|---|",
        ]
        for name, row in table["players"].items():
            low, high = row["ci95"]
            lines.append(
                f"| {name} | {row['win_rate']:.3f} | [{low:.3f}, {high:.3f}] | {row['mean_return']:+.2f} "
                f"| {time_of(name, times)} |"
            )
    return "\n".join(lines)


def time_of(name: str, times: dict) -> str:
    return f"{times[name]:.3f}" if name in times else "—"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "run", help="a run directory or checkpoint: the PPO player and the guided search's policy"
    )
    parser.add_argument(
        "--games", type=int, default=20, help="games per pair (per player in cooperative games)"
    )
    parser.add_argument(
        "--simulations",
        type=int,
        default=None,
        help="simulations per decision (default: the game's; guided 100)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    table, times, info = card(args.run, args.games, args.simulations, args.seed)
    config = ", ".join(f"{k}={v}" for k, v in info.game_config.items())
    sims = args.simulations or f"{info.spec.search.simulations} (guided 100)"
    print(f"{info.spec.title} ({config}): {args.games} games per pair, {sims} simulations per decision")
    print(markdown(table, times))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
