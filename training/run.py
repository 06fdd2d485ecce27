"""One training run, whichever backend trains it.

The `Run` owns the lifecycle: the run directory (what a fresh run removes, what a resume refuses),
`config.yaml`, the seeds, the evaluations (at step 0, every `eval.every` iterations, at the end), the
checkpoints (every `checkpoint_every` iterations, at the end), TensorBoard and the progress bar,
`summary.json`, Ctrl-C (`Interrupted`, which says how to resume) and resume itself.

A `Backend` supplies only its iteration and its policy: `iterate() -> stats`, `policy()`, and its
state for checkpoints (`state_dict()` / `load()`). Two exist: the native PPO (`training.trainer`) and
RLlib's PPO on Ray (`training.rllib.trainer`), picked by `config.backend`; each checks its own options.
Calls go one way: the run calls its backend, and hands it what it needs (the run directory in `open`);
a backend never calls its run. Each backend's run is a `Run` subclass built from the config alone
(`Trainer`, `RLlibRun`), so its backend is `run.backend`.

    run = start(config)                           # a fresh run (Trainer or RLlibRun)
    summary = run.train()
    run = resume("runs/exposed-seed0", {"total_steps": 400000})
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import shutil
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

import yaml

from envs.core.errors import ConfigError
from envs.core.players import PLAYERS

from . import checkpoint as ckpt
from .config import TrainConfig, apply_overrides, from_dict
from .evaluate import evaluation_entry
from .games import GameInfo, evaluation_info, game_info
from .runlog import environment, log_eval, open_writer, progress_bar, write_history

# what a run writes in its directory (any backend; rllib_checkpoint is RLlib's own algorithm state): a
# fresh run removes these and nothing else, since a run directory may also hold a person's other files
RUN_FILES = ("checkpoints", "tb", "rllib_checkpoint", "config.yaml", "eval.json", "curve.png", "summary.json")
# config.backend -> the Run of the backend that trains it (imported only when used: RLlib's needs Ray)
BACKENDS = {"native": "training.trainer:Trainer", "rllib": "training.rllib.trainer:RLlibRun"}
# backends whose checkpoints hold their whole state; RLlib keeps its own in rllib_checkpoint/
RESUMABLE = ("native",)
# the policy right after a run's warm start, in its checkpoints/: another run may start from it (init=...)
WARM_START = "warm_start.pt"
CURVE_EVERY_S = 300  # the curve costs about a second to draw: at the end, and at most this often before


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the message says where the last checkpoint is and how to resume."""


@dataclass(frozen=True)
class Seeds:
    """Every random stream of a run, derived from `config.seed` by one formula that every backend uses;
    recorded in summary.json, and each evaluation's seed in its eval.json entry."""

    seed: int

    @property
    def network(self) -> int:
        """torch.manual_seed before the network is built (RLlib: its `debugging(seed=...)`)."""
        return self.seed

    @property
    def minibatches(self) -> list[int]:
        """numpy: minibatch order of the updates and of the warm start."""
        return [self.seed, 1]

    @property
    def games(self) -> list[int]:
        """numpy: deals, opponent draws and sampled actions of the training games (native)."""
        return [self.seed, 2]

    @property
    def warm_start(self) -> int:
        """The scripted games recorded for the warm start (pretrain.games)."""
        return self.seed + 12345

    def evaluation(self, iteration: int) -> int:
        """The evaluation after `iteration` iterations (0: the one at step 0)."""
        return self.seed * 7919 + iteration

    def record(self) -> dict:
        return {
            "seed": self.seed,
            "network": self.network,
            "minibatches": self.minibatches,
            "games": self.games,
            "warm_start": self.warm_start,
            "evaluation": f"{self.seed} * 7919 + iteration",
        }


def run_game(config: TrainConfig) -> GameInfo:
    """The config checked against its game, before a backend builds anything: the game and its options,
    the evaluation games' options, a warm start's scripted baseline, cell or seat heads on a game
    without such action blocks."""
    config.validate()
    info = game_info(config.game, config.game_config)
    evaluation_info(info, config.eval.game_config)  # a bad eval.game_config fails now, not later
    if config.net.cells and not info.net_shape.cell_blocks:
        raise ConfigError("net.cells=true, but this game has no action block laid over a grid's cells")
    if config.net.seats and not info.net_shape.seat_blocks:
        raise ConfigError("net.seats=true, but this game has no action block of seats")
    if config.opponents.fixed:
        PLAYERS.check(config.opponents.fixed_player, noun="opponents.fixed_player")  # names what it can be
    check_fixed_seats(config.opponents, info)
    if config.pretrain.games and info.spec.scripted_policy is None:
        raise ConfigError(f"pretrain.games needs a scripted baseline; {info.spec.name} has none")
    if config.teacher.coef and info.spec.scripted_policy is None:
        raise ConfigError(f"teacher.coef needs a scripted baseline; {info.spec.name} has none")
    if config.expert.games and config.net.kind == "gru":
        raise ConfigError(
            "expert.games needs a feed-forward network (net.kind mlp or layout): the search starts from "
            "positions, and a recurrent network's memory of the game so far is not part of one"
        )
    return info


def check_fixed_seats(opponents, info) -> None:
    """opponents.fixed_seats seats the fixed player among others: in a free-for-all game, on fewer seats
    than the learner leaves, beside a baseline the game has."""
    k = opponents.fixed_seats
    if not k:
        return
    if info.num_teams < info.num_players:
        raise ConfigError(
            f"opponents.fixed_seats={k}: {info.spec.name} is played by teams, and the fixed player "
            "takes the learner's opponents' whole side (use 0)"
        )
    if k >= info.num_players - 1:
        raise ConfigError(
            f"opponents.fixed_seats={k} must be below the {info.num_players - 1} seats the learner leaves "
            "(0 seats the fixed player on all of them)"
        )
    if opponents.fixed_among == "scripted" and info.spec.scripted_policy is None:
        raise ConfigError(
            f"opponents.fixed_among=scripted needs a scripted baseline; {info.spec.name} has none"
        )


def prepare_run_dir(run_dir: Path, overwrite: bool, resumable: bool = True) -> None:
    """A fresh run's directory. One that holds a run's checkpoints is refused unless `overwrite`; then the
    files a run writes (RUN_FILES) are removed, and nothing else."""
    checkpoints = run_dir / "checkpoints"
    if ckpt.checkpoint_files(checkpoints) and not overwrite:  # (a write cut short, *.pt.tmp, is none)
        how = f"resume with `--resume {run_dir}` or " if resumable else ""
        raise FileExistsError(
            f"run directory {str(run_dir)!r} already holds checkpoints; {how}pick another run_dir=... "
            "(or --overwrite)"
        )
    for name in RUN_FILES:
        path = run_dir / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()  # a link goes, never what it points to


class Backend(ABC):
    """A way to train, as the `Run` sees it: its iteration and its policy.

    A backend's __init__ sets `config` and `info` (`run_game(config)`) and builds what it trains. It
    knows nothing of the `Run` that drives it: whatever of the run it needs comes in as arguments."""

    name = "native"  # its config.backend
    config: TrainConfig
    info: GameInfo
    iteration: int = 0  # iterations done
    decisions: int = 0  # learner decisions so far: total_steps counts these

    @abstractmethod
    def iterate(self) -> dict[str, float]:
        """One iteration (play, learn); returns the scalars to log at its decision count. Keys
        `live_win_rate/<kind>` also show on the progress bar."""

    @abstractmethod
    def policy(self):
        """The current policy as a `PolicyNet`: evaluated, and saved in every checkpoint."""

    @abstractmethod
    def state_dict(self) -> dict:
        """What a checkpoint keeps beside the policy to continue the run (see `load`)."""

    def load(self, data: dict, state: dict) -> None:
        """Continue from a checkpoint (`data`) and its trainer state."""
        raise ckpt.CheckpointError(f"backend={self.name} cannot resume a run")

    def imitate(self, data: dict) -> dict:
        """The warm start: behaviour cloning of recorded scripted games (`pretrain.collect_scripted`) on
        the policy; returns its statistics."""
        raise ConfigError(f"backend={self.name} has no warm start (pretrain.games)")

    def start_from(self, net) -> None:
        """config.init: the policy takes the weights of `net` (a `PolicyNet` of the same shape)."""
        raise ConfigError(f"backend={self.name} cannot start from a checkpoint (init)")

    def workers(self):
        """Worker processes (`envs.core.workers.Workers` hosting `training.workers.GameWorker`s) on which
        the run plays its evaluations and warm start; None: in this process."""
        return None

    def open(self, run_dir: Path) -> None:  # noqa: B027 (an optional hook)
        """Acquire what training in `run_dir` needs beyond the backend's own objects (RLlib: Ray, the
        Algorithm)."""

    def close(self) -> None:  # noqa: B027 (an optional hook)
        """Release it, however the run ended."""

    def finish(self) -> None:  # noqa: B027 (an optional hook)
        """The end of training, after the final checkpoints: anything the backend saves of its own."""

    def summary(self) -> dict:
        """The backend's own entries of summary.json."""
        return {}


class Run:
    """The lifecycle of one run of `backend`; `train()` runs it to `total_steps` learner decisions."""

    def __init__(
        self,
        backend: Backend,
        run_dir: str | Path | None = None,
        overwrite: bool = False,
        resume_from: dict | None = None,
        log: bool = True,
    ):
        self.backend = backend
        self.config, self.info = backend.config, backend.info
        self.seeds = Seeds(self.config.seed)
        self.run_dir = Path(run_dir) if run_dir is not None else self.config.resolved_run_dir()
        self.log = log
        self.history: list[dict] = []  # evaluations
        self.wall = 0.0  # seconds of training, over every resume
        self.pretrained = False
        self.pretrain_stats: dict = {}
        self.init: dict = {}  # config.init's checkpoint, as read: path, iteration, decisions
        self.start_weights = ""  # checksum of the weights the run began from (after warm start or init)
        self._init_net = None  # its network, until the run starts from it
        self.last_checkpoint: tuple[Path, int, int] | None = None  # (path, iteration, decisions)
        self._last_plot = time.perf_counter()
        self._open: list = []
        if resume_from is None:
            if self.config.init:  # read first: it may lie in the run directory that is cleared next
                self._init_net, self.init = init_policy(self.config, self.info)
            prepare_run_dir(self.run_dir, overwrite, backend.name in RESUMABLE)
        else:
            self._resume(resume_from)

    # ----- the loop ---------------------------------------------------------------------------
    @property
    def iteration(self) -> int:
        """The backend's iterations done."""
        return self.backend.iteration

    @property
    def decisions(self) -> int:
        """The backend's learner decisions so far (total_steps counts these)."""
        return self.backend.decisions

    @property
    def finished(self) -> bool:
        """The run has reached total_steps (a resumed finished run: train() does nothing)."""
        return self.backend.decisions >= self.config.total_steps

    def train(self) -> dict:
        """Train to total_steps; a run that has already finished is left as it is. Ctrl-C raises
        Interrupted, whose message says where the last checkpoint is and how to resume."""
        if self.finished and self.history:
            return self._summary(self.history[-1]) | {"already_finished": True}
        self._open = []  # the bar and the TensorBoard writer, closed however the run ends
        try:
            self.backend.open(self.run_dir)
            return self._train()
        except KeyboardInterrupt:
            b = self.backend
            raise Interrupted(
                f"training interrupted at {b.decisions} decisions (iteration {b.iteration}); "
                + self.resume_hint()
            ) from None
        finally:
            for thing in self._open:
                thing.close()
            self.backend.close()

    def _train(self) -> dict:
        cfg, backend = self.config, self.backend
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        writer = open_writer(self.run_dir, self.log, purge_step=backend.decisions or None)
        self._open = [x for x in (writer,) if x is not None]
        if backend.iteration == 0 and backend.decisions == 0 and not self.history:
            self._start(writer)
        bar = progress_bar(cfg.progress, cfg.total_steps, backend.decisions, self._title())
        self._open += [bar] if bar is not None else []
        start = time.perf_counter()
        last_time, last_decisions = start, backend.decisions
        while backend.decisions < cfg.total_steps:
            stats = backend.iterate()
            now = time.perf_counter()
            stats["speed/decisions_per_s"] = (backend.decisions - last_decisions) / max(now - last_time, 1e-9)
            last_time, last_decisions = now, backend.decisions
            self._log(writer, bar, stats)
            done = backend.decisions >= cfg.total_steps
            if self._due(cfg.eval.every) and not done:
                self._evaluate(writer)
            if self._due(cfg.checkpoint_every) and not done:
                self.wall += time.perf_counter() - start
                start = time.perf_counter()
                self.save("latest.pt")
                self.save(f"iter_{backend.iteration:05d}.pt")
                self._drop_old_checkpoints()
        self.wall += time.perf_counter() - start
        entry = self._evaluate(writer, final=True)
        self.save("latest.pt")
        self.save("final.pt")
        backend.finish()
        summary = self._summary(entry)
        (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
        if bar is not None:
            bar.set_description_str(f"{self.info.spec.name} finished", refresh=False)
        return summary

    def _due(self, every: int) -> bool:
        return bool(every) and self.backend.iteration % every == 0

    def _title(self) -> str:
        name = self.info.spec.name
        return name if self.backend.name == "native" else f"{name} ({self.backend.name})"

    def _start(self, writer) -> None:
        """A fresh run: the policy of config.init, or else the optional warm start (kept as
        checkpoints/warm_start.pt), then an evaluation at step 0 (where curves begin)."""
        if self._init_net is not None:
            self.backend.start_from(self._init_net)
            self._init_net = None
        elif self.config.pretrain.games:
            self.warm_start(writer)
        # which weights PPO begins from: runs that share them may be averaged (training/soup.py)
        self.start_weights = ckpt.tensors_sha256(self.backend.policy().state_dict())
        if self.pretrained:
            self.save(WARM_START)
        if self.config.eval.every or self.pretrained or self.init:
            entry = self.evaluate()
            if self.pretrained:
                entry["after_pretraining"] = True
            if self.init:
                entry["init"] = self.init["path"]
            log_eval(writer, entry)
            self._write_eval()

    def warm_start(self, writer=None) -> dict:
        """pretrain.games > 0: the backend imitates the scripted baseline's recorded games, once."""
        p = self.config.pretrain
        if not p.games or self.pretrained:
            return self.pretrain_stats
        from .pretrain import collect_on_workers, collect_scripted

        uses_state = self.backend.policy().uses_state
        began = time.perf_counter()
        workers = self.backend.workers()
        if workers is None:
            data = collect_scripted(
                self.info,
                p.games,
                self.seeds.warm_start,
                uses_state,
                p.random_opponents,
                self.config.progress,
            )
        else:  # (the workers record their shares without bars)
            data = collect_on_workers(
                self.info, workers, p.games, self.seeds.warm_start, uses_state, p.random_opponents
            )
        stats = self.backend.imitate(data)
        stats["pretrain/decisions"] = len(data["action"])
        # summary.json's wall_seconds counts the PPO iterations only; the warm start's time is here
        stats["pretrain/seconds"] = round(time.perf_counter() - began, 1)
        self.pretrained, self.pretrain_stats = True, stats
        if writer is not None:
            for k, v in stats.items():
                writer.add_scalar(k, v, 0)
        return stats

    def _log(self, writer, bar, stats: dict) -> None:
        step = self.backend.decisions
        if writer is not None:
            for k, v in stats.items():
                writer.add_scalar(k, v, step)
        if bar is not None:
            bar.update(step - bar.n)
            live = {
                f"win_{k.removeprefix('live_win_rate/')}": f"{v:.2f}"
                for k, v in stats.items()
                if k.startswith("live_win_rate/")
            }
            bar.set_postfix(live | {"sps": f"{stats['speed/decisions_per_s']:.0f}"})

    def _summary(self, entry: dict) -> dict:
        b = self.backend
        return {
            "run_dir": str(self.run_dir),
            "backend": b.name,
            "iterations": b.iteration,
            "decisions": b.decisions,
            "wall_seconds": round(self.wall, 1),
            "seeds": self.seeds.record(),
            "pretrain": self.pretrain_stats,
            "init": self.init,
            "start_weights": self.start_weights,
            "environment": environment(),
            **b.summary(),
            "final_eval": entry,
        }

    # ----- evaluation ------------------------------------------------------------------------
    def evaluate(self, games: int | None = None) -> dict:
        """The policy against the configured opponents (eval.*), added to the history."""
        b = self.backend
        cfg = dataclasses.replace(self.config.eval, games=games or self.config.eval.games)
        seed = self.seeds.evaluation(b.iteration)
        has_scripted = self.info.spec.scripted_policy is not None
        entry = evaluation_entry(
            self.info, b.policy(), cfg, seed, has_scripted, b.iteration, b.decisions, b.workers()
        )
        entry["seed"] = seed
        self.history.append(entry)
        return entry

    def _evaluate(self, writer, final: bool = False) -> dict:
        entry = self.evaluate()
        log_eval(writer, entry)
        self._write_eval(final)
        return entry

    def _write_eval(self, final: bool = False) -> None:
        curve = final or time.perf_counter() - self._last_plot >= CURVE_EVERY_S
        if curve:
            self._last_plot = time.perf_counter()
        write_history(self.run_dir, self.history, self.config.game, curve)

    # ----- checkpoints and resume -----------------------------------------------------------------
    def state_dict(self) -> dict:
        """A checkpoint's trainer state: the run's part, then the backend's."""
        run = {"backend": self.backend.name, "history": self.history, "wall": self.wall}
        start = {
            "pretrained": self.pretrained,
            "pretrain_stats": self.pretrain_stats,
            "init": self.init,
            "start_weights": self.start_weights,
        }
        return run | start | self.backend.state_dict()

    def save(self, name: str = "latest.pt") -> Path:
        b = self.backend
        path = self.run_dir / "checkpoints" / name
        saved = ckpt.save_checkpoint(
            path, b.policy(), self.config, self.info, b.iteration, b.decisions, self.state_dict()
        )
        if name in ("latest.pt", WARM_START):  # (the warm start's: a run stopped before its first checkpoint)
            self.last_checkpoint = (saved, b.iteration, b.decisions)
        return saved

    def _drop_old_checkpoints(self) -> None:
        """keep_checkpoints > 0: the iter_*.pt files beyond the newest that many are deleted."""
        keep = self.config.keep_checkpoints
        if keep:
            numbered = {}  # iteration -> file (by number: iter_100000 comes after iter_99999)
            for path in (self.run_dir / "checkpoints").glob("iter_*.pt"):
                if re.fullmatch(r"iter_\d+\.pt", path.name):
                    numbered[int(path.stem[len("iter_") :])] = path
            for iteration in sorted(numbered)[:-keep]:
                numbered[iteration].unlink(missing_ok=True)

    def _resume(self, data: dict) -> None:
        self._refuse_another_runs_directory(data)
        ckpt.remove_partial_writes(self.run_dir / "checkpoints")  # left by a kill mid-write
        ckpt.check_compatible(data, self.info, self.config.game, "this run's game")
        state = ckpt.trainer_state(data)
        refuse_unresumable(data, state)
        self.backend.load(data, state)
        self.history = state["history"]
        self.wall = state["wall"]
        self.pretrained = state.get("pretrained", False)
        self.pretrain_stats = state.get("pretrain_stats", {})  # (summary.json's "pretrain" after a resume)
        self.init = state.get("init", {})
        self.start_weights = state.get("start_weights", "")
        self.last_checkpoint = (Path(data["path"]), self.backend.iteration, self.backend.decisions)

    def _refuse_another_runs_directory(self, data: dict) -> None:
        """Resuming writes run_dir/checkpoints/latest.pt: never over another game's run."""
        latest = self.run_dir / "checkpoints" / "latest.pt"
        if not latest.is_file() or latest.resolve() == Path(data["path"]).resolve():
            return  # (resuming the run's own latest checkpoint: `check_compatible` says what differs)
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

    def resume_hint(self) -> str:
        """Where the last checkpoint is and the command that continues from it."""
        if self.last_checkpoint is None:
            return (
                f"no checkpoint was written yet (one every checkpoint_every={self.config.checkpoint_every} "
                "iterations): nothing to resume, start the run again"
            )
        path, iteration, decisions = self.last_checkpoint
        where = f"the last checkpoint is {path} (iteration {iteration}, {decisions} decisions)"
        if self.backend.name not in RESUMABLE:
            return (
                f"{where}: it holds the policy (evaluate, rate and play load it); "
                f"backend={self.backend.name} runs cannot be resumed"
            )
        target = str(self.run_dir)
        if path.resolve() != (self.run_dir / "checkpoints" / "latest.pt").resolve():
            target = f"{path} run_dir={self.run_dir}"
        return f"{where}; resume with: python -m training train --resume {target}"


def init_policy(config: TrainConfig, info: GameInfo) -> tuple:
    """config.init's network and where it came from ({path, iteration, decisions}): a checkpoint of the
    run's game whose network is the config's, read as data (`checkpoint.read_checkpoint`)."""
    data = ckpt.read_checkpoint(config.init, info)
    ckpt.check_played(data, info, f"this run (init={config.init})")
    differ = ckpt.net_differences(ckpt.stored_config(data).net, config.net)
    if differ:
        raise ConfigError(
            f"init={config.init}: its network is not this config's (" + "; ".join(differ) + "); give the "
            "run the checkpoint's net options"
        )
    where = {
        "path": str(data["path"]),
        "iteration": data.get("iteration"),
        "decisions": data.get("decisions"),
    }
    return ckpt.net_from(data, config.net), where  # (the same net options: checked above)


def refuse_unresumable(data: dict, state: dict) -> None:
    """Raise CheckpointError for a checkpoint whose backend keeps its state elsewhere (RLlib)."""
    trained = state.get("backend", "native") if isinstance(state, dict) else "native"
    if trained in RESUMABLE:
        return
    where = ""
    if state.get("rllib_checkpoint"):
        where = (
            f"; RLlib's own state is in {state['rllib_checkpoint']} "
            "(ray.rllib.algorithms.algorithm.Algorithm.from_checkpoint)"
        )
    raise ckpt.CheckpointError(
        f"checkpoint {data['path']!r} was trained with backend={trained}: it cannot be resumed "
        f"(evaluate, rate and play load its policy){where}"
    )


def run_class(name: str) -> type[Run]:
    """The Run of config.backend `name` (RLlib's needs ray[rllib])."""
    module, attr = BACKENDS[name].split(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as exc:
        if name == "native":
            raise
        raise ConfigError(
            f"backend={name} needs ray[rllib] ({exc}); install it with: pip install '.[distributed]'"
        ) from None


def start(config: TrainConfig, run_dir=None, overwrite: bool = False, log: bool = True) -> Run:
    """A fresh run of `config` with its backend (config.backend)."""
    return run_class(config.backend)(config, run_dir=run_dir, overwrite=overwrite, log=log)


def resume(path: str | Path, overrides: dict | None = None, run_dir=None, log: bool = True) -> Run:
    """A run continuing from a checkpoint (or a run directory's latest checkpoint); `overrides`
    (key -> value) apply on top of its config, e.g. {"total_steps": 400000} to train longer."""
    data = ckpt.read_checkpoint(path)
    refuse_unresumable(data, ckpt.trainer_state(data))
    config_dict = data["train_config"]
    if overrides:
        config_dict = apply_overrides(config_dict, [f"{k}={v}" for k, v in overrides.items()])
    config = from_dict(config_dict)
    if run_dir is None:  # the checkpoint's own run, unless a run_dir=... override names another
        run_dir = config.run_dir if overrides and "run_dir" in overrides else Path(data["path"]).parent.parent
    return run_class(config.backend)(config, run_dir=run_dir, resume_from=data, log=log)
