"""Training speed of the RLlib backend beside the native trainer, same game, same settings, one run.

    python benchmarks/rllib_speed.py [--game expressions] [--players 2] [--envs 16] [--rollout 64]
                                     [--steps 8192] [--runners 1 2] [--num-cpus 2]

Needs ray[rllib] (`pip install ".[distributed]"`, in its own virtual environment: it pins gymnasium).
Every line trains the same configuration - the same games in parallel (`ppo.num_envs`), rollout length,
epochs, minibatches and network (actor 64-64 tanh, separate critic 64-64) - with self-play, so every
decision is the learner's; speed is learner decisions per second of wall time, rollouts and updates
included, measured after one warm-up iteration (Ray start-up and actor creation are not counted, and are
printed apart). The native trainer steps the games in this process; RLlib samples in 1 or 2 EnvRunner
actors (one CPU each) while its learner runs in this process. On a 2-core machine more EnvRunners mostly
show the cost of sharing the cores; the gain appears on a cluster with cores to spare. Prints, does not
assert.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a local Ray on 127.0.0.1 only


def make_config(game: str, players: int, envs: int, rollout: int, steps: int, seed: int = 0):
    from training.config import load_config

    return load_config(
        None,
        [
            f"game={game}",
            f"game_config.num_players={players}",
            f"total_steps={steps}",
            f"ppo.num_envs={envs}",
            f"ppo.rollout_steps={rollout}",
            "ppo.epochs=4",
            "ppo.minibatches=4",
            "ppo.anneal_lr=false",
            "net.hidden=[64, 64]",
            "net.critic_hidden=[64, 64]",
            "net.critic=separate",
            "opponents.self_play=1",
            "eval.every=0",
            "checkpoint_every=0",
            "progress=false",
            f"seed={seed}",
            "run_dir=/tmp/rllib_speed_native",
        ],
    )


def native(config) -> dict:
    from training.ppo import ppo_update
    from training.trainer import Trainer

    trainer = Trainer(config, overwrite=True, log=False)
    p = config.ppo

    def iteration():
        trainer.backend.net.eval()
        batch = trainer.backend.runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
        trainer.backend.net.train()
        ppo_update(trainer.backend.net, trainer.backend.optimizer, batch, p, trainer.backend.rng)

    iteration()  # warm-up, as for RLlib
    start_decisions = trainer.backend.runner.decisions
    start, cpu = time.perf_counter(), time.process_time()
    while trainer.backend.runner.decisions - start_decisions < config.total_steps:
        iteration()
    done = trainer.backend.runner.decisions - start_decisions
    return _rates(done, start, cpu)


def rllib(config, runners: int) -> dict:
    from training.games import game_info
    from training.rllib.options import RLlibConfig
    from training.rllib.selfplay import SnapshotLeague
    from training.rllib.trainer import build_algorithm, main_decisions

    info = game_info(config.game, config.game_config)
    t0 = time.perf_counter()
    algo = build_algorithm(config, info, SnapshotLeague(config, info), RLlibConfig(num_env_runners=runners))
    build_s = time.perf_counter() - t0
    try:
        first = main_decisions(algo.train())  # warm-up
        decisions = first
        start, cpu = time.perf_counter(), time.process_time()
        while decisions - first < config.total_steps:
            decisions = main_decisions(algo.train())
        out = _rates(decisions - first, start, cpu)
    finally:
        algo.stop()
    out["build_s"] = round(build_s, 1)
    return out


def _rates(steps: int, start: float, cpu: float) -> dict:
    """Learner decisions per second of wall time, and per second of this process's CPU time."""
    return {
        "decisions": int(steps),
        "wall": round(steps / (time.perf_counter() - start), 1),
        "driver_cpu": round(steps / max(time.process_time() - cpu, 1e-9), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="expressions")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", type=int, default=16, help="games stepped at once (ppo.num_envs)")
    parser.add_argument("--rollout", type=int, default=64, help="decisions per game per iteration")
    parser.add_argument("--steps", type=int, default=8192, help="learner decisions per measurement")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="EnvRunner counts to measure")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args()

    import ray
    import torch

    torch.set_num_threads(1)
    config = make_config(args.game, args.players, args.envs, args.rollout, args.steps)
    results = {
        "game": args.game,
        "game_config": dict(config.game_config),
        "parallel_games": args.envs,
        "decisions_per_iteration": args.envs * args.rollout,
        "epochs": 4,
        "minibatches": 4,
        "network": "actor 64-64 tanh, separate critic 64-64 tanh",
        "torch_threads_driver": 1,
        "ray_version": ray.__version__,
        "steps_per_s": {},
    }
    rates = results["steps_per_s"]
    rates["native"] = native(config)
    print(json.dumps({"native": rates["native"]}), flush=True)
    ray.init(
        num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1"
    )
    try:
        for n in args.runners:
            rates[f"rllib_{n}_env_runner{'s' if n != 1 else ''}"] = r = rllib(config, n)
            print(json.dumps({f"rllib_{n}": r}), flush=True)
    finally:
        ray.shutdown()
    base = rates["native"]["wall"]
    results["rllib_vs_native_wall"] = {
        k: round(v["wall"] / base, 3) for k, v in rates.items() if k != "native"
    }
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
