"""The native PPO self-play trainer, read top to bottom: the pieces (network, optimizer, opponents, the
games), then one iteration - rollout -> advantages -> update -> log - then who plays the other seats,
then the state a checkpoint keeps.

The run around it (run directory, evaluations, checkpoints, logs, summary, Ctrl-C, resume) is
`training.run.Run`, the same for every backend:

    Trainer(config).train()                  # a fresh run
    resume("runs/exposed-seed0").train()     # continue one
"""

from __future__ import annotations

import math
import pickle
import warnings
from collections import deque

import numpy as np
import torch

from . import checkpoint as ckpt
from .actors import NetActor, RandomActor, ScriptedActor
from .config import TrainConfig
from .games import final_outcomes
from .nets import PolicyNet
from .pool import OpponentPool
from .ppo import ppo_update
from .pretrain import pretrain
from .run import Backend, Interrupted, Run, Seeds, resume, run_game
from .runner import Runner

__all__ = ["Interrupted", "Trainer", "iterations_for", "resume"]

LIVE = 500  # games behind each live win rate and mean return


class Trainer(Backend):
    """PPO self-play on this package's batched runner; `train()` runs it to `total_steps` decisions."""

    name = "native"

    def __init__(
        self,
        config: TrainConfig,
        run_dir=None,
        overwrite: bool = False,
        resume_from: dict | None = None,
        log: bool = True,
    ):
        self.config = config
        self.info = info = run_game(config)
        seeds = Seeds(config.seed)
        torch.set_num_threads(config.threads)
        torch.manual_seed(seeds.network)
        p = config.ppo
        # the policy and its optimizer
        self.net = self._network()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=p.lr, eps=1e-5, fused=True)
        self.rng = np.random.default_rng(seeds.minibatches)
        # who plays: the learner, and the opponents the pool draws for each new game
        self.pool = OpponentPool(config.opponents, info)
        self.actors = {"learner": NetActor(self.net, name="learner"), "random": RandomActor()}
        if info.spec.scripted_policy is not None:
            self.actors["scripted"] = ScriptedActor(info)
        # the scripted baseline as a teacher of the learner's own decisions (teacher.coef > 0)
        self.teacher = info.scripted(0) if config.teacher.coef > 0 else None
        # the games: num_envs at once, every learner decision recorded
        self.runner = Runner(
            info,
            p.num_envs,
            np.random.default_rng(seeds.games),
            self.actors,
            self._assign,
            self._on_episode,
            record=True,
            capacity=p.num_envs * p.rollout_steps,
            reward_scale=p.reward_scale,
        )
        self.iteration = 0
        self.live: dict[str, deque] = {}  # opponent kind -> the learner's latest outcomes against it
        self.episode_returns: deque = deque(maxlen=LIVE)
        self.episode_truncated: deque = deque(maxlen=LIVE)  # 1 for a game cut at its length limit
        self.episodes = 0
        self.run = Run(self, run_dir, overwrite, resume_from, log)

    def _network(self) -> PolicyNet:
        info = self.info
        return PolicyNet(info.obs_dim, info.num_actions, info.state_dim, self.config.net)

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
        stats = ppo_update(self.net, self.optimizer, batch, p, self.rng, teacher_coef)
        if self.teacher is not None:
            stats["teacher/coef"] = teacher_coef
        self.iteration += 1
        if self.iteration % self.config.opponents.snapshot_every == 0:
            self.pool.add_snapshot(self.net)
            self._prune_snapshots()
        # log: the update's losses, then how the games went
        return stats | self._game_stats()

    def _anneal_lr(self) -> None:
        p = self.config.ppo
        if p.anneal_lr:
            frac = 1.0 - self.runner.decisions / self.config.total_steps
            for group in self.optimizer.param_groups:
                group["lr"] = p.lr * max(frac, 0.0)

    def _teacher_coef(self) -> float:
        """teacher.coef, falling linearly to 0 at teacher.until of total_steps."""
        t = self.config.teacher
        if self.teacher is None:
            return 0.0
        done = self.runner.decisions / (t.until * self.config.total_steps)
        return t.coef * max(0.0, 1.0 - done)

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

    def _game_stats(self) -> dict[str, float]:
        stats = {f"live_win_rate/{k}": float(np.mean(v)) for k, v in self.live.items() if len(v)}
        if self.episode_returns:
            stats["episode/learner_return"] = float(np.mean(self.episode_returns))
        if self.episode_truncated:
            stats["episode/truncated_share"] = float(np.mean(self.episode_truncated))
        stats["pool/snapshots"] = len(self.pool.snapshots)
        return stats

    def policy(self) -> PolicyNet:
        return self.net

    def imitate(self, data: dict) -> dict:
        self.net.train()
        c = self.config
        return pretrain(
            self.net, data, c.pretrain, c.ppo.reward_scale, self.rng, self.info.state_seen_by, c.progress
        )

    def summary(self) -> dict:
        return {"episodes": self.episodes}

    # ----- who plays the other seats ----------------------------------------------------------
    def _assign(self, slot, rng, game):
        info = self.info
        key = self.pool.sample(rng)
        teams = info.teams_of(game)
        if info.cooperative or key == "self":
            return ["learner"] * info.num_players, ("self", -1, teams)
        if isinstance(key, tuple) and key not in self.actors:
            self._seat_snapshot(key, self.pool.snapshots[key[1]])
        ids = sorted(set(teams))
        team = ids[int(rng.integers(len(ids)))]
        return ["learner" if t == team else key for t in teams], (key, team, teams)

    def _seat_snapshot(self, key, weights: dict) -> None:
        net = self._network()
        net.load_state_dict(weights)
        self.actors[key] = NetActor(net, name=f"snapshot{key[1]}")

    def _on_episode(self, slot, meta, game):
        key, team, teams = meta
        ret = np.asarray(game.returns(), float)
        self.episodes += 1
        self.episode_truncated.append(int(game.is_truncated()))
        outcomes = final_outcomes(game, teams)  # a truncated game is a draw, not a loss
        if self.info.cooperative:
            self.live.setdefault("team", deque(maxlen=LIVE)).append(outcomes[teams[0]])
            self.episode_returns.append(float(ret.mean()))
            return
        if key == "self":
            return
        self.pool.record(key, float(outcomes[team]))
        kind = "snapshot" if isinstance(key, tuple) else key
        self.live.setdefault(kind, deque(maxlen=LIVE)).append(outcomes[team])
        self.episode_returns.append(float(ret[np.asarray(teams) == team].mean()))

    def _prune_snapshots(self) -> None:
        in_use = {k for keys in self.runner.keys for k in keys}
        for key in [k for k in self.actors if isinstance(k, tuple)]:
            if key[1] not in self.pool.snapshots and key not in in_use:
                del self.actors[key]

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
            "seated_snapshots": {
                k[1]: a.net.state_dict()
                for k, a in self.actors.items()
                if isinstance(k, tuple) and k[1] not in self.pool.snapshots
            },
        }
        runner_state = self.runner.state_dict()
        try:
            pickle.dumps(runner_state["games"])
            state["runner"] = runner_state
        except Exception as exc:  # a game that cannot be pickled: resume restarts the games
            warnings.warn(
                f"games in progress cannot be saved ({exc}); a resume starts fresh games", stacklevel=2
            )
        return state

    def load(self, data: dict, state: dict) -> None:
        self.net.load_state_dict(ckpt.net_from(data, self.config.net).state_dict())
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        self.pool.load_state_dict(state["pool"])
        self.iteration = state["iteration"]
        self.live = {k: deque(v, maxlen=LIVE) for k, v in state["live"].items()}
        self.episode_returns = deque(state["episode_returns"], maxlen=LIVE)
        self.episode_truncated = deque(state.get("episode_truncated", []), maxlen=LIVE)
        self.episodes = state["episodes"]
        if "runner" not in state:  # the games could not be saved: fresh ones, the count goes on
            self.runner.decisions = data["decisions"]
            return
        self.runner.load_state_dict(state["runner"])
        seated = state.get("seated_snapshots", {})
        for keys in self.runner.keys:
            for key in keys:
                if isinstance(key, tuple) and key not in self.actors:
                    self._seat_snapshot(key, self.pool.snapshots.get(key[1], seated.get(key[1])))


def iterations_for(config: TrainConfig) -> int:
    """Iterations a self-play run needs (every decision is the learner's)."""
    return math.ceil(config.total_steps / (config.ppo.num_envs * config.ppo.rollout_steps))
