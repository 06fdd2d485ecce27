"""Rollout workers: how the native trainer's speed grows with `workers`, and what each decision costs.

    python -m benchmarks.workers [--configs exposed expressions] [--setups 1x1 2x1 2x2] [--iterations 3] [--repeats 3]
        [--set device=cpu ...]

For each shipped default config (configs/<name>.yaml; its warm start and evaluations off, so only PPO
iterations are timed) and each worker count, after one iteration of warm-up: the rollout rate
(decisions collected per second, learner decisions - what total_steps counts - and every seat's), the
whole iteration's rate (rollout + update), and the resident memory of the trainer's process and of each
worker. Worker counts are interleaved and each figure is the median of `repeats` fresh runs.

The per-decision costs come from the runs at one worker (everything in one process): `inference` is
the time in the networks' forward passes, `engine` the rest of the rollout (the games, observations,
masks, scripted and random players, bookkeeping), both per decision of any seat; `update` is the PPO
update per learner decision. At two workers, `transport` is the rollout's wall time beyond the slowest
worker's own time (the weights sent, the batches back, the merge), per learner decision.

From them, the predicted iteration rate on N cores with N workers (each worker a core, the update on one
thread of the trainer's process):
    learner decisions per second = 1 / (rollout_1 / (N * efficiency_2) + transport + update)
with rollout_1 the seconds per learner decision at one worker and efficiency_2 the measured rollout
speed-up at two workers over 2.

Where inference runs (`--inference`): the trainer infers on each worker, with its own copy of the
weights. The alternative - the workers only step the games, through the public batched environment
(`envs.vector`), and every worker's decisions are batched through one network in the trainer's process
(actor and critic) - is measured beside it on self-play (every seat the learner, so both do the same
work, the trainer's recording aside): decisions of any seat per second, the config's network and
ppo.num_envs games, at each worker count. A config whose critic reads the full state (Artifacts') has no
central figure: the batched environment gives observations, not states. Prints, does
not assert.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import add_overrides_argument

CONFIGS = ("exposed", "exposed-4p", "expressions", "artifacts", "exposaurus")


def rss_mb(pid: int) -> float:
    """Resident memory of a process, MB (Linux /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def timed_inference():
    """Patch NetActor.act to add up the time of its forward passes; returns the counter (a list)."""
    from training.actors import NetActor

    spent = [0.0]
    original = NetActor.act

    def act(self, *args, **kwargs):
        begin = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - begin

    NetActor.act = act
    return spent, lambda: setattr(NetActor, "act", original)


def one_run(name: str, workers: int, iterations: int, seed: int, threads: int = 1, extra=()) -> dict:
    from training.config import default_config, load_config
    from training.ppo import ppo_update
    from training.trainer import Trainer

    with tempfile.TemporaryDirectory() as folder:
        overrides = [
            f"workers={workers}",
            f"threads={threads}",
            "pretrain.games=0",
            "eval.every=0",
            "checkpoint_every=0",
            "progress=false",
            f"seed={seed}",
            f"run_dir={folder}/run",
            *extra,
        ]
        trainer = Trainer(load_config(default_config(name), overrides), log=False)
        p = trainer.config.ppo
        runner = trainer.backend.runner
        spent, restore = timed_inference() if workers == 1 else ([0.0], lambda: None)
        try:
            out = {
                "rollout_s": 0.0,
                "update_s": 0.0,
                "learner": 0,
                "all": 0,
                "inference_s": 0.0,
                "transport_s": 0.0,
            }
            for i in range(iterations + 1):  # the first is warm-up (workers start, caches fill)
                before, before_all, inference = runner.decisions, runner.all_decisions, spent[0]
                began = time.perf_counter()
                batch = runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
                rolled = time.perf_counter() - began
                trainer.backend.net.train()
                ppo_update(trainer.backend.net, trainer.backend.optimizer, batch, p, trainer.backend.rng)
                trainer.backend._sync_acting()
                trainer.backend.net.eval()
                updated = time.perf_counter() - began - rolled
                if i == 0:
                    continue
                out["rollout_s"] += rolled
                out["update_s"] += updated
                out["learner"] += runner.decisions - before
                out["all"] += runner.all_decisions - before_all
                out["inference_s"] += spent[0] - inference
                if workers > 1:
                    out["transport_s"] += rolled - max(runner.worker_seconds)
            out["rss_main_mb"] = rss_mb(os.getpid())
            if workers > 1:
                out["rss_workers_mb"] = [rss_mb(proc.pid) for proc in runner.workers.processes]
        finally:
            restore()
            trainer.backend.close()
    return out


def summarize(runs: list[dict]) -> dict:
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if not isinstance(runs[0][k], list)}
    rates = [r["learner"] / r["rollout_s"] for r in runs]
    all_rates = [r["all"] / r["rollout_s"] for r in runs]
    iteration = [r["learner"] / (r["rollout_s"] + r["update_s"]) for r in runs]
    out = {
        "rollout_learner_per_s": round(statistics.median(rates)),
        "rollout_all_per_s": round(statistics.median(all_rates)),
        "iteration_learner_per_s": round(statistics.median(iteration)),
        "update_us_per_learner_decision": round(1e6 * med["update_s"] / med["learner"], 1),
        "rss_main_mb": round(med["rss_main_mb"]),
    }
    if med["inference_s"]:
        out["inference_us_per_decision"] = round(1e6 * med["inference_s"] / med["all"], 1)
        out["engine_us_per_decision"] = round(1e6 * (med["rollout_s"] - med["inference_s"]) / med["all"], 1)
    if "rss_workers_mb" in runs[0]:
        out["transport_us_per_learner_decision"] = round(1e6 * med["transport_s"] / med["learner"], 1)
        out["rss_workers_mb"] = [
            round(statistics.median(r["rss_workers_mb"][w] for r in runs))
            for w in range(len(runs[0]["rss_workers_mb"]))
        ]
    out["_seconds_per_learner"] = med["rollout_s"] / med["learner"]
    out["_update_per_learner"] = med["update_s"] / med["learner"]
    out["_transport_per_learner"] = med["transport_s"] / med["learner"]
    return out


def predict(one: dict, two: dict, cores: int) -> int:
    """Iteration rate (learner decisions/s) on `cores` cores with as many workers (see the docstring)."""
    efficiency = two["rollout_learner_per_s"] / (2 * one["rollout_learner_per_s"])
    per = (
        one["_seconds_per_learner"] / (cores * efficiency)
        + two["_transport_per_learner"]
        + one["_update_per_learner"]
    )
    return round(1 / per)


def central_rate(name: str, workers: int, steps: int, seed: int) -> float:
    """Self-play decisions per second with inference batched in this process over `envs.vector`."""
    import numpy as np
    import torch

    import envs
    from training.actors import NetActor
    from training.config import default_config, load_config
    from training.games import game_info
    from training.nets import PolicyNet

    cfg = load_config(default_config(name), [f"seed={seed}"])
    info = game_info(cfg.game, cfg.game_config)
    net = PolicyNet(info.net_shape, cfg.net).eval()
    if net.uses_state:  # a critic of the full state: the batched env would have to ship the state too
        return float("nan")
    actor, rng = NetActor(net), np.random.default_rng(seed)
    hidden = np.zeros((cfg.ppo.num_envs, net.hidden_size), np.float32)
    with envs.vector(cfg.game, cfg.ppo.num_envs, workers=workers, seed=seed, **cfg.game_config) as games:
        step = games.reset()
        for t in range(steps + 5):  # five steps of warm-up
            if t == 5:
                began = time.perf_counter()
            # the critic too, as a rollout needs each decision's value
            actions, _, _, new_h = actor.act(
                step.obs, step.mask, hidden if net.recurrent else None, None, rng, True
            )
            if net.recurrent:
                hidden = new_h
            with torch.no_grad():
                step = games.step(actions)
        return steps * cfg.ppo.num_envs / (time.perf_counter() - began)


def worker_rate(name: str, workers: int, iterations: int, seed: int) -> float:
    """Self-play decisions per second of the trainer's rollouts, inference on each worker."""
    from training.config import default_config, load_config
    from training.trainer import Trainer

    with tempfile.TemporaryDirectory() as folder:
        overrides = [
            f"workers={workers}",
            "pretrain.games=0",
            "eval.every=0",
            "checkpoint_every=0",
            "progress=false",
            "opponents.self_play=1",
            "opponents.snapshot=0",
            "opponents.scripted=0",
            "opponents.random=0",
            f"seed={seed}",
            f"run_dir={folder}/run",
        ]
        trainer = Trainer(load_config(default_config(name), overrides), log=False)
        p, runner = trainer.config.ppo, trainer.backend.runner
        try:
            runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)  # warm-up
            before, began = runner.all_decisions, time.perf_counter()
            for _ in range(iterations):
                runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
            return (runner.all_decisions - before) / (time.perf_counter() - began)
        finally:
            trainer.backend.close()


def compare_inference(names: list[str], worker_counts: list[int], repeats: int) -> dict:
    out = {}
    for name in names:
        rates = {f"{where} workers={w}": [] for w in worker_counts for where in ("on_workers", "central")}
        for repeat in range(repeats):
            for w in worker_counts:
                rates[f"on_workers workers={w}"].append(worker_rate(name, w, 2, repeat))
                rates[f"central workers={w}"].append(central_rate(name, w, 128, repeat))
        out[name] = {
            k: None if math.isnan(statistics.median(v)) else round(statistics.median(v))
            for k, v in rates.items()
        }
        print(json.dumps({name: out[name]}), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS))
    parser.add_argument(
        "--setups",
        nargs="+",
        default=["1x1", "2x1", "2x2"],
        help="WORKERSxTHREADS: rollout workers, and torch threads of the update (the workers wait while it runs)",
    )
    parser.add_argument("--iterations", type=int, default=3, help="timed iterations per run")
    parser.add_argument("--repeats", type=int, default=3, help="fresh runs per figure (median)")
    add_overrides_argument(parser, "device=cpu (device=auto takes a GPU where there is one)")
    parser.add_argument(
        "--inference",
        action="store_true",
        help="compare inference on the workers with inference batched centrally",
    )
    args = parser.parse_args()
    setups = [tuple(int(x) for x in s.split("x")) for s in args.setups]
    if args.inference:
        counts = sorted({w for w, _ in setups})
        print(json.dumps(compare_inference(args.configs, counts, args.repeats), indent=1))
        return
    results = {}
    for name in args.configs:
        runs = {setup: [] for setup in setups}
        for repeat in range(args.repeats):  # interleaved: every setup once per round
            for workers, threads in setups:
                runs[(workers, threads)].append(
                    one_run(name, workers, args.iterations, repeat, threads, args.set)
                )
        table = {setup: summarize(r) for setup, r in runs.items()}
        row = {
            f"workers={w} threads={t}": {k: v for k, v in s.items() if not k.startswith("_")}
            for (w, t), s in table.items()
        }
        one, two = table.get((1, 1)), table.get((2, 1))
        if one and two:
            row["rollout_speedup_2_vs_1"] = round(
                two["rollout_learner_per_s"] / one["rollout_learner_per_s"], 2
            )
            row["iteration_speedup_2_vs_1"] = round(
                two["iteration_learner_per_s"] / one["iteration_learner_per_s"], 2
            )
            row["predicted_iteration_learner_per_s"] = {n: predict(one, two, n) for n in (8, 16, 64)}
            # the prediction checked where more cores were measured (N workers, the update on one thread)
            row["measured_vs_predicted"] = {
                w: [s["iteration_learner_per_s"], predict(one, two, w)]
                for (w, t), s in table.items()
                if w > 2 and t == 1
            }
        if one and (2, 2) in table:
            row["iteration_speedup_2x2_vs_1"] = round(
                table[(2, 2)]["iteration_learner_per_s"] / one["iteration_learner_per_s"], 2
            )
        results[name] = row
        print(json.dumps({name: row}), flush=True)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
