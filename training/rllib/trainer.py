"""`train(config, run_dir)`: the native training config run as RLlib PPO (new API stack) on Ray.

`RLlibPPO` is a backend of the run lifecycle every backend shares (`training.run.Run`; `RLlibRun` is that
run): it supplies its iteration (one `Algorithm.train()`) and its policy (main's weights from the learner
group); the run directory, evaluations, checkpoints, logs and summary are the run's. So the directory
holds what a native run writes - `config.yaml`, `tb/` (TensorBoard), `eval.json`, `curve.png`,
`checkpoints/latest.pt`, `iter_NNNNN.pt`, `final.pt` (native checkpoints that `python -m training
evaluate | rate | play` load), `summary.json` - plus `rllib_checkpoint/` (RLlib's own Algorithm
checkpoint, for users who continue in RLlib).

How the native keys map to RLlib (see `ppo_settings`): ppo.num_envs games are stepped at once, split over
the EnvRunners; one iteration samples the env steps (every seat's moves: train_batch_size_per_learner)
that give main num_envs * rollout_steps decisions, as a native iteration gives the learner;
epochs, minibatches, lr (linearly annealed when anneal_lr), gamma, gae_lambda, clip, vf_coef (halved:
RLlib's value loss is the squared error, the native one half of it), ent_coef, max_grad_norm and
clip_value carry over; target_kl > 0 becomes RLlib's adaptive KL penalty with that target (the native
trainer stops the epochs early instead); advantages are standardized per minibatch as the native update
does (`learner`; RLlib's own standardization over the whole batch cannot be turned off, so
ppo.normalize_advantages=false is not available). total_steps counts main's decisions, as the native
trainer counts the learner's. The `net` section builds the native network itself as main's RLModule
(`module`); what training reads beside a decision (the state, the auxiliary target, the teacher's labels)
comes through a learner connector piece (`columns`) and the extra loss terms through a PPO learner
subclass (`learner`); `device` puts the learners on a CUDA GPU. Expert iteration (the `expert` section)
runs as the native trainer runs it: after each update, a round of the guided search's games when one is
due (on the `workers` game processes when there are, as the native trainer's rollout workers play it),
then a distillation step on the driver on main's weights, which go back to the learner group and every
EnvRunner.
"""

from __future__ import annotations

import functools
import math
import os
import time
import warnings
from pathlib import Path

import numpy as np
import torch

from .. import checkpoint as ckpt
from ..config import TrainConfig, options
from ..device import resolve_device
from ..expert import Teacher
from ..games import game_info
from ..policy import Policy
from ..pretrain import pretrain
from ..run import Backend, Run, Seeds, run_game
from .columns import TrainingColumns
from .compat import backend_state
from .learner import MINIBATCH_ADVANTAGES, TabletopPPOLearner
from .module import RandomMaskedModule, ScriptedModule, module_weights, policy_weights
from .options import RLlibConfig, check_supported
from .selfplay import (
    MAIN,
    RANDOM,
    SCRIPTED,
    SelfPlayCallback,
    SnapshotLeague,
    set_module_weights,
)


def rllib_options(config: TrainConfig, rllib: RLlibConfig | dict | None = None) -> RLlibConfig:
    """The backend's options: the config's `rllib` section with `rllib` (a mapping) on top, or `rllib`
    itself (an RLlibConfig); every key and value checked (ConfigError naming the key)."""
    if isinstance(rllib, RLlibConfig):
        rllib.validate()
        return rllib
    return options(RLlibConfig, {**config.rllib, **(rllib or {})}, "rllib")


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
    share = learner_fraction(config, info)
    # RLlib counts every seat's moves as env steps, the native trainer main's (the learner's) decisions:
    # an iteration samples as many env steps as give main the native iteration's num_envs * rollout_steps
    # decisions, so both take as many updates, of as many rows, per decision
    steps = math.ceil(p.rollout_steps / share)
    per_learner = max(p.num_envs * steps // learners, 1)
    lr = p.lr
    if p.anneal_lr:
        horizon = max(int(config.total_steps / share), 1)
        lr = [[0, p.lr], [horizon, 0.0]]
    return {
        "env_runners": {
            "num_env_runners": rllib.num_env_runners,
            "num_envs_per_env_runner": math.ceil(p.num_envs / runners),
            "rollout_fragment_length": steps,
            "num_cpus_per_env_runner": rllib.num_cpus_per_env_runner,
            "sample_timeout_s": rllib.sample_timeout_s,
        },
        "learners": {
            "num_learners": rllib.num_learners,
            **learner_device(config, rllib),
            "learner_class": TabletopPPOLearner,
            "learner_connector": training_columns(config, info),
            "learner_config_dict": {MINIBATCH_ADVANTAGES: p.normalize_advantages},
        },
        "training": {
            "train_batch_size_per_learner": per_learner,
            # RLlib cuts main's own rows into minibatches of this size: main's expected share of the
            # batch over ppo.minibatches, so an epoch takes as many steps as the native trainer's
            "minibatch_size": max(int(per_learner * share) // p.minibatches, 1),
            "num_epochs": p.epochs,
            "lr": lr,
            "gamma": p.gamma,
            "lambda_": p.gae_lambda,
            "clip_param": p.clip,
            "vf_clip_param": p.clip if p.clip_value else float("inf"),
            # the native value loss is half the squared error (training.ppo), RLlib's the whole of it
            "vf_loss_coeff": p.vf_coef / 2,
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


def needs_state(config: TrainConfig) -> bool:
    """Whether training reads the state beside each decision (a central critic, the auxiliary target)."""
    return config.net.critic == "central" or config.net.aux_state > 0


def training_columns(config: TrainConfig, info):
    """The learner connector of this config: a TrainingColumns piece where training reads more than
    the decisions (the state, the auxiliary target, the teacher's labels, observation statistics)."""
    net = config.net
    wanted = {
        "state": net.critic == "central",
        "aux_target": net.aux_state > 0,
        "teacher_share": config.teacher.share if config.teacher.coef > 0 else 0.0,
        "normalize": net.normalize_obs,
    }
    if not any(wanted.values()):
        return None
    game = {
        "game": config.game,
        "game_config": dict(info.game_config),
        "seed": Seeds(config.seed).minibatches,
    }
    return functools.partial(TrainingColumns, **game, **wanted)


def learner_device(config: TrainConfig, rllib: RLlibConfig) -> dict:
    """PPOConfig.learners' device settings for config.device: the learners on a CUDA GPU or the CPU."""
    device = resolve_device(config.device)
    if device.type != "cuda":
        if config.device == "auto" and device.type != "cpu":
            warnings.warn(
                f"backend=rllib: device=auto found {device.type}; RLlib's learners use the CPU", stacklevel=2
            )
        return {"num_gpus_per_learner": 0}
    settings = {"num_gpus_per_learner": 1}
    if rllib.num_learners == 0 and device.index is not None:
        settings["local_gpu_idx"] = device.index
    return settings


def build_algorithm(config: TrainConfig, info, league: SnapshotLeague, rllib: RLlibConfig):
    """A PPO Algorithm (new API stack) for this config: main + the fixed opponent modules."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .env import ENV_NAME, register

    register()
    specs = {MAIN: league.module_spec()}
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
                "with_state": needs_state(config),
            },
            disable_env_checking=True,
        )
        .env_runners(**settings["env_runners"])
        .learners(**settings["learners"])
        .training(**settings["training"])
        .multi_agent(policies=set(specs), policy_mapping_fn=league.mapping(), policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(SelfPlayCallback)  # each episode's teams from its own game
        .debugging(seed=Seeds(config.seed).network, log_level="ERROR")
    )
    return algo_config.build_algo()


def env_runner_nodes(algo) -> list[str]:
    """The Ray node id each EnvRunner runs on (the driver's node when sampling is local)."""
    import ray

    nodes = algo.env_runner_group.foreach_env_runner(
        lambda env_runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )
    return list(nodes) or [ray.get_runtime_context().get_node_id()]


# Algorithm.train() calls an iteration makes before it gives up on EnvRunners that return no sample
SAMPLE_TRIES = 3


def main_decisions(result: dict) -> int | None:
    """main's decisions sampled so far (RLlib's lifetime module-step count); None where the iteration
    sampled nothing (RLlib's PPO returns early, without metrics or an update, when no EnvRunner's
    sample came back within rllib.sample_timeout_s)."""
    env = result.get("env_runners", {})
    for key in ("num_module_steps_sampled_lifetime", "num_agent_steps_sampled_lifetime"):
        value = env.get(key)
        if isinstance(value, dict) and MAIN in value:
            return int(value[MAIN])
    return None


class RLlibPPO(Backend):
    """RLlib's PPO as a backend of the run lifecycle (`training.run.Run`): one iteration is one
    `Algorithm.train()`; the policy is main's weights read back from the learner group. Ray is
    started, or joined, only when the run opens it."""

    name = "rllib"

    def __init__(self, config: TrainConfig, rllib: RLlibConfig | dict | None = None):
        self.config = config
        self.info = run_game(config)
        self.rllib = rllib_options(config, rllib)
        check_supported(config, self.rllib)
        learner_device(config, self.rllib)  # a device this machine lacks fails now, before Ray starts
        if not config.ppo.normalize_advantages:
            warnings.warn(
                "backend=rllib always standardizes advantages (ppo.normalize_advantages=false is ignored)",
                stacklevel=2,
            )
        if config.workers > 1:  # a shipped config may ask the native trainer for rollout workers
            warnings.warn(
                f"backend=rllib: workers={config.workers} play the warm start's scripted games, the "
                "evaluations and expert iteration's rounds; RLlib's rollouts run on "
                f"rllib.num_env_runners (here {self.rllib.num_env_runners})",
                stacklevel=2,
            )
        self._games = None  # those `workers` processes, started on first use
        self.league = SnapshotLeague(config, self.info)
        # expert iteration (training/expert.py): its rounds, and the one driver-side net its
        # distillation optimizer steps (main's weights are loaded into it before each step)
        self.expert = (
            Teacher(config.expert, self.info, config.ppo.reward_scale, config.seed)
            if config.expert.games
            else None
        )
        self._expert_net = None
        self._expert_rng = np.random.default_rng(Seeds(config.seed).minibatches)
        self.algo = None
        self.iteration = 0
        self.decisions = 0
        self.all_decisions = 0  # every seat's decisions, opponents' included
        self.net = None  # driver-side PolicyNet with main's latest learner weights
        self.rllib_dir = None  # where RLlib's own algorithm checkpoint goes (the run's directory's)
        self.rllib_path = None  # that checkpoint, once written at the end
        self._ray_started = False
        self._clock = 0.0

    def open(self, run_dir: Path) -> None:
        self.rllib_dir = (Path(run_dir) / "rllib_checkpoint").resolve()
        torch.set_num_threads(self.config.threads)
        torch.manual_seed(Seeds(self.config.seed).network)
        self._ray_started = connect(self.rllib)
        self.algo = build_algorithm(self.config, self.info, self.league, self.rllib)
        self._clock = time.perf_counter()

    def workers(self):
        """`workers` > 1: native game processes (`training.workers.GameWorker`s) that record the warm
        start's scripted games and play the evaluations and expert iteration's rounds, the games the
        native trainer's rollout workers play for them (the same shares and streams), so both backends
        warm-start from the same games and the driver does not play thousands of them alone. RLlib's own
        rollouts stay on its EnvRunners."""
        if self._games is None:
            from ..workers import game_workers

            c = self.config
            self._games = game_workers(c.workers, c.game, c.game_config)
        return self._games

    def close(self) -> None:
        """Stop the game processes, the Algorithm and a Ray this run started (a second call does nothing)."""
        import ray

        games, self._games = self._games, None
        if games is not None:
            games.close()
        algo, self.algo = self.algo, None
        if algo is not None:
            algo.stop()
        if self._ray_started:
            ray.shutdown()
            self._ray_started = False

    # ----- one iteration ---------------------------------------------------------------------
    def iterate(self) -> dict[str, float]:
        """One Algorithm.train(): sample, learn; then the league's snapshots and PFSP statistics."""
        teacher = self.config.teacher
        if teacher.coef > 0:  # its weight falls as the native trainer's does
            coef = teacher.weight_at(self.decisions, self.config.total_steps)
            self.algo.learner_group.foreach_learner(lambda learner, _c=coef: learner.set_teacher_coef(_c))
        if self.expert is not None and self.config.expert.anneal_lr:  # as the native trainer anneals it
            self.expert.step_share = max(1.0 - self.decisions / self.config.total_steps, 0.0)
        result = self._train_until_sampled()
        expert = self._expert_step() if self.expert is not None else {}
        self.iteration += 1
        env = result.get("env_runners", {})
        all_decisions = int(env.get("num_env_steps_sampled_lifetime", 0))
        live = self.league.record(env)
        if self.league.wants_snapshots() and self.iteration % self.config.opponents.snapshot_every == 0:
            self.league.add_snapshot(self.algo)
        elif self.league.slots:
            self.league.push_mapping(self.algo)  # PFSP probabilities moved
        now = time.perf_counter()
        all_sps = (all_decisions - self.all_decisions) / max(now - self._clock, 1e-9)
        self._clock, self.all_decisions = now, all_decisions
        return self._stats(result, live) | expert | {"speed/all_decisions_per_s": all_sps}

    def _expert_step(self) -> dict[str, float]:
        """The native trainer's expert step on main's weights: a round of the guided search's games when
        due (on the `workers` game processes when there are, else here on the driver), then the
        distillation of the kept rounds; the result goes back to the learner group and every EnvRunner."""
        expert = self.expert
        due = expert.due(self.iteration, self.decisions, self.config.total_steps)
        if not (due or expert.rounds):  # before expert.start: nothing to read back from the learners
            return {}
        # one driver-side net for the whole run, main's latest weights loaded into it, so the
        # distillation's Adam keeps its moments
        weights = self.algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        net = self._expert_net = self.league.policy_net(weights, into=self._expert_net)
        if due:
            net.eval()
            expert.play(Policy(net), self.workers())
        net.train()
        stats = expert.distil(net, self._expert_rng)
        self._send_main(net)
        return stats

    def _train_until_sampled(self) -> dict:
        """Algorithm.train() until an iteration brings a sample back (a slow one, on a loaded machine,
        is asked again rather than crashing a long run), at most SAMPLE_TRIES times."""
        timeout = self.rllib.sample_timeout_s
        for attempt in range(1, SAMPLE_TRIES + 1):
            result = self.algo.train()
            decisions = main_decisions(result)
            if decisions is not None:
                self.decisions = decisions
                return result
            again = "; asking again" if attempt < SAMPLE_TRIES else ""
            warnings.warn(
                f"RLlib: no EnvRunner's sample came back within rllib.sample_timeout_s={timeout:g} s, so this "
                f"iteration learnt nothing (try {attempt} of {SAMPLE_TRIES}){again}",
                stacklevel=2,
            )
        raise RuntimeError(
            f"RLlib's EnvRunners returned no sample within rllib.sample_timeout_s={timeout:g} s in {SAMPLE_TRIES} "
            "tries in a row: raise rllib.sample_timeout_s (the machine is loaded, or ppo.num_envs x "
            "ppo.rollout_steps is large for one EnvRunner)"
        )

    def _stats(self, result, live) -> dict[str, float]:
        stats = {}
        learner = result.get("learners", {}).get(MAIN, {})
        for key, name in LEARNER_STATS.items():
            if key in learner:
                try:
                    value = float(learner[key])
                except (TypeError, ValueError):
                    continue
                if math.isfinite(value):  # (RLlib repeats a term not logged this iteration as NaN)
                    stats[name] = value
        for kind, (games, score, ret) in live.items():
            if games:
                stats[f"live_win_rate/{kind}"] = score / games
                stats[f"episode/learner_return_vs_{kind}"] = ret / games
        stats["pool/snapshots"] = len(self.league.pool.snapshots)
        return stats

    # ----- the policy on the driver --------------------------------------------------------------
    def sync_net(self):
        weights = self.algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        self.net = self.league.policy_net(weights)
        self.net.eval()
        return self.net

    def policy(self):
        return self.sync_net()

    def imitate(self, data: dict) -> dict:
        """Behaviour cloning (the native `training.pretrain`) on main's weights, then the result into
        the learner group and every EnvRunner."""
        cfg = self.config
        net = self.sync_net()
        net.train()
        rng = np.random.default_rng(Seeds(cfg.seed).minibatches)
        stats = pretrain(
            net, data, cfg.pretrain, cfg.ppo.reward_scale, rng, self.info.state_seen_by, cfg.progress
        )
        self._send_main(net)
        return stats

    def start_from(self, net) -> None:
        """config.init's weights into the learner group and every EnvRunner."""
        mine = self.sync_net()
        mine.load_state_dict(net.state_dict())
        self._send_main(mine)

    def _send_main(self, net) -> None:
        """A driver-side net's weights as main's, in the learner group and every EnvRunner."""
        weights = module_weights({k: v.detach().cpu().numpy() for k, v in net.state_dict().items()})
        set_module_weights(self.algo, MAIN, weights)

    def state_dict(self) -> dict:
        return backend_state(self.rllib_dir)

    def finish(self) -> None:
        try:
            self.rllib_path = str(self.algo.save_to_path(str(self.rllib_dir)))
        except Exception as exc:  # the native checkpoints are written; RLlib's own one is a bonus
            warnings.warn(f"could not write RLlib's algorithm checkpoint: {exc}", stacklevel=2)

    def summary(self) -> dict:
        return {
            "all_decisions": self.all_decisions,
            "num_env_runners": self.rllib.num_env_runners,
            "env_runner_nodes": env_runner_nodes(self.algo),
            "snapshot_modules": self.league.state()["slots"],
            "rllib_checkpoint": self.rllib_path,
        }


class RLlibRun(Run):
    """A run trained by RLlib's PPO (`RLlibPPO`, its `backend`): `RLlibRun(config).train()`."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir=None,
        rllib: RLlibConfig | dict | None = None,
        overwrite: bool = False,
        log: bool = True,
        resume_from: dict | None = None,
    ):
        super().__init__(RLlibPPO(config, rllib), run_dir, overwrite, resume_from, log)


# RLlib's learner results -> the names the native trainer logs
LEARNER_STATS = {
    "policy_loss": "loss/policy",
    "vf_loss": "loss/value",
    "entropy": "loss/entropy",
    "mean_kl_loss": "loss/approx_kl",
    "vf_explained_var": "loss/explained_variance",
    "aux_state_loss": "loss/aux_state",
    "teacher_cross_entropy": "teacher/cross_entropy",
    "teacher_agreement": "teacher/agreement",
    "teacher_coef": "teacher/coef",
}


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
    weights = policy_weights(weights)
    missing = [k for k in ("value_head.weight",) if k not in weights]
    if missing:
        raise ckpt.CheckpointError(
            "these weights lack the critic (an EnvRunner's inference-only copy?); export from the learner group"
        )
    net = league.policy_net({k: np.asarray(v) for k, v in weights.items()})
    return ckpt.save_checkpoint(Path(path), net, config, info, iteration, decisions, backend_state(None))
