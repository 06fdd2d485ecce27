"""The native PPO self-play trainer, read top to bottom: the pieces (network, optimizer, opponents, the
games), then one iteration - rollout -> advantages -> update -> log - then who plays the other seats,
then the state a checkpoint keeps.

The run around it (run directory, evaluations, checkpoints, logs, summary, Ctrl-C, resume) is
`training.run.Run`, the same for every backend:

    Trainer(config).train()                  # a fresh run
    resume("runs/exposed-seed0").train()     # continue one
"""

from __future__ import annotations

import copy
import math
import warnings
from collections import deque

import numpy as np
import torch

from . import checkpoint as ckpt
from .actors import NetActor
from .config import TrainConfig
from .device import fused_adam, resolve_device
from .expert import Teacher
from .nets import PolicyNet
from .policy import Policy
from .pool import OpponentPool
from .ppo import ppo_update
from .pretrain import pretrain
from .run import Backend, Interrupted, Run, Seeds, resume, run_game
from .runner import Runner
from .seating import Outcome, Seating, opponent_actors
from .workers import ParallelRunner

__all__ = ["Interrupted", "NativePPO", "Trainer", "iterations_for", "resume"]

LIVE = 500  # games behind each live win rate and mean return


class NativePPO(Backend):
    """PPO self-play on this package's batched runner, as the backend of a `Run` (`Trainer`)."""

    name = "native"

    def __init__(self, config: TrainConfig):
        self.config = config
        self.info = info = run_game(config)
        seeds = Seeds(config.seed)
        torch.set_num_threads(config.threads)
        torch.manual_seed(seeds.network)
        p = config.ppo
        # the policy and its optimizer, on config.device; rollouts infer on a CPU copy (the same network
        # on the CPU), synced after every update
        self.device = resolve_device(config.device)
        self.net = self._network().to(self.device)
        self.acting = self.net if self.device.type == "cpu" else copy.deepcopy(self.net).cpu().eval()
        self.optimizer = torch.optim.Adam(
            self.net.parameters(), lr=p.lr, eps=1e-5, fused=fused_adam(self.device)
        )
        self.rng = np.random.default_rng(seeds.minibatches)
        # who plays: the learner, and the opponents the pool draws for each new game
        self.pool = OpponentPool(config.opponents, info)
        self.actors = {"learner": NetActor(self.acting, name="learner"), **opponent_actors(config, info)}
        # the scripted baseline as a teacher of the learner's own decisions (teacher.coef > 0)
        self.teacher = info.scripted(0) if config.teacher.coef > 0 else None
        # the guided search as a teacher: its games' visit distributions distilled after each update
        self.expert = (
            Teacher(config.expert, info, p.reward_scale, config.seed) if config.expert.games else None
        )
        self.seating = Seating(info, self.pool, self.actors, self._network, self._record)
        # the games: num_envs at once, every learner decision recorded; in this process, or spread over
        # rollout workers that seat the same opponents from a replica of the pool
        if config.workers > 1:
            self.runner = ParallelRunner(config, info, self.acting, self.pool, self._record, seeds.games)
        else:
            self.runner = Runner(
                info,
                p.num_envs,
                np.random.default_rng(seeds.games),
                self.actors,
                self.seating.assign,
                self.seating.on_episode,
                record=True,
                capacity=p.num_envs * p.rollout_steps,
                reward_scale=p.reward_scale,
            )
        self.iteration = 0
        self.live: dict[str, deque] = {}  # opponent kind -> the learner's latest outcomes against it
        self.episode_returns: deque = deque(maxlen=LIVE)
        self.episode_truncated: deque = deque(maxlen=LIVE)  # 1 for a game cut at its length limit
        self.episodes = 0

    def _network(self) -> PolicyNet:
        info = self.info
        return PolicyNet(info.net_shape, self.config.net)

    @property
    def decisions(self) -> int:
        return self.runner.decisions

    # ----- one iteration ---------------------------------------------------------------------
    def iterate(self) -> dict[str, float]:
        """Rollout -> advantages -> update -> log."""
        p = self.config.ppo
        self._anneal_lr()
        teacher_coef = self._teacher_coef()
        # rollout: every game steps rollout_steps times; the learner's decisions are recorded, and each
        # one's advantage is GAE over its seat's own chain of decisions (the runner hands them so)
        self.net.eval()
        batch = self.runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
        if teacher_coef > 0:
            batch.teacher = self._teacher_labels(batch)
        if self.net.aux_head is not None:  # the auxiliary target, seat axes from each decision's seat
            batch.aux_target = self.info.state_seen_by(batch.state, batch.chain)
        # update: epochs of minibatch PPO on the batch
        self.net.train()
        term = self._lesson_term()
        stats = ppo_update(self.net, self.optimizer, batch, p, self.rng, teacher_coef, term)
        self._sync_acting()
        if term is not None:
            stats |= term.stats()
        if self.expert is not None:  # search -> distil, from the policy PPO just improved
            stats |= self._expert_step()
        if self.teacher is not None:
            stats["teacher/coef"] = teacher_coef
        self.iteration += 1
        if self.iteration % self.config.opponents.snapshot_every == 0:
            self.pool.add_snapshot(self.acting)
            self.seating.prune(self.runner.keys)
        # log: the update's losses, then how the games went
        return stats | self._game_stats()

    def _anneal_lr(self) -> None:
        """PPO's step (ppo.anneal_lr) and the distillation's (expert.anneal_lr): each its base rate
        times the share of total_steps left."""
        left = max(1.0 - self.runner.decisions / self.config.total_steps, 0.0)
        p = self.config.ppo
        if p.anneal_lr:
            for group in self.optimizer.param_groups:
                group["lr"] = p.lr * left
        if self.expert is not None and self.config.expert.anneal_lr:
            self.expert.step_share = left

    def _teacher_coef(self) -> float:
        """teacher.coef, falling linearly to 0 at teacher.until of total_steps."""
        if self.teacher is None:
            return 0.0
        return self.config.teacher.weight_at(self.runner.decisions, self.config.total_steps)

    def _teacher_labels(self, batch) -> np.ndarray:
        """The scripted baseline's action at a teacher.share of the learner's decisions, -1 elsewhere.
        The baseline reads only (observation, mask), so it can label any position the learner reached."""
        labels = np.full(len(batch), -1, np.int64)
        rows = np.flatnonzero(batch.trainable)
        share = self.config.teacher.share
        if share < 1:  # no draw at share 1, so the minibatch order is the same as without sampling
            rows = rows[self.rng.random(len(rows)) < share]
        for r in rows:
            labels[r] = self.teacher(batch.obs[r], batch.mask[r])
        return labels

    def _lesson_term(self):
        """expert.optimizer=ppo: the kept rounds as a term of this update's loss (None before the first
        round, and with the distillation's own optimizer)."""
        if self.expert is None or self.config.expert.optimizer != "ppo":
            return None
        return self.expert.term(self.rng)

    def _expert_step(self) -> dict[str, float]:
        """A round of search games when due (on the workers when there are), then the distillation of
        the kept rounds into the network (with its own optimizer; expert.optimizer=ppo distils them
        inside the next update)."""
        expert = self.expert
        if expert.due(self.iteration, self.runner.decisions, self.config.total_steps):
            expert.play(Policy(self.acting), self.workers())
        if self.config.expert.optimizer == "ppo":
            return expert.last
        self.net.train()
        stats = expert.distil(self.net, self.rng)
        self._sync_acting()
        return stats

    def _game_stats(self) -> dict[str, float]:
        stats = {f"live_win_rate/{k}": float(np.mean(v)) for k, v in self.live.items() if len(v)}
        if self.episode_returns:
            stats["episode/learner_return"] = float(np.mean(self.episode_returns))
        if self.episode_truncated:
            stats["episode/truncated_share"] = float(np.mean(self.episode_truncated))
        stats["pool/snapshots"] = len(self.pool.snapshots)
        return stats

    def policy(self) -> PolicyNet:
        """The current policy, on the CPU (what rollouts and evaluations play, and checkpoints keep)."""
        return self.acting

    def _sync_acting(self) -> None:
        """The CPU copy that plays the rollouts takes the updated weights (no-op when training on the CPU)."""
        if self.acting is not self.net:
            self.acting.load_state_dict(self.net.state_dict())

    def workers(self):
        """The rollout workers, which also play the evaluations and the warm start (None: this process)."""
        return self.runner.start() if isinstance(self.runner, ParallelRunner) else None

    def close(self) -> None:
        if isinstance(self.runner, ParallelRunner):
            self.runner.close()

    def imitate(self, data: dict) -> dict:
        self.net.train()
        c = self.config
        stats = pretrain(
            self.net, data, c.pretrain, c.ppo.reward_scale, self.rng, self.info.state_seen_by, c.progress
        )
        self._sync_acting()
        return stats

    def start_from(self, net: PolicyNet) -> None:
        self.net.load_state_dict(net.state_dict())
        self._sync_acting()

    def summary(self) -> dict:
        return {"episodes": self.episodes}

    # ----- what each finished game tells the run ----------------------------------------------
    def _record(self, outcome: Outcome) -> None:
        """A finished game (from this process's games or a worker's) into the pool's PFSP statistics and
        the live win rates."""
        ret = np.asarray(outcome.returns, float)
        key, team, teams, results = outcome.key, outcome.team, outcome.teams, outcome.results
        self.episodes += 1
        self.episode_truncated.append(int(outcome.truncated))
        if self.info.cooperative:
            self.live.setdefault("team", deque(maxlen=LIVE)).append(results[teams[0]])
            self.episode_returns.append(float(ret.mean()))
            return
        if key == "self":
            return
        self.pool.record(key, float(results[team]))
        kind = "snapshot" if isinstance(key, tuple) else key
        self.live.setdefault(kind, deque(maxlen=LIVE)).append(results[team])
        self.episode_returns.append(float(ret[np.asarray(teams) == team].mean()))

    # ----- what a checkpoint keeps -------------------------------------------------------------
    def state_dict(self) -> dict:
        state = {
            "optimizer": self.optimizer.state_dict(),
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "pool": self.pool.state_dict(),
            "iteration": self.iteration,
            "live": {k: list(v) for k, v in self.live.items()},
            "episode_returns": list(self.episode_returns),
            "episode_truncated": list(self.episode_truncated),
            "episodes": self.episodes,
            # snapshots already dropped from the pool but still seated in games in progress
            "seated_snapshots": self.seating.seated_snapshots(),
        }
        if hasattr(self.teacher, "rng"):  # a scripted teacher that breaks ties at random
            state["teacher_rng"] = self.teacher.rng.bit_generator.state
        if self.expert is not None:  # (the kept rounds are not: a resumed run plays new ones)
            state["expert"] = self.expert.state_dict()
        state["runner"] = self.runner.state_dict()  # the games in progress as seeds and moves
        return state

    def load(self, data: dict, state: dict) -> None:
        self.net.load_state_dict(ckpt.net_from(data, self.config.net).state_dict())
        self._sync_acting()
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        self.pool.load_state_dict(state["pool"])
        self.iteration = state["iteration"]
        self.live = {k: deque(v, maxlen=LIVE) for k, v in state["live"].items()}
        self.episode_returns = deque(state["episode_returns"], maxlen=LIVE)
        self.episode_truncated = deque(state.get("episode_truncated", []), maxlen=LIVE)
        self.episodes = state["episodes"]
        if "teacher_rng" in state and hasattr(self.teacher, "rng"):
            self.teacher.rng.bit_generator.state = state["teacher_rng"]
        if self.expert is not None:
            self.expert.load_state_dict(state.get("expert", {}))
        played_by = len(state["runner"].get("workers", [None]))
        if played_by != self.config.workers:  # the games in progress cannot move between workers
            warnings.warn(
                f"the checkpoint's games in progress were played by {played_by} worker(s), this resume has "
                f"workers={self.config.workers}: it goes on with fresh games (the same weights, optimizer and "
                "pool; not bit for bit the run the first worker count would have made)",
                stacklevel=2,
            )
            self.runner.decisions = data["decisions"]
            self.runner.all_decisions = state["runner"].get("all_decisions", 0)
            return
        self.runner.load_state_dict(state["runner"])
        self.seating.reseat(self.runner.keys, state.get("seated_snapshots", {}))


class Trainer(Run):
    """A native PPO run: `Trainer(config).train()` trains to `total_steps` decisions; its network,
    optimizer and games are its `backend` (`NativePPO`)."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir=None,
        overwrite: bool = False,
        resume_from: dict | None = None,
        log: bool = True,
    ):
        super().__init__(NativePPO(config), run_dir, overwrite, resume_from, log)


def iterations_for(config: TrainConfig) -> int:
    """Iterations a self-play run needs (every decision is the learner's)."""
    return math.ceil(config.total_steps / (config.ppo.num_envs * config.ppo.rollout_steps))
