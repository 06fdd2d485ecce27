"""Training speed: our masked PPO vs sb3-contrib MaskablePPO, same game, matched settings, one run.

    python -m benchmarks.train_speed [--games exposaurus exposed] [--players 2] [--envs 8] [--steps 16384]

Both learn one seat against uniformly random opponents on the same engine (MaskablePPO through the
Gymnasium face `tabletop/<Game>-v0`, ours stepping the engines directly) with matched settings: the
same number of parallel games, the same network (two tanh layers of 64 for the actor and a separate
two-layer critic, as SB3's default), the same rollout size in learner decisions, epochs (4) and
minibatch size, on one torch thread. Speed is learner decisions (env steps) per second of wall time,
rollouts and updates included. A third line shows our default settings (64 games at once, larger
batch), which is how the package is meant to run.

The "engine_alone" line plays the same games with no learning at all: the learner's observation and
mask are built and a random legal action taken, the opponents move at random. No trainer on this
engine can beat that rate, so `ceiling_vs_maskableppo` (engine alone / MaskablePPO) is the largest
speed-up any trainer could show here. `update_us_per_decision` is the time of the PPO update per
learner decision (timed for both trainers); `bound_matched_wall` is MaskablePPO's time per decision
over the engine's plus our update's: what our matched speed-up could reach if inference and
bookkeeping cost nothing. Prints, does not assert.
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
) -> dict:
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
    from training.ppo import ppo_update

    trainer = Trainer(load_config(None, overrides), overwrite=True, log=False)
    p = trainer.config.ppo
    start, cpu, updating = time.perf_counter(), time.process_time(), 0.0
    while trainer.backend.runner.decisions < steps:
        batch = trainer.backend.runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
        begin = time.perf_counter()
        ppo_update(trainer.backend.net, trainer.backend.optimizer, batch, p, trainer.backend.rng)
        updating += time.perf_counter() - begin
    rates = _rates(trainer.backend.runner.decisions, start, cpu)
    rates["update_us_per_decision"] = round(1e6 * updating / trainer.backend.runner.decisions, 1)
    return rates


def _rates(steps: int, start: float, cpu: float) -> dict:
    """Steps per second of wall time and of this process's CPU time (the machine may be shared)."""
    return {
        "wall": round(steps / (time.perf_counter() - start), 1),
        "cpu": round(steps / (time.process_time() - cpu), 1),
    }


def engine_alone(game: str, game_config: dict, steps: int, seed: int = 0) -> dict:
    """The engine's own cost per learner decision: observation + mask + action, opponents random."""
    from training.games import game_info

    info = game_info(game, game_config)
    rng = np.random.default_rng(seed)
    decisions, start, cpu = 0, time.perf_counter(), time.process_time()
    while decisions < steps:
        g = info.new_game(int(rng.integers(2**63)))
        learner = int(rng.integers(info.num_players))
        while not g.is_terminal():
            p = g.current_player()
            mask = g.legal_action_mask()
            if p == learner:
                g.observation(p)
                decisions += 1
            legal = np.flatnonzero(mask)
            g.apply_action(int(legal[rng.integers(len(legal))]))
    return _rates(decisions, start, cpu)


def maskable(
    game: str, game_config: dict, envs: int, rollout_decisions: int, steps: int, minibatch: int, seed: int = 0
) -> dict:
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
    updating = [0.0]
    sb3_update = model.train

    def timed_update() -> None:
        begin = time.perf_counter()
        sb3_update()
        updating[0] += time.perf_counter() - begin

    model.train = timed_update
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=steps)
    rates = _rates(model.num_timesteps, start, cpu)
    rates["update_us_per_decision"] = round(1e6 * updating[0] / model.num_timesteps, 1)
    return rates


def measure(game: str, args) -> dict:
    game_config = {"num_players": args.players}
    results = {"game": game, "game_config": game_config}
    rates = {}
    rates["engine_alone"] = engine_alone(game, game_config, args.steps)
    rates["ours_matched"] = ours(
        game, game_config, args.envs, args.rollout, args.steps, args.minibatch, args.players
    )
    rates["ours_64_games"] = ours(game, game_config, 64, 4096, args.steps * 2, 1024, args.players)
    if not args.skip_sb3:
        rates["maskableppo"] = maskable(
            game, game_config, args.envs, args.rollout, args.steps, args.minibatch
        )
        for clock in ("wall", "cpu"):
            base = rates["maskableppo"][clock]
            results[f"speedup_matched_{clock}"] = round(rates["ours_matched"][clock] / base, 2)
            results[f"speedup_64_games_{clock}"] = round(rates["ours_64_games"][clock] / base, 2)
            results[f"ceiling_vs_maskableppo_{clock}"] = round(rates["engine_alone"][clock] / base, 2)
        # the engine's time plus our matched update's time per decision (with no inference and no
        # bookkeeping at all) bounds what our trainer could reach at these settings
        floor_us = 1e6 / rates["engine_alone"]["wall"] + rates["ours_matched"]["update_us_per_decision"]
        results["bound_matched_wall"] = round(1e6 / floor_us / rates["maskableppo"]["wall"], 2)
    results["steps_per_s"] = rates
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=["exposaurus", "exposed"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--rollout", type=int, default=1024, help="learner decisions per rollout")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=16384, help="learner decisions per measurement")
    parser.add_argument("--skip-sb3", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    settings = {
        "parallel_games": args.envs,
        "rollout_decisions": args.rollout,
        "minibatch": args.minibatch,
        "epochs": 4,
        "network": "actor 64-64 tanh, separate critic 64-64 tanh",
        "torch_threads": 1,
    }
    print(json.dumps(settings), flush=True)
    for game in args.games:
        print(json.dumps(measure(game, args), indent=1), flush=True)


if __name__ == "__main__":
    main()
