"""Decisions per second of random play: our raw engines and `env()` faces beside PettingZoo's
connect_four_v3 and leduc_holdem_v4 (and OpenSpiel's two-player hanabi with observation tensors,
where open_spiel is installed), measured in one run on one machine so the ratios are fair: every env is
seeded once, as a training loop seeds it; the measurements are interleaved in rounds, and each line is
the median of the rounds (with the lowest and highest).

    python -m benchmarks.throughput [--seconds 2] [--rounds 5] [--games expressions ...]
"""

from __future__ import annotations

import argparse
import importlib
import os

import numpy as np

import envs
from benchmarks.common import aec_random_play, engine_random_play, interleaved_medians


def reference_envs() -> dict[str, object]:
    out = {}
    try:
        from pettingzoo.classic import connect_four_v3, leduc_holdem_v4

        out["pettingzoo connect_four_v3 env()"] = aec_random_play(connect_four_v3.env)
        out["pettingzoo leduc_holdem_v4 env()"] = aec_random_play(leduc_holdem_v4.env)
    except ImportError as err:  # pettingzoo[classic] not installed
        print(f"(skipping PettingZoo classic: {err})")
    try:
        import pyspiel

        game = pyspiel.load_game("hanabi")
        rng = np.random.default_rng(0)

        def hanabi(seed: int) -> int:
            state = game.new_initial_state()
            decisions = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(outcomes, p=probs)))
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
            return decisions

        out["openspiel hanabi (with observation tensors)"] = hanabi
    except ImportError:
        print("(skipping OpenSpiel hanabi: open_spiel not installed)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the median is shown")
    parser.add_argument("--games", nargs="*", default=list(envs.GAMES))
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    players = dict(reference_envs())
    for name in args.games:
        spec = envs.spec(name)
        face = importlib.import_module(f"envs.{name}_v0")
        configs = spec.extra.get("benchmark_configs", [spec.benchmark_config])
        for config in configs:
            label = ", ".join(f"{k}={v}" for k, v in config.items())
            players[f"{name} ({label}) raw engine"] = engine_random_play(spec, config)
            players[f"{name} ({label}) env()"] = aec_random_play(
                lambda config=config, face=face: face.env(**config)
            )
    results = interleaved_medians(players, args.seconds, args.rounds)
    leduc = results.get("pettingzoo leduc_holdem_v4 env()", (None,))[0]
    hanabi = results.get("openspiel hanabi (with observation tensors)", (None,))[0]
    print(f"median of {args.rounds} interleaved rounds of {args.seconds:g} s")
    print(f"{'what':58s} {'decisions/s':>12s} {'(min-max)':>17s} {'x leduc':>8s} {'x hanabi':>9s}")
    for name, (value, low, high) in results.items():
        x_leduc = f"{value / leduc:8.2f}" if leduc else "       -"
        x_hanabi = f"{value / hanabi:9.2f}" if hanabi else "        -"
        spread = f"{low:,.0f}-{high:,.0f}"
        print(f"{name:58s} {value:12,.0f} {spread:>17s} {x_leduc} {x_hanabi}")


if __name__ == "__main__":
    main()
