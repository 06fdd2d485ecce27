"""Time to target: learner decisions and wall-clock seconds until a default config first reaches its
strength target, at a given number of rollout workers - the figure a user compares, not decisions per
second alone.

    python -m benchmarks.time_to_target exposed --setups 1x1 2x2 rllib1 [--seed 0] [--every 5] [--games 200]

For each setup (WORKERSxTHREADS: the native trainer's rollout workers and the update's torch threads;
rllibN: backend=rllib with N EnvRunners on a local Ray of every core) the config trains
from scratch (its warm start included, timed), evaluating every `--every` iterations with `--games`
games per opponent; the first evaluation at which every target holds gives the decisions and the
seconds since the run started (evaluations included, as a user waits for them). The run stops there.
The targets are those the strength tables report (docs/strength.md); an evaluation of 200 games has
an interval of about +-0.07, so a target met early may be a lucky evaluation: the final strength is
the 1,000-game figure of docs/strength.md. Setups run one after another on the same machine. Prints,
does not assert.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from benchmarks.common import add_overrides_argument

# config -> what every evaluation entry must show: (opponent, key, threshold); "team" keys read the
# cooperative team's own result, "side/<team>" one side's win rate against that opponent
TARGETS = {
    "exposed": [("random", "win_rate", 0.90), ("scripted", "win_rate", 0.70)],
    "exposed-4p": [("scripted", "win_rate", 0.40)],
    "exposaurus": [("scripted", "win_rate", 0.60)],
    "expressions": [("self", "win_rate", 0.123), ("self", "mean_return", -7.16)],
    "artifacts": [
        ("random", "side/0", 0.792),
        ("scripted", "side/0", 0.429),
        ("random", "side/1", 0.708),
        ("scripted", "side/1", 0.571),
    ],
}


def value(entry: dict, opponent: str, key: str) -> float:
    result = entry[opponent]
    if key.startswith("side/"):
        return result["by_team"][key.split("/", 1)[1]]["win_rate"]
    return result[key]


def reached(entry: dict, targets: list) -> bool:
    return all(opponent in entry and value(entry, opponent, key) >= bar for opponent, key, bar in targets)


class TargetReached(Exception):
    """Raised from inside the run at the first evaluation that meets every target."""


def build(setup: str, config):
    """The run of one setup: the native trainer (WORKERSxTHREADS) or RLlib's (rllibN)."""
    if setup.startswith("rllib"):
        from training.rllib.trainer import RLlibRun

        return RLlibRun(config, rllib={"num_env_runners": int(setup[len("rllib") :])}, log=False)
    from training.trainer import Trainer

    return Trainer(config, log=False)


def setup_overrides(setup: str) -> list[str]:
    if setup.startswith("rllib"):
        return ["backend=rllib"]
    workers, threads = (int(x) for x in setup.split("x"))
    return [f"workers={workers}", f"threads={threads}"]


def time_to_target(name: str, setup: str, seed: int, every: int, games: int, extra=()) -> dict:
    from training.config import default_config, load_config

    targets = TARGETS[name]
    with tempfile.TemporaryDirectory() as folder:
        overrides = [
            *setup_overrides(setup),
            f"seed={seed}",
            f"eval.every={every}",
            f"eval.games={games}",
            "checkpoint_every=0",
            "progress=false",
            f"run_dir={folder}/run",
            *extra,
        ]
        trainer = build(setup, load_config(default_config(name), overrides))
        began = time.perf_counter()
        evaluate = trainer.evaluate
        seen = []

        def timed(games=None):
            entry = evaluate(games)
            seen.append({"decisions": entry["decisions"], "seconds": round(time.perf_counter() - began, 1)})
            if entry["decisions"] > 0 and reached(entry, targets):
                raise TargetReached
            return entry

        trainer.evaluate = timed
        try:  # (the run releases its backend however train() ends)
            trainer.train()
            hit = None
        except TargetReached:
            hit = seen[-1]
        return {
            "setup": setup,
            "reached": hit is not None,
            "decisions": hit["decisions"] if hit else None,
            "seconds": hit["seconds"] if hit else None,
            "evaluations": len(seen),
            "total_steps": trainer.config.total_steps,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("config", choices=sorted(TARGETS))
    parser.add_argument("--setups", nargs="+", default=["1x1", "2x2"], help="WORKERSxTHREADS or rllibN")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=5, help="iterations between evaluations")
    parser.add_argument("--games", type=int, default=200, help="games per opponent and evaluation")
    add_overrides_argument(parser, "device=cuda ppo.num_envs=240")
    args = parser.parse_args()
    for setup in args.setups:
        row = time_to_target(args.config, setup, args.seed, args.every, args.games, args.set)
        print(json.dumps({args.config: row}), flush=True)


if __name__ == "__main__":
    main()
