"""`train(config, run_dir)`: the native training config run as RLlib PPO (new API stack) on Ray.

The run directory gets what the native trainer writes - `config.yaml`, `tb/` (TensorBoard), `eval.json`,
`curve.png`, `checkpoints/latest.pt`, `iter_NNNNN.pt`, `final.pt` (native checkpoints that
`python -m training evaluate | rate | play` load), `summary.json` - plus `rllib_checkpoint/` (RLlib's own
Algorithm checkpoint, for users who continue in RLlib).

How the native keys map to RLlib (see `ppo_settings`): ppo.num_envs games are stepped at once, split over
the EnvRunners; one iteration samples num_envs * rollout_steps decisions (train_batch_size_per_learner);
epochs, minibatches, lr (linearly annealed when anneal_lr), gamma, gae_lambda, clip, vf_coef, ent_coef,
max_grad_norm and clip_value carry over; target_kl > 0 becomes RLlib's adaptive KL penalty with that
target (the native trainer stops the epochs early instead); RLlib always standardizes advantages per
batch. total_steps counts main's decisions, as the native trainer counts the learner's.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import time
import warnings
from pathlib import Path

import numpy as np
import torch
import yaml

from envs.core.errors import ConfigError

from .. import checkpoint as ckpt
from ..config import TrainConfig
from ..evaluate import evaluation_entry
from ..games import evaluation_info, game_info
from ..runlog import log_eval, open_writer, progress_bar, write_history
from .compat import backend_state
from .module import RandomMaskedModule, ScriptedModule, check_net_config
from .options import RLlibConfig
from .selfplay import (
    MAIN,
    RANDOM,
    SCRIPTED,
    SelfPlayCallback,
    SnapshotLeague,
    main_module_spec,
    set_module_weights,
)


def rllib_options(config: TrainConfig, rllib: RLlibConfig | dict | None = None) -> RLlibConfig:
    """Explicit options, else the config's `rllib` section (once the native config has one), else defaults."""
    if rllib is None:
        rllib = getattr(config, "rllib", None)
    if rllib is None:
        rllib = RLlibConfig()
    elif isinstance(rllib, dict):
        rllib = RLlibConfig(**rllib)
    elif not isinstance(rllib, RLlibConfig):  # a look-alike dataclass nested in the native config
        rllib = RLlibConfig(
            **{k: getattr(rllib, k) for k in RLlibConfig.__dataclass_fields__ if hasattr(rllib, k)}
        )
    rllib.validate()
    return rllib


def connect(rllib: RLlibConfig) -> bool:
    """Join the cluster named by rllib.address / $RAY_ADDRESS, or start a local Ray; True if we started it."""
    import ray

    if ray.is_initialized():
        return False
    address = rllib.address or os.environ.get("RAY_ADDRESS", "")
    if address:
        ray.init(address=address, log_to_driver=False)
        return True
    # a local instance serves this machine only: every Ray service on 127.0.0.1 (Ray otherwise resolves
    # the node to the machine's outward address unless this switch is off)
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    kwargs = {
        "address": "local",  # a new instance of our own, never a cluster found on the machine
        "include_dashboard": False,
        "log_to_driver": False,
        "_node_ip_address": "127.0.0.1",
    }
    if rllib.num_cpus:
        kwargs["num_cpus"] = rllib.num_cpus
    if rllib.object_store_mb:
        kwargs["object_store_memory"] = rllib.object_store_mb * 1024 * 1024
    ray.init(**kwargs)
    return True


def learner_fraction(config: TrainConfig, info) -> float:
    """Expected share of all decisions that are main's (to anneal lr over RLlib's env-step clock)."""
    if info.cooperative:
        return 1.0
    w = config.opponents.weights()
    total = sum(w.values())
    self_share = w["self"] / total if total else 1.0
    return self_share + (1 - self_share) / info.num_teams


def ppo_settings(config: TrainConfig, info, rllib: RLlibConfig) -> dict:
    """The keyword arguments of PPOConfig.env_runners / .learners / .training for this config."""
    p = config.ppo
    runners = max(rllib.num_env_runners, 1)
    learners = max(rllib.num_learners, 1)
    batch = p.num_envs * p.rollout_steps
    per_learner = max(batch // learners, 1)
    lr = p.lr
    if p.anneal_lr:
        horizon = max(int(config.total_steps / learner_fraction(config, info)), 1)
        lr = [[0, p.lr], [horizon, 0.0]]
    return {
        "env_runners": {
            "num_env_runners": rllib.num_env_runners,
            "num_envs_per_env_runner": math.ceil(p.num_envs / runners),
            "rollout_fragment_length": p.rollout_steps,
            "num_cpus_per_env_runner": rllib.num_cpus_per_env_runner,
            "sample_timeout_s": rllib.sample_timeout_s,
        },
        "learners": {"num_learners": rllib.num_learners},
        "training": {
            "train_batch_size_per_learner": per_learner,
            "minibatch_size": max(per_learner // p.minibatches, 1),
            "num_epochs": p.epochs,
            "lr": lr,
            "gamma": p.gamma,
            "lambda_": p.gae_lambda,
            "clip_param": p.clip,
            "vf_clip_param": p.clip if p.clip_value else float("inf"),
            "vf_loss_coeff": p.vf_coef,
            "entropy_coeff": p.ent_coef,
            "grad_clip": p.max_grad_norm,
            "grad_clip_by": "global_norm",
            "use_kl_loss": p.target_kl > 0,
            "kl_target": p.target_kl if p.target_kl > 0 else 0.01,
            "kl_coeff": 0.2 if p.target_kl > 0 else 0.0,
        },
    }


def tabletop_ppo_config_class():
    """PPOConfig whose EnvRunners build every module inference-only (RLlib does so for its default
    modules, but copies the specs of a user's multi-agent setup unchanged): main's copies on the
    EnvRunners then have no critic, as RLlib's new stack intends; the learners keep full modules."""
    from ray.rllib.algorithms.ppo import PPOConfig

    class TabletopPPOConfig(PPOConfig):
        def get_multi_rl_module_spec(self, *args, inference_only: bool = False, **kwargs):
            spec = super().get_multi_rl_module_spec(*args, inference_only=inference_only, **kwargs)
            if inference_only:
                for module_spec in spec.rl_module_specs.values():
                    module_spec.inference_only = True
                spec.inference_only = True
            return spec

    return TabletopPPOConfig


def build_algorithm(config: TrainConfig, info, league: SnapshotLeague, rllib: RLlibConfig):
    """A PPO Algorithm (new API stack) for this config: main + the fixed opponent modules."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .env import ENV_NAME, register

    register()
    specs = {MAIN: main_module_spec(config.net.__dict__)}
    game_model = {"game": config.game, "game_config": dict(info.game_config)}
    for module in league.fixed_modules():
        if module == RANDOM:
            specs[RANDOM] = RLModuleSpec(module_class=RandomMaskedModule)
        elif module == SCRIPTED:
            specs[SCRIPTED] = RLModuleSpec(module_class=ScriptedModule, model_config=game_model)
    settings = ppo_settings(config, info, rllib)
    algo_config = (
        tabletop_ppo_config_class()()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .framework("torch")
        .environment(
            ENV_NAME,
            env_config={
                "game": config.game,
                "game_config": dict(info.game_config),
                "reward_scale": config.ppo.reward_scale,
            },
            disable_env_checking=True,
        )
        .env_runners(**settings["env_runners"])
        .learners(**settings["learners"])
        .training(**settings["training"])
        .multi_agent(policies=set(specs), policy_mapping_fn=league.mapping(), policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(SelfPlayCallback)  # each episode's teams from its own game
        .debugging(seed=config.seed, log_level="ERROR")
    )
    return algo_config.build_algo()


def env_runner_nodes(algo) -> list[str]:
    """The Ray node id each EnvRunner runs on (the driver's node when sampling is local)."""
    import ray

    nodes = algo.env_runner_group.foreach_env_runner(
        lambda env_runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )
    return list(nodes) or [ray.get_runtime_context().get_node_id()]


def main_decisions(result: dict) -> int:
    """main's decisions sampled so far (RLlib's lifetime module-step count)."""
    env = result.get("env_runners", {})
    for key in ("num_module_steps_sampled_lifetime", "num_agent_steps_sampled_lifetime"):
        value = env.get(key)
        if isinstance(value, dict) and MAIN in value:
            return int(value[MAIN])
    raise KeyError("RLlib's result has no num_module_steps_sampled_lifetime/main")


class RLlibRun:
    """One RLlib training run writing the native run directory; `train()` runs it."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir=None,
        rllib: RLlibConfig | dict | None = None,
        overwrite: bool = False,
        log: bool = True,
    ):
        config.validate()
        check_net_config(config.net)
        self.config = config
        self.rllib = rllib_options(config, rllib)
        self.info = game_info(config.game, config.game_config)
        evaluation_info(self.info, config.eval.game_config)  # fail now on a bad eval.game_config
        self.run_dir = Path(run_dir) if run_dir is not None else config.resolved_run_dir()
        self.log = log
        checkpoints = self.run_dir / "checkpoints"
        if checkpoints.exists() and any(checkpoints.iterdir()):
            if not overwrite:
                raise FileExistsError(
                    f"run directory {str(self.run_dir)!r} already holds checkpoints; pick another "
                    "run_dir=... (or --overwrite)"
                )
            shutil.rmtree(self.run_dir)
        if not self.config.ppo.normalize_advantages:
            warnings.warn(
                "backend=rllib always standardizes advantages (ppo.normalize_advantages=false is ignored)",
                stacklevel=2,
            )
        self.league = SnapshotLeague(config, self.info)
        self.algo = None
        self.iteration = 0
        self.decisions = 0
        self.history: list[dict] = []
        self.net = None  # driver-side PolicyNet with main's latest learner weights
        self.pretrain_stats: dict = {}

    # ----- policy on the driver ---------------------------------------------------------------
    def sync_net(self):
        weights = self.algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        self.net = self.league.policy_net(weights)
        self.net.eval()
        return self.net

    def evaluate(self, games: int | None = None) -> dict:
        """The native trainer's evaluation entry (same keys, same seeds) for main's current weights."""
        cfg = dataclasses.replace(self.config.eval, games=games or self.config.eval.games)
        seed = self.config.seed * 7919 + self.iteration
        has_scripted = self.info.spec.scripted_policy is not None
        entry = evaluation_entry(
            self.info, self.sync_net(), cfg, seed, has_scripted, self.iteration, self.decisions
        )
        self.history.append(entry)
        return entry

    def save(self, name: str = "latest.pt") -> Path:
        if self.net is None:
            self.sync_net()
        path = self.run_dir / "checkpoints" / name
        return ckpt.save_checkpoint(
            path,
            self.net,
            self.config,
            self.info,
            self.iteration,
            self.decisions,
            backend_state(self.run_dir / "rllib_checkpoint"),
        )

    def _write_eval(self) -> None:
        write_history(self.run_dir, self.history, self.config.game)

    # ----- the loop ---------------------------------------------------------------------------
    def train(self) -> dict:
        import ray

        cfg = self.config
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        started = connect(self.rllib)
        try:
            self.algo = build_algorithm(cfg, self.info, self.league, self.rllib)
            self.pretrain()
            summary = self._loop()
        finally:
            if self.algo is not None:
                self.algo.stop()
            if started:
                ray.shutdown()
        return summary

    def pretrain(self) -> dict:
        """pretrain.games > 0: behaviour cloning of the scripted baseline (the native `training.pretrain`)
        on main's weights before PPO, then the result into the learner group and every EnvRunner."""
        cfg = self.config
        if not cfg.pretrain.games or self.pretrain_stats:
            return self.pretrain_stats
        from ..pretrain import collect_scripted, pretrain

        if self.info.spec.scripted_policy is None:
            raise ConfigError(f"pretrain.games needs a scripted baseline; {self.info.spec.name} has none")
        net = self.sync_net()
        data = collect_scripted(
            self.info, cfg.pretrain.games, cfg.seed + 12345, False, cfg.pretrain.random_opponents
        )
        net.train()
        stats = pretrain(net, data, cfg.pretrain, cfg.ppo.reward_scale, np.random.default_rng([cfg.seed, 1]))
        stats["pretrain/decisions"] = len(data["action"])
        set_module_weights(self.algo, MAIN, {k: v.detach().numpy() for k, v in net.state_dict().items()})
        self.pretrain_stats = stats
        return stats

    def _loop(self) -> dict:
        cfg = self.config
        saved = cfg.to_dict()
        saved.setdefault("backend", "rllib")
        (self.run_dir / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
        writer = open_writer(self.run_dir, self.log)
        if not self.history and (cfg.eval.every or self.pretrain_stats):  # curves start at step 0
            entry = self.evaluate()  # from the learner group's weights, as every evaluation
            if self.pretrain_stats:
                entry["after_pretraining"] = True
            log_eval(writer, entry)
            self._write_eval()
        bar = progress_bar(self.config.progress, self.config.total_steps, 0, f"{self.info.spec.name} (rllib)")
        wall_start = time.perf_counter()
        last_time, last_decisions = wall_start, 0
        last_all, all_decisions = 0, 0
        while self.decisions < cfg.total_steps:
            result = self.algo.train()
            self.iteration += 1
            self.decisions = main_decisions(result)
            all_decisions = int(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0))
            live = self.league.record(result.get("env_runners", {}))
            if self.league.wants_snapshots() and self.iteration % cfg.opponents.snapshot_every == 0:
                self.league.add_snapshot(self.algo)
            elif self.league.slots:
                self.league.push_mapping(self.algo)  # PFSP probabilities moved
            now = time.perf_counter()
            sps = (self.decisions - last_decisions) / max(now - last_time, 1e-9)
            all_sps = (all_decisions - last_all) / max(now - last_time, 1e-9)
            last_time, last_decisions, last_all = now, self.decisions, all_decisions
            if writer is not None:
                self._log_iteration(writer, result, live, sps, all_sps)
            if bar is not None:
                bar.update(self.decisions - bar.n)
                rates = {f"win_{k}": f"{s / g:.2f}" for k, (g, s, _) in live.items() if g}
                bar.set_postfix(rates | {"sps": f"{sps:.0f}"})
            done = self.decisions >= cfg.total_steps
            if cfg.eval.every and self.iteration % cfg.eval.every == 0 and not done:
                entry = self.evaluate()
                log_eval(writer, entry)
                self._write_eval()
            if cfg.checkpoint_every and self.iteration % cfg.checkpoint_every == 0 and not done:
                self.sync_net()
                self.save("latest.pt")
                self.save(f"iter_{self.iteration:05d}.pt")
        wall = time.perf_counter() - wall_start
        entry = self.evaluate()
        log_eval(writer, entry)
        self._write_eval()
        self.save("latest.pt")
        self.save("final.pt")
        rllib_path = None
        try:
            rllib_path = str(self.algo.save_to_path(str((self.run_dir / "rllib_checkpoint").resolve())))
        except Exception as exc:  # the native checkpoints are written; RLlib's own one is a bonus
            warnings.warn(f"could not write RLlib's algorithm checkpoint: {exc}", stacklevel=2)
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        summary = {
            "run_dir": str(self.run_dir),
            "backend": "rllib",
            "iterations": self.iteration,
            "decisions": self.decisions,
            "all_decisions": all_decisions,
            "wall_seconds": round(wall, 1),
            "num_env_runners": self.rllib.num_env_runners,
            "env_runner_nodes": env_runner_nodes(self.algo),
            "snapshot_modules": self.league.state()["slots"],
            "pretrain": self.pretrain_stats,
            "rllib_checkpoint": rllib_path,
            "final_eval": entry,
        }
        (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
        return summary

    # ----- logging ----------------------------------------------------------------------------
    def _log_iteration(self, writer, result, live, sps, all_sps) -> None:
        step = self.decisions
        learner = result.get("learners", {}).get(MAIN, {})
        names = {
            "policy_loss": "loss/policy",
            "vf_loss": "loss/value",
            "entropy": "loss/entropy",
            "mean_kl_loss": "loss/approx_kl",
            "vf_explained_var": "loss/explained_variance",
        }
        for key, name in names.items():
            if key in learner:
                try:
                    writer.add_scalar(name, float(learner[key]), step)
                except (TypeError, ValueError):
                    pass
        for kind, (games, score, ret) in live.items():
            writer.add_scalar(f"live_win_rate/{kind}", score / games, step)
            writer.add_scalar(f"episode/learner_return_vs_{kind}", ret / games, step)
        writer.add_scalar("speed/decisions_per_s", sps, step)
        writer.add_scalar("speed/all_decisions_per_s", all_sps, step)
        writer.add_scalar("pool/snapshots", len(self.league.pool.snapshots), step)


def train(
    config: TrainConfig,
    run_dir=None,
    rllib: RLlibConfig | dict | None = None,
    overwrite: bool = False,
    log: bool = True,
) -> dict:
    """Train `config` with RLlib PPO and write the native run directory; returns the summary dict."""
    return RLlibRun(config, run_dir, rllib=rllib, overwrite=overwrite, log=log).train()


def export_checkpoint(
    algo_or_weights, config: TrainConfig, path, iteration: int = 0, decisions: int = 0
) -> Path:
    """Write main's policy as a native checkpoint (`python -m training evaluate PATH` loads it).

    `algo_or_weights`: an RLlib Algorithm (main's full weights are read from its learner group) or a
    state dict of a MaskedPolicyModule.
    """
    info = game_info(config.game, config.game_config)
    league = SnapshotLeague(config, info)
    if hasattr(algo_or_weights, "learner_group"):
        weights = algo_or_weights.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    else:
        weights = algo_or_weights
    missing = [k for k in ("value_head.weight",) if k not in weights]
    if missing:
        raise ckpt.CheckpointError(
            "these weights lack the critic (an EnvRunner's inference-only copy?); export from the learner group"
        )
    net = league.policy_net({k: np.asarray(v) for k, v in weights.items()})
    return ckpt.save_checkpoint(Path(path), net, config, info, iteration, decisions, backend_state(None))
