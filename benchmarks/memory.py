"""Peak resident memory of each default config's run, one measurement at a time, each in its own process.

    python -m benchmarks.memory [--configs artifacts exposaurus exposed expressions] [--iterations 5 20]
    python -m benchmarks.memory --configs artifacts [--warm-start-only] [--pretrain-games 4000]
        [--pretrain-epochs 15] [--dense]

Each measurement is the start of the config's own run: its warm start if it has one (pretrain.games >
0: Artifacts; the recording of the scripted games and the behaviour cloning, at the config's size unless
told otherwise; `--warm-start-only` stops there), then a few PPO iterations at the default sizes
(num_envs, rollout_steps, pool, evaluation games at the start and the end). A config without a warm
start runs once per entry of `--iterations`, so the lines show whether memory grows with the number of
iterations (snapshot pool, evaluation history); a warm start is measured once, with the first entry.
`--dense` measures the warm start with the dense recording it used before (the reference kept in
tests/training/test_pretrain_memory.py), for comparison. Peak = the process's ru_maxrss (python, torch and the game included; the
`baseline` column is the peak right after the imports). One torch thread (OMP_NUM_THREADS=1).
Prints one JSON line per measurement; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
DEFAULTS = ("artifacts", "exposaurus", "exposed", "expressions")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def resident_mb() -> float:
    """The resident memory now (Linux)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure(
    config_name: str, iterations: int, games: int | None, epochs: int | None, dense: bool, extra=()
) -> dict:
    """One run of the config in this process: its warm start if it has one, then `iterations` PPO
    iterations (0: the warm start alone) and the evaluations a run does at its start and end."""
    from training import pretrain as pt
    from training import trainer as trainer_module
    from training.config import load_config

    baseline = peak_mb()
    path = CONFIGS / f"{config_name}.yaml"
    planned = load_config(path)
    p = planned.ppo
    overrides = ["progress=false"] + (
        [f"total_steps={iterations * p.num_envs * p.rollout_steps}"] if iterations else []
    )
    # given explicitly, so the short run keeps the config's whole warm start (load_config scales it)
    overrides += [f"pretrain.games={planned.pretrain.games if games is None else games}"]
    overrides += [f"pretrain.epochs={epochs}"] if epochs is not None else []
    config = load_config(path, overrides + list(extra))
    recorded: dict = {}
    collect = pt.collect_scripted
    if dense:  # the dense recording and trainer of before
        from tests.training.test_pretrain_memory import dense_collect, dense_pretrain

        collect = dense_collect
        pt.pretrain = trainer_module.pretrain = dense_pretrain

    def counting_collect(*args, **kwargs):
        data = collect(*args, **kwargs)
        recorded.update(
            decisions=len(data["action"]),
            recording_mb=round(_nbytes(data, dense=False) / 2**20, 1),
            dense_mb=round(_nbytes(data) / 2**20, 1),
        )
        return data

    pt.collect_scripted = counting_collect
    trace: dict = {}  # iteration -> resident MB after it: does the run keep growing?

    with tempfile.TemporaryDirectory() as tmp:
        trainer = trainer_module.Trainer(config, run_dir=Path(tmp) / "run", log=False)
        iterate = trainer.backend.iterate

        def traced_iterate():
            stats = iterate()
            if trainer.iteration in (1, 5) or trainer.iteration % 10 == 0 or trainer.iteration == iterations:
                trace[trainer.iteration] = round(resident_mb())
            return stats

        trainer.backend.iterate = traced_iterate
        trainer.train() if iterations else trainer.warm_start()
        stats = trainer.pretrain_stats
        pool = len(trainer.backend.pool.snapshots)
        snapshot_mb = (
            sum(v.numel() * v.element_size() for v in trainer.backend.net.state_dict().values()) / 2**20
        )
    warm = f"warm start ({config.pretrain.games} games, {config.pretrain.epochs} epochs)"
    ppo = f"{iterations} PPO iterations (num_envs {p.num_envs} x rollout_steps {p.rollout_steps})"
    parts = ([warm] if config.pretrain.games else []) + ([ppo] if iterations else [])
    return {
        "config": config_name,
        "part": " + ".join(parts) + (", dense as before" if dense else ""),
        **recorded,
        **({"accuracy": round(stats["pretrain/accuracy"], 4)} if "pretrain/accuracy" in stats else {}),
        "snapshots": pool,
        # the pool keeps the newest pool_size snapshots (one every snapshot_every iterations, whatever
        # the opponent weights): the most it can grow by over a longer run
        "pool_cap_mb": round(config.opponents.pool_size * snapshot_mb, 1),
        "baseline_mb": round(baseline),
        "peak_mb": round(peak_mb()),
        "resident_mb_after_iteration": trace,
    }


def _nbytes(data, dense: bool = True) -> int:
    """What the recording holds (dense=False), or would hold with every field a dense array."""
    total = 0
    for name in data:
        rows = getattr(data, name, None) if name in ("obs", "state") else None
        if rows is None:  # a dense array
            total += data[name].nbytes
        else:
            total += len(rows) * rows.width * 4 if dense else rows.nbytes
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=list(DEFAULTS))
    parser.add_argument("--iterations", nargs="+", type=int, default=[5, 20])
    parser.add_argument("--pretrain-games", type=int, default=None)
    parser.add_argument("--pretrain-epochs", type=int, default=None)
    parser.add_argument("--dense", action="store_true", help="the warm start's dense recording of before")
    parser.add_argument("--warm-start-only", action="store_true", help="no PPO after a warm start")
    parser.add_argument("--set", nargs="*", default=[], help="config overrides, e.g. checkpoint_every=1000")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a single measurement, in this process
    args = parser.parse_args()
    if args.one:
        result = measure(
            args.one, args.iterations[0], args.pretrain_games, args.pretrain_epochs, args.dense, args.set
        )
        print(json.dumps(result), flush=True)
        return
    env = os.environ | {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    root = Path(__file__).resolve().parent.parent
    for name in args.configs:
        from training.config import load_config

        warm = load_config(CONFIGS / f"{name}.yaml").pretrain.games > 0
        # a warm start is measured once (it dominates), followed by the first entry's iterations
        for iterations in [0 if args.warm_start_only else args.iterations[0]] if warm else args.iterations:
            cmd = [sys.executable, "-m", "benchmarks.memory", "--one", name, "--iterations", str(iterations)]
            cmd += ["--pretrain-games", str(args.pretrain_games)] if args.pretrain_games is not None else []
            cmd += (
                ["--pretrain-epochs", str(args.pretrain_epochs)] if args.pretrain_epochs is not None else []
            )
            cmd += ["--dense"] if args.dense else []
            cmd += ["--set", *args.set] if args.set else []
            out = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)  # one at a time
            lines = out.stdout.strip().splitlines()
            print(
                lines[-1]
                if out.returncode == 0 and lines
                else json.dumps({"config": name, "error": out.stderr[-2000:]})
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
