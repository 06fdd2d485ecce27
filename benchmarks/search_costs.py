"""What a search agent pays per engine copy: `clone()` and `resample_hidden(p)` beside one decision.

    python -m benchmarks.search_costs [--positions 200] [--games expressions ...]

For each game and benchmark configuration, positions are sampled along seeded random games; at each
one the script times `clone()`, `resample_hidden(mover)` and one random-play decision (the mover's
observation, its mask and the action), and prints the median microseconds of each and their ratio
to a decision. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import envs


def positions(spec, config: dict, count: int, rng: np.random.Generator) -> list:
    """`count` positions (not over) drawn along seeded random games."""
    out, seed = [], 0
    while len(out) < count:
        game = spec.new_game(np.random.default_rng(seed), **config)
        seed += 1
        while not game.is_terminal() and len(out) < count:
            if rng.random() < 0.1:
                out.append(game.clone())
            legal = np.flatnonzero(game.legal_action_mask())
            game.apply_action(int(legal[rng.integers(len(legal))]))
    return out


def microseconds(operation, states: list, repeats: int = 5) -> float:
    """Median time of `operation(state)` over the states (each run `repeats` times), in µs."""
    times = []
    for state in states:
        start = time.perf_counter()
        for _ in range(repeats):
            operation(state)
        times.append((time.perf_counter() - start) / repeats)
    return 1e6 * float(np.median(times))


def decide(rng: np.random.Generator):
    def operation(state) -> None:
        game = state.clone()  # the decision must not change the sampled position
        player = game.current_player()
        game.observation(player)
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[rng.integers(len(legal))]))

    return operation


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=200, help="positions per configuration")
    parser.add_argument("--games", nargs="*", default=list(envs.GAMES))
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rng = np.random.default_rng(0)
    print(f"median µs over {args.positions} positions along random games")
    print(f"{'game':36s} {'clone':>8s} {'resample':>9s} {'decision*':>10s} {'resample/decision':>18s}")
    for name in args.games:
        spec = envs.spec(name)
        for config in spec.extra.get("benchmark_configs", [spec.benchmark_config]):
            states = positions(spec, config, args.positions, rng)
            clone = microseconds(lambda s: s.clone(), states)
            resample = microseconds(lambda s: s.resample_hidden(s.current_player(), rng), states)
            decision = microseconds(decide(rng), states) - clone
            label = f"{name} (" + ", ".join(f"{k}={v}" for k, v in config.items()) + ")"
            print(f"{label:36s} {clone:8.1f} {resample:9.1f} {decision:10.1f} {resample / decision:18.1f}")
    print("* a decision: the mover's observation, its legal mask and one action (a clone's time subtracted)")


if __name__ == "__main__":
    main()
