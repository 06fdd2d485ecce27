"""Training speed: our masked PPO vs sb3-contrib MaskablePPO, same game, matched settings, one run.

    python benchmarks/train_speed.py [--game exposaurus] [--players 2] [--envs 8] [--steps 16384]

Both learn one seat against uniformly random opponents on the same engine (MaskablePPO through the
Gymnasium face `tabletop/<Game>-v0`, ours stepping the engines directly) with matched settings: the
same number of parallel games, the same network (two tanh layers of 64 for the actor and a separate
two-layer critic, as SB3's default), the same rollout size in learner decisions, epochs (4) and
minibatch size, on one torch thread. Speed is learner decisions (env steps) per second of wall time,
rollouts and updates included. A third line shows our default settings (64 games at once, larger
batch), which is how the package is meant to run. Prints, does not assert.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch


def ours(
    game: str,
    game_config: dict,
    envs: int,
    rollout_decisions: int,
    steps: int,
    minibatch: int,
    players: int,
    seed: int = 0,
) -> float:
    from training.config import load_config
    from training.trainer import Trainer

    # our rollout_steps counts every decision of a game slot; the learner makes about 1/players of them
    per_slot = max(1, round(rollout_decisions * players / envs))
    batch = envs * per_slot / players
    overrides = [
        f"game={game}",
        f"total_steps={steps}",
        f"ppo.num_envs={envs}",
        f"ppo.rollout_steps={per_slot}",
        "ppo.epochs=4",
        f"ppo.minibatches={max(1, round(batch / minibatch))}",
        "net.hidden=[64, 64]",
        "net.critic_hidden=[64, 64]",
        "net.critic=separate",
        "opponents.self_play=0",
        "opponents.random=1",
        "eval.every=0",
        "eval.games=1",
        "eval.opponents=[random]",
        "checkpoint_every=0",
        "progress=false",
        f"seed={seed}",
        "run_dir=/tmp/train_speed_ours",
    ] + [f"game_config.{k}={v}" for k, v in game_config.items()]
    trainer = Trainer(load_config(None, overrides), overwrite=True, log=False)
    p = trainer.config.ppo
    start, cpu = time.perf_counter(), time.process_time()
    while trainer.runner.decisions < steps:
        batch = trainer.runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
        from training.ppo import ppo_update

        ppo_update(trainer.net, trainer.optimizer, batch, p, trainer.rng)
    return _rates(trainer.runner.decisions, start, cpu)


def _rates(steps: int, start: float, cpu: float) -> dict:
    """Steps per second of wall time and of this process's CPU time (the machine may be shared)."""
    return {
        "wall": round(steps / (time.perf_counter() - start), 1),
        "cpu": round(steps / (time.process_time() - cpu), 1),
    }


def maskable(
    game: str, game_config: dict, envs: int, rollout_decisions: int, steps: int, minibatch: int, seed: int = 0
) -> float:
    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import envs as registry  # registers the Gymnasium ids

    title = registry.GAMES[game]
    vec = DummyVecEnv(
        [lambda: gymnasium.make(f"tabletop/{title}-v0", **game_config).unwrapped for _ in range(envs)]
    )
    n_steps = max(1, rollout_decisions // envs)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=n_steps,
        batch_size=minibatch,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": {"pi": [64, 64], "vf": [64, 64]}},
        seed=seed,
        verbose=0,
        device="cpu",
    )
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=steps)
    return _rates(model.num_timesteps, start, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="exposaurus")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--rollout", type=int, default=1024, help="learner decisions per rollout")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=16384, help="learner decisions per measurement")
    parser.add_argument("--skip-sb3", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    game_config = {"num_players": args.players}
    results = {
        "game": args.game,
        "game_config": game_config,
        "parallel_games": args.envs,
        "rollout_decisions": args.rollout,
        "minibatch": args.minibatch,
        "epochs": 4,
        "network": "actor 64-64 tanh, separate critic 64-64 tanh",
        "torch_threads": 1,
    }
    rates = {}
    rates["ours_matched"] = ours(
        args.game, game_config, args.envs, args.rollout, args.steps, args.minibatch, args.players
    )
    print(json.dumps({"ours_matched": rates["ours_matched"]}), flush=True)
    rates["ours_64_games"] = ours(args.game, game_config, 64, 4096, args.steps * 2, 1024, args.players)
    print(json.dumps({"ours_64_games": rates["ours_64_games"]}), flush=True)
    if not args.skip_sb3:
        rates["maskableppo"] = maskable(
            args.game, game_config, args.envs, args.rollout, args.steps, args.minibatch
        )
        for clock in ("wall", "cpu"):
            base = rates["maskableppo"][clock]
            results[f"speedup_matched_{clock}"] = round(rates["ours_matched"][clock] / base, 2)
            results[f"speedup_64_games_{clock}"] = round(rates["ours_64_games"][clock] / base, 2)
    results["steps_per_s"] = rates
    print(json.dumps(results, indent=1))
    np.random.default_rng(0)


if __name__ == "__main__":
    main()
