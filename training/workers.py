"""Rollout workers: a run's games, its evaluations and its warm start spread over processes.

With `workers=N > 1` a run starts N processes (`envs.core.workers.Workers`), each hosting a
`RolloutWorker` with its share of the `ppo.num_envs` games. Each worker steps its games and runs the
networks of its seats itself - the learner, the snapshots it seats, the scripted players, random play -
on its own copy of the weights, synced at the start of every iteration; it hands back the learner's
decisions with their advantages (GAE over each seat's own chain, as `training.runner` computes them)
and the finished games' outcomes, which update the pool's statistics in the trainer. Inference on each
worker was measured faster on CPUs than batching every worker's decisions in the trainer's process
(`benchmarks/workers.py`): no round trip per decision, and every core busy with engines and inference
alike while the trainer's process waits.

The same workers play the evaluations (`evaluate.match(..., workers=)`: each plays a contiguous share
of the games) and record the warm start's scripted games (`pretrain.collect_scripted`).

Reproducible: worker w of N draws from its own stream (the run's seed, N, w), so a fixed N gives the
same run; N = 1 keeps everything in the trainer's process, the results of earlier versions bit for bit.
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import time

import numpy as np
import torch

from envs.core.workers import SharedArrays, WorkerError, Workers, split, stream

from .actors import NetActor
from .checkpoint import CheckpointError
from .config import from_dict
from .evaluate import play_games, search_spent
from .expert import play_round
from .games import game_info, spec_info
from .nets import PolicyNet
from .pool import OpponentPool
from .pretrain import collect_scripted
from .runner import Batch, Runner, chain_layout
from .seating import Seating, opponent_actors


class GameWorker:
    """A worker's game: evaluation games and warm-start games for any share the trainer hands it."""

    def __init__(self, game: str, game_config: dict, imports: tuple[str, ...] = ()):
        # the modules the user named (--import: e.g. ones that register players of their own), then
        # the game, whose name the trainer's process resolved already: its module may be imported here
        for module in imports:
            importlib.import_module(module)
        self.info = game_info(game, game_config, may_import=True)
        self._scored: dict[str, object] = {}

    def scored(self, game_config: dict):
        """The game as an evaluation scores it (eval.game_config on top of the training options)."""
        key = repr(sorted(game_config.items()))
        if key not in self._scored:
            self._scored[key] = spec_info(self.info.spec, dict(game_config))
        return self._scored[key]

    def play(self, game_config: dict, players: bytes, games: range, seed, num_envs: int, greedy: bool):
        """Games `games` of a `match` (see `training.evaluate.play_games`), their results and the
        seconds and decisions each player searched for them; the players arrive pickled by value
        (networks with their weights)."""
        player_a, player_b, metrics, mixed = pickle.loads(players)  # (sent by the trainer's own process)
        info = self.scored(game_config)
        before = search_spent((player_a, player_b))
        with torch.no_grad():
            results = play_games(
                info,
                player_a,
                player_b,
                games,
                np.random.default_rng(seed),
                num_envs,
                greedy,
                metrics,
                mixed=mixed,
            )
        after = search_spent((player_a, player_b))
        searched = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(before, after)]  # this share's searching
        if player_b is player_a:  # one player in both seats: its searching is counted once
            searched[1] = (0.0, 0)
        return {"results": results, "searched": searched}

    def record_scripted(self, games: int, seed, uses_state: bool, random_share: float):
        """The warm start's scripted games of this worker's share (`pretrain.collect_scripted`)."""
        return collect_scripted(self.info, games, seed, uses_state, random_share)

    def play_expert_round(self, round_: bytes, games: int, seed, reward_scale: float, uses_state: bool):
        """This worker's share of an expert-iteration round (`training.expert.play_round`); the policy
        and the `expert` options arrive pickled by value from the trainer's own process."""
        policy, cfg = pickle.loads(round_)
        with torch.no_grad():
            return play_round(self.info, policy, cfg, reward_scale, games, seed, uses_state)


def game_workers(count: int, game: str, game_config: dict, imports=()) -> Workers | None:
    """`count` processes hosting a `GameWorker` each, for evaluations, warm starts and expert rounds
    (None for `count` <= 1: play in this process)."""
    if count <= 1:
        return None
    return Workers(GameWorker, [(game, dict(game_config), tuple(imports))] * count)


class RolloutWorker(GameWorker):
    """A worker's share of a run's training games: a Runner over `num_envs` games with its own stream,
    the learner and the opponents it seats (a replica of the trainer's pool, synced every iteration)."""

    def __init__(self, config: dict, index: int, count: int, num_envs: int, games_seed: int):
        cfg = from_dict(config)
        super().__init__(cfg.game, cfg.game_config)
        info = self.info
        self.config = cfg
        self.net = self._network()
        self.pool = OpponentPool(cfg.opponents, info)
        self.actors = {"learner": NetActor(self.net, name="learner"), **opponent_actors(cfg, info)}
        self.outcomes: list = []
        self.seating = Seating(info, self.pool, self.actors, self._network, self.outcomes.append)
        p = cfg.ppo
        self.runner = Runner(
            info,
            num_envs,
            np.random.default_rng(stream(games_seed, count, index)),
            self.actors,
            self.seating.assign,
            self.seating.on_episode,
            record=True,
            capacity=num_envs * p.rollout_steps,
            reward_scale=p.reward_scale,
        )
        self.shared = share_buffer(self.runner.buf)

    def shared_buffer(self) -> tuple[str, dict]:
        """The name and layout of the shared block this worker's rollouts are written into."""
        return self.shared.name, self.shared.layout

    def close(self) -> None:  # (called as the worker stops)
        self.shared.close()

    def _network(self) -> PolicyNet:
        info = self.info
        return PolicyNet(info.net_shape, self.config.net).eval()

    def sync(self, update: dict) -> None:
        """The learner's weights and the pool as the trainer holds them now (`ParallelRunner._sync`)."""
        self.net.load_state_dict(as_tensors(update["learner"]))
        pool, new = self.pool, update["snapshots"]
        pool.snapshots = {i: pool.snapshots.get(i) or as_tensors(new[i]) for i in update["pool_ids"]}
        stats = {"snapshots": pool.snapshots, "stats": update["pool_stats"], "next_id": update["next_id"]}
        pool.load_state_dict(stats)
        self.seating.prune(self.runner.keys)

    def collect(self, update: dict, steps: int, gamma: float, lam: float) -> dict:
        """One iteration's rollout of this worker's games, after syncing the weights."""
        began = time.perf_counter()
        self.sync(update)
        self.outcomes.clear()
        runner = self.runner
        decisions, all_decisions = runner.decisions, runner.all_decisions
        batch = runner.collect(steps, gamma, lam, views=SHARED_FIELDS)
        fields = {
            f.name: getattr(batch, f.name) for f in dataclasses.fields(batch) if f.name not in SHARED_FIELDS
        }
        return {
            "batch": fields,  # the shared fields are rows 0..len(action) of the shared block
            "outcomes": list(self.outcomes),
            "decisions": runner.decisions - decisions,  # this rollout's (the run counts them)
            "all_decisions": runner.all_decisions - all_decisions,
            "seconds": time.perf_counter() - began,  # this worker's own time (benchmarks/workers.py)
        }

    def state_dict(self) -> dict:
        return {"runner": self.runner.state_dict(), "seated": self.seating.seated_snapshots()}

    def load_state_dict(self, update: dict, state: dict) -> None:
        self.sync(update)
        self.runner.load_state_dict(state["runner"])
        self.seating.reseat(self.runner.keys, state["seated"])


# the large per-decision fields of a rollout: written by the worker into shared memory, read by the
# trainer from there (the rest travels with the worker's answer)
SHARED_FIELDS = ("obs", "state", "mask", "hbefore")


def share_buffer(buf) -> SharedArrays:
    """Move the large fields of a rollout buffer into a new block of shared memory."""
    layout = {f: (getattr(buf, f).shape, getattr(buf, f).dtype) for f in SHARED_FIELDS}
    shared = SharedArrays(layout)
    for f in SHARED_FIELDS:
        shared.arrays[f][...] = getattr(buf, f)
        setattr(buf, f, shared.arrays[f])
    return shared


class ParallelRunner:
    """The Runner's face (collect, decisions, state) over rollout workers: worker w steps games
    `slots[w]` of the run's `ppo.num_envs`. `report(outcome)` hears every finished game."""

    def __init__(self, config, info, net: PolicyNet, pool: OpponentPool, report, games_seed: int):
        self.config, self.info, self.net, self.pool, self.report = config, info, net, pool, report
        count = config.workers
        self.slots = split(config.ppo.num_envs, count)
        self.num_envs = config.ppo.num_envs
        self.keys: list = []  # the trainer's process seats no games itself
        self.decisions = self.all_decisions = 0
        self.worker_seconds: list[float] = []  # each worker's own time in the last rollout
        self.workers: Workers | None = None
        self.shared: list[SharedArrays] = []  # each worker's rollout buffer, attached
        self._args = [(config.to_dict(), w, count, len(self.slots[w]), games_seed) for w in range(count)]
        self._sent: set = set()  # snapshot ids every worker holds
        self._pending: list | None = None  # worker states of a resume, loaded when the workers start

    def start(self) -> Workers:
        """The worker processes (started on first use; `close()` stops them)."""
        if self.workers is None:
            self.workers = Workers(RolloutWorker, self._args, threads=1)
            self.shared = [SharedArrays(layout, name) for name, layout in self.workers.call("shared_buffer")]
            self._sent = set()
            if self._pending is not None:
                update = self._sync()
                self.workers.call("load_state_dict", [(update, s) for s in self._pending])
                self._pending = None
        return self.workers

    def close(self) -> None:
        """Stop the workers, keeping their games in progress for the next start (as one process keeps
        its games between two `train()` calls)."""
        if self.workers is not None:
            try:
                self._pending = self.workers.call("state_dict")
            except WorkerError:  # a worker died: its games are lost, the next start deals fresh ones
                self._pending = None
            for shared in self.shared:
                shared.close()
            self.workers.close()
            self.workers, self.shared = None, []

    def _sync(self) -> dict:
        """What every worker needs from the trainer before it plays: the learner's weights, the pool's
        statistics, and the weights of the snapshots it does not hold yet."""
        pool = self.pool
        new = {i: w for i, w in pool.snapshots.items() if i not in self._sent}
        self._sent = set(pool.snapshots)
        state = pool.state_dict()
        return {
            "learner": as_arrays(self.net.state_dict()),
            "snapshots": {i: as_arrays(w) for i, w in new.items()},
            "pool_ids": sorted(pool.snapshots),
            "pool_stats": state["stats"],
            "next_id": state["next_id"],
        }

    def collect(self, steps: int, gamma: float, lam: float) -> Batch:
        workers = self.start()
        update = self._sync()
        replies = workers.call("collect", [(update, steps, gamma, lam)] * len(workers))
        for reply in replies:
            for outcome in reply["outcomes"]:
                self.report(outcome)
        self.decisions += sum(r["decisions"] for r in replies)
        self.all_decisions += sum(r["all_decisions"] for r in replies)
        self.worker_seconds = [r["seconds"] for r in replies]
        parts = []
        for reply, shared in zip(replies, self.shared):
            rows = len(reply["batch"]["action"])
            parts.append(reply["batch"] | {f: shared.arrays[f][:rows] for f in SHARED_FIELDS})
        return merge_batches(parts, [s.start for s in self.slots], self.info.num_players)

    def state_dict(self) -> dict:
        states = self.start().call("state_dict")
        return {"workers": states, "decisions": self.decisions, "all_decisions": self.all_decisions}

    def load_state_dict(self, state: dict) -> None:
        if len(state.get("workers", [])) != len(self.slots):
            raise CheckpointError(
                f"this checkpoint's games in progress were played by {len(state.get('workers', [])) or 1} "
                f"worker(s); resume it with workers={len(state.get('workers', [])) or 1}"
            )
        self.decisions, self.all_decisions = state["decisions"], state["all_decisions"]
        self._pending = state["workers"]


def as_arrays(state_dict: dict) -> dict:
    """Weights as numpy arrays, which travel to the workers through shared memory (tensors would be
    pickled into bytes)."""
    return {k: v.detach().cpu().numpy() for k, v in state_dict.items()}


def as_tensors(arrays: dict) -> dict:
    return {k: torch.from_numpy(v) for k, v in arrays.items()}


def merge_batches(parts: list[dict], first_slots: list[int], num_players: int) -> Batch:
    """The workers' rollouts as one Batch: rows worker by worker, each worker's chains (game slot x
    seat, its own slots) renumbered to the run's slots, and the chain layout made anew."""
    fields = {}
    for f in dataclasses.fields(Batch):
        if f.name in ("layout", "teacher", "aux_target"):
            continue
        fields[f.name] = np.concatenate([p[f.name] for p in parts])
    offsets = [np.full(len(p["chain"]), first * num_players) for p, first in zip(parts, first_slots)]
    fields["chain"] = fields["chain"] + np.concatenate(offsets).astype(np.int64)
    return Batch(**fields, layout=chain_layout(fields["chain"]))
