"""The guided search's two roots at the same budget: PUCT against Gumbel MuZero's sequential halving.

    python -m benchmarks.search_root AGENT --game G [key=value ...] [--simulations 16,32] [--games 200]

AGENT guides both searches (a run directory, a checkpoint or a reference agent such as
reference:exposaurus-2p-v1). For each budget, each root plays the scripted players, and the Gumbel
root plays PUCT head to head, seats rotated; the games are played in chunks of `--chunk`, the three
matches of a budget interleaved chunk by chunk, so the machine's load falls on all of them alike.
Prints each win rate with its 95% Wilson interval and each search's seconds per decision; asserts
nothing. Competitive games only (a cooperative team has no opponent to beat head to head).
"""

from __future__ import annotations

import argparse
import os

import torch

from envs.core.search import SearchBudget
from training.evaluate import match
from training.games import game_info
from training.search import search_agent

from .common import rate

ROOTS = ("puct", "gumbel")


def searches(agent: str, info, simulations: int, batch: int, seed: int, scale: float) -> dict:
    budget = SearchBudget(simulations=simulations)
    return {
        root: search_agent(f"search:{agent}", info, budget, seed, batch=batch, root=root, gumbel_scale=scale)
        for root in ROOTS
    }


def compare(info, first: dict, second: dict, games: int, chunk: int, seed: int) -> dict:
    """Win rates (score, games) of each root against the scripted players (the searches of `first`)
    and of Gumbel against PUCT (those of `second`), and each root's seconds per decision."""
    matches = {
        "puct vs scripted": (first["puct"], "scripted"),
        "gumbel vs scripted": (first["gumbel"], "scripted"),
        "gumbel vs puct": (second["gumbel"], second["puct"]),
    }
    scores = {name: [0.0, 0] for name in matches}
    for start in range(0, games, chunk):
        n = min(chunk, games - start)
        for k, (name, (a, b)) in enumerate(matches.items()):
            result = match(info, a, b, n, seed=seed + 1000 * start + k)
            scores[name][0] += result["win_rate"] * result["games"]
            scores[name][1] += result["games"]
    seconds = {
        root: (first[root].seconds + second[root].seconds)
        / max(1, first[root].decisions + second[root].decisions)
        for root in ROOTS
    }
    return {"scores": scores, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("agent", help="the policy and critic that guide both searches")
    parser.add_argument("--game", required=True)
    parser.add_argument("config", nargs="*", help="the game's key=value settings, e.g. num_players=2")
    parser.add_argument("--simulations", default="16,32", help="budgets, comma-separated (default 16,32)")
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--chunk", type=int, default=20, help="games per interleaved chunk (default 20)")
    parser.add_argument("--batch", type=int, default=8, help="leaves evaluated together (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--gumbel-scale",
        type=float,
        default=0.0,
        help="the Gumbel root's noise (default 0: its best action, as an agent plays; 1: a sample)",
    )
    args = parser.parse_intermixed_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)
    config = {k: int(v) if v.isdigit() else v for k, v in (c.split("=", 1) for c in args.config)}
    info = game_info(args.game, config)
    if info.cooperative:
        parser.error("a cooperative game has no opponent to beat head to head")
    print(
        f"{args.agent} on {args.game} {config}, {args.games} games per match, batch {args.batch}, "
        f"Gumbel scale {args.gumbel_scale:g}"
    )
    print("| simulations | match | win rate [95% interval] over games | s / decision (PUCT, Gumbel) |")
    print("|---|---|---|---|")
    for simulations in (int(s) for s in args.simulations.split(",")):
        first, second = (
            searches(args.agent, info, simulations, args.batch, seed, args.gumbel_scale)
            for seed in (args.seed, args.seed + 1)
        )
        out = compare(info, first, second, args.games, args.chunk, args.seed)
        times = f"{out['seconds']['puct']:.3f}, {out['seconds']['gumbel']:.3f}"
        for name, (score, n) in out["scores"].items():
            print(f"| {simulations} | {name} | {rate(score, n)} | {times} |", flush=True)


if __name__ == "__main__":
    main()
