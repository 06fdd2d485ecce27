"""What evaluating a guided search's leaves together buys: seconds per decision at each batch, and the
batched search's strength against the one-at-a-time search with the same simulations.

    python -m benchmarks.search_batch AGENT [--batches 1,8,16] [--positions 8] [--rounds 3] [--games 0]

AGENT is what `search:AGENT` guides from: a run directory, a checkpoint or a reference agent (e.g.
reference:exposaurus-2p-v1); its game and configuration are used. Positions are drawn along seeded
random games; each round times one decision at every position for every batch, the batches
interleaved, and the script prints the median seconds per decision over the rounds and the speed-up
over batch 1. With --games N, each batch above 1 then plays N games against batch 1 (seats rotated,
the same simulations per decision) and its win rate is printed with a 95% Wilson interval: a virtual
loss steers the walks of a batch apart, so the batched search is a slightly different search. Prints;
asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

from envs.core.search import SearchBudget
from training import checkpoint as ckpt
from training.cli import scored_info
from training.evaluate import match
from training.search import search_agent


def positions(info, count: int, seed: int) -> list:
    """`count` positions (not over, with a choice to make) along seeded random games."""
    rng, out, game_seed = np.random.default_rng(seed), [], 0
    while len(out) < count:
        game = info.new_game(game_seed)
        game_seed += 1
        for _ in range(int(rng.integers(4, 40))):
            if game.is_terminal():
                break
            legal = np.flatnonzero(game.legal_action_mask())
            game.apply_action(int(legal[rng.integers(len(legal))]))
        if not game.is_terminal() and game.legal_action_mask().sum() > 1:
            out.append(game)
    return out


def seconds_per_decision(agent: str, info, batches: list[int], states: list, rounds: int, budget) -> dict:
    """The median over `rounds` of each batch's mean seconds per decision at the positions."""
    searches = {b: search_agent(f"search:{agent}", info, budget, seed=0, batch=b) for b in batches}
    times: dict[int, list[float]] = {b: [] for b in batches}
    for _ in range(rounds):
        for b, search in searches.items():  # interleaved: a change in the machine's load hits every batch
            start = time.perf_counter()
            for state in states:
                search.act(state.clone(), state.current_player())
            times[b].append((time.perf_counter() - start) / len(states))
    return {b: float(np.median(t)) for b, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("agent", help="a run directory, checkpoint or reference agent (the search's guide)")
    parser.add_argument("--batches", default="1,8,16", help="comma-separated batches (default 1,8,16)")
    parser.add_argument("--simulations", type=int, default=100, help="simulations per decision (default 100)")
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--games", type=int, default=0, help="games of each batch against batch 1 (default 0)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)
    batches = [int(b) for b in args.batches.split(",")]
    info = scored_info(ckpt.read_checkpoint(args.agent))
    budget = SearchBudget(simulations=args.simulations)
    states = positions(info, args.positions, args.seed)
    medians = seconds_per_decision(args.agent, info, batches, states, args.rounds, budget)
    config = ", ".join(f"{k}={v}" for k, v in info.game_config.items())
    print(f"search:{args.agent} on {info.spec.title} ({config}), {args.simulations} simulations per decision")
    print(f"median of {args.rounds} interleaved rounds over {len(states)} positions")
    base = medians.get(1)
    for b, seconds in medians.items():
        speedup = f"{base / seconds:.2f}x" if base else "-"
        print(f"batch {b:>3}: {seconds:.3f} s/decision  {speedup} batch 1's speed")
    for b in batches:
        if b == 1 or args.games <= 0:
            continue
        batched = search_agent(f"search:{args.agent}", info, budget, seed=args.seed, batch=b)
        single = search_agent(f"search:{args.agent}", info, budget, seed=args.seed + 1)
        result = match(info, batched, single, games=args.games, seed=args.seed)
        low, high = result["ci95"]
        print(
            f"batch {b:>3} vs batch 1: {result['win_rate']:.3f} [{low:.3f}, {high:.3f}] ({args.games} games)"
        )


if __name__ == "__main__":
    main()
