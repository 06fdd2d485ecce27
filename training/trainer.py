"""The self-play training loop: rollouts, PPO updates, the opponent pool, logging, checkpoints, resume."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import shutil
import time
import warnings
from collections import deque
from pathlib import Path

import numpy as np
import torch
import yaml

from envs.core.errors import ConfigError

from . import checkpoint as ckpt
from .actors import NetActor, RandomActor, ScriptedActor
from .config import TrainConfig, from_dict
from .evaluate import evaluation_entry
from .games import evaluation_info, final_outcomes, game_info
from .nets import PolicyNet
from .pool import OpponentPool
from .ppo import ppo_update
from .runlog import log_eval, open_writer, progress_bar, write_history
from .runner import Runner


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the message says where the last checkpoint is and how to resume."""


class Trainer:
    """Everything a run needs; `train()` runs it to `total_steps` learner decisions."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir: str | Path | None = None,
        overwrite: bool = False,
        resume_from: dict | None = None,
        log: bool = True,
    ):
        self.config = config
        torch.set_num_threads(config.threads)
        self.info = info = game_info(config.game, config.game_config)
        # a bad eval.game_config fails now, not at the first evaluation
        evaluation_info(info, config.eval.game_config)
        self.run_dir = Path(run_dir) if run_dir is not None else config.resolved_run_dir()
        self.log = log
        if (
            resume_from is None
            and (self.run_dir / "checkpoints").exists()
            and any((self.run_dir / "checkpoints").iterdir())
        ):
            if not overwrite:
                raise FileExistsError(
                    f"run directory {str(self.run_dir)!r} already holds checkpoints; resume with "
                    f"`--resume {self.run_dir}` or pick another run_dir=... (or --overwrite)"
                )
            # remove only what a run writes (never the whole directory: it may hold other things)
            for name in ("checkpoints", "tb"):
                shutil.rmtree(self.run_dir / name, ignore_errors=True)
            for name in ("config.yaml", "eval.json", "curve.png", "summary.json"):
                (self.run_dir / name).unlink(missing_ok=True)
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng([config.seed, 1])  # minibatch order
        self.net = PolicyNet(info.obs_dim, info.num_actions, info.state_dim, config.net)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.ppo.lr, eps=1e-5, fused=True)
        self.pool = OpponentPool(config.opponents, info)
        self.actors = {"learner": NetActor(self.net, name="learner"), "random": RandomActor()}
        if info.spec.scripted_policy is not None:
            self.actors["scripted"] = ScriptedActor(info)
        p = config.ppo
        self.runner = Runner(
            info,
            p.num_envs,
            np.random.default_rng([config.seed, 2]),
            self.actors,
            self._assign,
            self._on_episode,
            record=True,
            capacity=p.num_envs * p.rollout_steps,
            reward_scale=p.reward_scale,
        )
        self.iteration = 0
        self.history: list[dict] = []  # evaluations
        self.live: dict[str, deque] = {}
        self.episode_returns: deque = deque(maxlen=500)
        self.episode_truncated: deque = deque(maxlen=500)  # 1 for a game cut at its length limit
        self.episodes = 0
        self.wall = 0.0
        self._last_plot = time.perf_counter()
        self.pretrained = False
        self.pretrain_stats: dict = {}
        self.last_checkpoint: tuple[Path, int, int] | None = None  # (path, iteration, decisions)
        if resume_from is not None:
            self._refuse_another_runs_directory(resume_from)
            self._load(resume_from)
            self.last_checkpoint = (Path(resume_from["path"]), self.iteration, self.runner.decisions)

    # ----- opponents --------------------------------------------------------------------------
    def _assign(self, slot, rng, game):
        info = self.info
        key = self.pool.sample(rng)
        teams = info.teams_of(game)
        if info.cooperative or key == "self":
            return ["learner"] * info.num_players, ("self", -1, teams)
        if isinstance(key, tuple) and key not in self.actors:
            net = PolicyNet(info.obs_dim, info.num_actions, info.state_dim, self.config.net)
            net.load_state_dict(self.pool.snapshots[key[1]])
            self.actors[key] = NetActor(net, name=f"snapshot{key[1]}")
        ids = sorted(set(teams))
        team = ids[int(rng.integers(len(ids)))]
        return ["learner" if t == team else key for t in teams], (key, team, teams)

    def _on_episode(self, slot, meta, game):
        key, team, teams = meta
        ret = np.asarray(game.returns(), float)
        self.episodes += 1
        self.episode_truncated.append(int(game.is_truncated()))
        outcomes = final_outcomes(game, teams)  # a truncated game is a draw, not a loss
        if self.info.cooperative:
            self.live.setdefault("team", deque(maxlen=500)).append(outcomes[teams[0]])
            self.episode_returns.append(float(ret.mean()))
            return
        if key == "self":
            return
        self.pool.record(key, float(outcomes[team]))
        kind = "snapshot" if isinstance(key, tuple) else key
        self.live.setdefault(kind, deque(maxlen=500)).append(outcomes[team])
        self.episode_returns.append(float(ret[np.asarray(teams) == team].mean()))

    def _prune_snapshots(self) -> None:
        in_use = {k for keys in self.runner.keys for k in keys}
        for key in [k for k in self.actors if isinstance(k, tuple)]:
            if key[1] not in self.pool.snapshots and key not in in_use:
                del self.actors[key]

    # ----- state ------------------------------------------------------------------------------
    def _trainer_state(self) -> dict:
        state = {
            "optimizer": self.optimizer.state_dict(),
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "pool": self.pool.state_dict(),
            "iteration": self.iteration,
            "history": self.history,
            "live": {k: list(v) for k, v in self.live.items()},
            "episode_returns": list(self.episode_returns),
            "episode_truncated": list(self.episode_truncated),
            "episodes": self.episodes,
            "wall": self.wall,
            "pretrained": self.pretrained,
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

    def _load(self, data: dict) -> None:
        ckpt.check_compatible(data, self.info, self.config.game, "this run's game")
        net = ckpt.net_from(data, self.config.net)
        self.net.load_state_dict(net.state_dict())
        state = ckpt.trainer_state(data)
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        self.pool.load_state_dict(state["pool"])
        self.iteration = state["iteration"]
        self.history = state["history"]
        self.live = {k: deque(v, maxlen=500) for k, v in state["live"].items()}
        self.episode_returns = deque(state["episode_returns"], maxlen=500)
        self.episode_truncated = deque(state.get("episode_truncated", []), maxlen=500)
        self.episodes = state["episodes"]
        self.wall = state["wall"]
        self.pretrained = state.get("pretrained", False)
        if "runner" in state:
            self.runner.load_state_dict(state["runner"])
            for keys in self.runner.keys:
                for key in keys:
                    if isinstance(key, tuple) and key not in self.actors:
                        snap = self.pool.snapshots.get(key[1], state.get("seated_snapshots", {}).get(key[1]))
                        net = PolicyNet(
                            self.info.obs_dim, self.info.num_actions, self.info.state_dim, self.config.net
                        )
                        net.load_state_dict(snap)
                        self.actors[key] = NetActor(net, name=f"snapshot{key[1]}")
        else:
            self.runner.decisions = data["decisions"]

    def _refuse_another_runs_directory(self, data: dict) -> None:
        """Resuming writes run_dir/checkpoints/latest.pt: never over another game's run."""
        latest = self.run_dir / "checkpoints" / "latest.pt"
        if not latest.is_file():
            return
        try:
            other = ckpt.read_checkpoint(latest)
        except ckpt.CheckpointError:  # a damaged latest.pt: resuming from an earlier checkpoint repairs it
            return
        problems = ckpt.mismatches(other, self.info, self.config.game)
        if problems:
            raise ckpt.CheckpointError(
                f"refusing to resume {data['path']!r} into {str(self.run_dir)!r}: that run directory holds "
                f"another game's run ({latest}: " + "; ".join(problems) + "); give another run_dir=..."
            )

    def save(self, name: str = "latest.pt") -> Path:
        path = self.run_dir / "checkpoints" / name
        saved = ckpt.save_checkpoint(
            path,
            self.net,
            self.config,
            self.info,
            self.iteration,
            self.runner.decisions,
            self._trainer_state(),
        )
        if name == "latest.pt":
            self.last_checkpoint = (saved, self.iteration, self.runner.decisions)
        return saved

    @property
    def finished(self) -> bool:
        """The run has reached total_steps (a resumed finished run: train() does nothing)."""
        return self.runner.decisions >= self.config.total_steps

    def resume_hint(self) -> str:
        """Where the last checkpoint is and the command that continues from it."""
        if self.last_checkpoint is None:
            return (
                f"no checkpoint was written yet (one every checkpoint_every={self.config.checkpoint_every} "
                "iterations): nothing to resume, start the run again"
            )
        path, iteration, decisions = self.last_checkpoint
        target = str(self.run_dir)
        if path.resolve() != (self.run_dir / "checkpoints" / "latest.pt").resolve():
            target = f"{path} run_dir={self.run_dir}"
        return (
            f"the last checkpoint is {path} (iteration {iteration}, {decisions} decisions); resume with: "
            f"python -m training train --resume {target}"
        )

    # ----- evaluation ------------------------------------------------------------------------
    def evaluate(self, games: int | None = None) -> dict:
        cfg = dataclasses.replace(self.config.eval, games=games or self.config.eval.games)
        seed = self.config.seed * 7919 + self.iteration
        entry = evaluation_entry(
            self.info, self.net, cfg, seed, "scripted" in self.actors, self.iteration, self.runner.decisions
        )
        self.history.append(entry)
        return entry

    def _write_eval(self, final: bool = False) -> None:
        # the curve costs about a second to draw: at the end, and at most every 5 minutes before
        curve = final or time.perf_counter() - self._last_plot >= 300
        if curve:
            self._last_plot = time.perf_counter()
        write_history(self.run_dir, self.history, self.config.game, curve)

    # ----- the loop ---------------------------------------------------------------------------
    def train(self) -> dict:
        """Train to total_steps; a run that has already finished is left as it is. Ctrl-C raises
        Interrupted, whose message says where the last checkpoint is and how to resume."""
        if self.finished and self.history:
            summary = self._summary(self.history[-1])
            summary["already_finished"] = True
            return summary
        self._open: list = []  # the bar and the TensorBoard writer, closed however the run ends
        try:
            return self._train()
        except KeyboardInterrupt:
            raise Interrupted(
                f"training interrupted at {self.runner.decisions} decisions (iteration {self.iteration}); "
                + self.resume_hint()
            ) from None
        finally:
            for thing in self._open:
                thing.close()

    def _train(self) -> dict:
        cfg, p = self.config, self.config.ppo
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        writer = open_writer(self.run_dir, self.log, purge_step=self.runner.decisions or None)
        if self.iteration == 0 and self.runner.decisions == 0 and not self.history:
            self._start(writer)
        bar = progress_bar(
            self.config.progress, self.config.total_steps, self.runner.decisions, self.info.spec.name
        )
        self._open = [x for x in (bar, writer) if x is not None]
        start = time.perf_counter()
        last_time, last_decisions = start, self.runner.decisions
        while self.runner.decisions < cfg.total_steps:
            if p.anneal_lr:
                frac = 1.0 - self.runner.decisions / cfg.total_steps
                for group in self.optimizer.param_groups:
                    group["lr"] = p.lr * max(frac, 0.0)
            self.net.eval()
            batch = self.runner.collect(p.rollout_steps, p.gamma, p.gae_lambda)
            self.net.train()
            stats = ppo_update(self.net, self.optimizer, batch, p, self.rng)
            self.iteration += 1
            if self.iteration % cfg.opponents.snapshot_every == 0:
                self.pool.add_snapshot(self.net)
                self._prune_snapshots()
            now = time.perf_counter()
            sps = (self.runner.decisions - last_decisions) / max(now - last_time, 1e-9)
            last_time, last_decisions = now, self.runner.decisions
            live = {k: float(np.mean(v)) for k, v in self.live.items() if len(v)}
            if writer is not None:
                step = self.runner.decisions
                for k, v in stats.items():
                    writer.add_scalar(k, v, step)
                for k, v in live.items():
                    writer.add_scalar(f"live_win_rate/{k}", v, step)
                if self.episode_returns:
                    writer.add_scalar("episode/learner_return", float(np.mean(self.episode_returns)), step)
                if self.episode_truncated:
                    writer.add_scalar("episode/truncated_share", float(np.mean(self.episode_truncated)), step)
                writer.add_scalar("speed/decisions_per_s", sps, step)
                writer.add_scalar("pool/snapshots", len(self.pool.snapshots), step)
            if bar is not None:
                bar.update(self.runner.decisions - bar.n)
                bar.set_postfix({f"win_{k}": f"{v:.2f}" for k, v in live.items()} | {"sps": f"{sps:.0f}"})
            done = self.runner.decisions >= cfg.total_steps
            if cfg.eval.every and self.iteration % cfg.eval.every == 0 and not done:
                entry = self.evaluate()
                log_eval(writer, entry)
                self._write_eval()
            if cfg.checkpoint_every and self.iteration % cfg.checkpoint_every == 0 and not done:
                self.wall += time.perf_counter() - start
                start = time.perf_counter()
                self.save("latest.pt")
                self.save(f"iter_{self.iteration:05d}.pt")
        self.wall += time.perf_counter() - start
        entry = self.evaluate()
        log_eval(writer, entry)
        self._write_eval(final=True)
        self.save("latest.pt")
        self.save("final.pt")
        summary = self._summary(entry)
        (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
        if bar is not None:
            bar.set_description_str(f"{self.info.spec.name} finished", refresh=False)
        return summary

    def _summary(self, entry: dict) -> dict:
        return {
            "run_dir": str(self.run_dir),
            "iterations": self.iteration,
            "decisions": self.runner.decisions,
            "episodes": self.episodes,
            "wall_seconds": round(self.wall, 1),
            "final_eval": entry,
        }

    def _start(self, writer) -> None:
        """A fresh run: the optional warm start, then an evaluation at step 0 (where curves begin)."""
        if self.config.pretrain.games and not self.pretrained:
            self._pretrain(writer)
        if self.config.eval.every or self.pretrained:
            entry = self.evaluate()
            if self.pretrained:
                entry["after_pretraining"] = True
            log_eval(writer, entry)
            self._write_eval()

    def _pretrain(self, writer) -> None:
        from .pretrain import collect_scripted, pretrain

        if self.info.spec.scripted_policy is None:
            raise ConfigError(f"pretrain.games needs a scripted baseline; {self.info.spec.name} has none")
        data = collect_scripted(
            self.info,
            self.config.pretrain.games,
            self.config.seed + 12345,
            self.net.uses_state,
            self.config.pretrain.random_opponents,
        )
        self.net.train()
        stats = pretrain(self.net, data, self.config.pretrain, self.config.ppo.reward_scale, self.rng)
        stats["pretrain/decisions"] = len(data["action"])
        self.pretrained = True
        self.pretrain_stats = stats
        if writer is not None:
            for k, v in stats.items():
                writer.add_scalar(k, v, 0)


def resume(path: str | Path, overrides: dict | None = None, run_dir=None, log: bool = True) -> Trainer:
    """A Trainer continuing from a checkpoint (or a run directory's latest checkpoint)."""
    data = ckpt.read_checkpoint(path)
    from .rllib.compat import refuse_native_resume

    refuse_native_resume(data)
    config_dict = data["train_config"]
    if overrides:
        from .config import apply_overrides

        config_dict = apply_overrides(config_dict, [f"{k}={v}" for k, v in overrides.items()])
    config = from_dict(config_dict)
    if run_dir is None:  # the checkpoint's own run, unless a run_dir=... override names another
        run_dir = config.run_dir if overrides and "run_dir" in overrides else Path(data["path"]).parent.parent
    return Trainer(config, run_dir=run_dir, resume_from=data, log=log)


def iterations_for(config: TrainConfig) -> int:
    """Iterations a self-play run needs (every decision is the learner's)."""
    return math.ceil(config.total_steps / (config.ppo.num_envs * config.ppo.rollout_steps))
