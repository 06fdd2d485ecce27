"""Many games stepped at once through the engine contract, with batched policy inference.

Every active game makes one decision per vector step, whoever's turn it is. Decisions are grouped by
the actor playing that seat (the learner, a snapshot, the scripted baseline, random play) and each
network group is one batched forward pass.

Turn-based credit assignment: a learner decision of seat s stays *pending* until s decides again (or
the game ends); every reward paid to s in between - the end of the game included - is added to it.
A pending decision at the end of a rollout is carried into the next rollout (its log-probability and
value stay those of the policy that acted), so every reward lands on the decision that earned it and
no value bootstrap from a non-decision state is needed. GAE then runs over each seat's own chain of
decisions (chain = game slot x seat), see `compute_gae`.

Truncation: a game that reaches its length limit without ending (`game.is_truncated()`) is stopped.
Its pending decisions are not losses and not terminal zeros: each is marked `truncated` and
bootstrapped from the learner critic's value of its seat's observation at the cut (`boot`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from .actors import RandomActor
from .checkpoint import CheckpointError


class Buffer:
    """Preallocated rollout storage; one row per learner decision."""

    FIELDS = (
        "obs",
        "state",
        "mask",
        "action",
        "logp",
        "value",
        "reward",
        "done",
        "truncated",
        "boot",
        "start",
        "chain",
        "hbefore",
    )

    def __init__(self, capacity: int, obs_dim: int, num_actions: int, state_dim: int, hidden: int):
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_dim), np.float32)
        self.state = np.zeros((capacity, state_dim), np.float32)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.logp = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, bool)  # the seat's last decision in its game (ended or cut)
        self.truncated = np.zeros(capacity, bool)  # ... and the game was cut at its length limit
        self.boot = np.zeros(capacity, np.float32)  # then: the critic's value of the seat at the cut
        self.start = np.zeros(capacity, bool)
        self.chain = np.zeros(capacity, np.int64)
        self.hbefore = np.zeros((capacity, hidden), np.float32)
        self.n = 0

    def take(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return {f: getattr(self, f)[rows].copy() for f in self.FIELDS}

    def put(self, data: dict[str, np.ndarray]) -> np.ndarray:
        k = len(data["action"])
        rows = np.arange(self.n, self.n + k)
        for f in self.FIELDS:  # (decisions carried in older checkpoints lack the newer fields)
            getattr(self, f)[rows] = data.get(f, 0)
        self.n += k
        return rows


@dataclass
class Batch:
    """One rollout, rows in decision order; `trainable` excludes decisions still pending."""

    obs: np.ndarray
    state: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    truncated: np.ndarray
    boot: np.ndarray
    start: np.ndarray
    chain: np.ndarray
    hbefore: np.ndarray
    advantage: np.ndarray
    returns: np.ndarray
    trainable: np.ndarray
    layout: np.ndarray  # [L, C] row index per (position in chain, chain), -1 = padding
    teacher: np.ndarray | None = None  # the scripted baseline's action per row (-1: none), see TeacherConfig
    aux_target: np.ndarray | None = None  # the state as each row's seat sees it, see NetConfig.aux_state

    def __len__(self) -> int:
        return len(self.action)


def chain_layout(chain: np.ndarray) -> np.ndarray:
    """[L, C] matrix of row indices: column c lists chain c's rows in decision order, padded with -1."""
    n = len(chain)
    if n == 0:
        return np.zeros((0, 0), np.int64)
    order = np.argsort(chain, kind="stable")
    _, first, counts = np.unique(chain[order], return_index=True, return_counts=True)
    pos = np.arange(n) - np.repeat(first, counts)
    col = np.repeat(np.arange(len(counts)), counts)
    layout = np.full((counts.max(), len(counts)), -1, np.int64)
    layout[pos, col] = order
    return layout


def compute_gae(chain, reward, value, done, gamma: float, lam: float, truncated=None, boot=None):
    """GAE over each seat's own decisions.

    Row i's successor is the next row of the same chain. delta_i = r_i + gamma * V(succ) * (not done_i)
    - V_i, A_i = delta_i + gamma * lam * (not done_i) * A_succ. A done row that is also `truncated`
    (its game was cut at the length limit) bootstraps: delta_i = r_i + gamma * boot_i - V_i, with
    boot_i the value of the seat's state at the cut. A row that is not done and has no
    successor is still pending (its outcome is not known yet): it gets advantage 0, is not
    trainable, and is not used as a successor. Returns (advantage, returns, trainable, layout).
    """
    n = len(chain)
    if truncated is not None:
        reward = np.where(truncated, reward + gamma * np.asarray(boot, np.float64), reward)
    layout = chain_layout(np.asarray(chain))
    adv = np.zeros(n, np.float32)
    trainable = np.zeros(n, bool)
    if n == 0:
        return adv, adv.copy(), trainable, layout
    length, width = layout.shape
    valid = layout >= 0
    safe = np.where(valid, layout, 0)
    v = np.where(valid, value[safe], 0.0)
    r = np.where(valid, reward[safe], 0.0)
    d = np.where(valid, done[safe], True)
    next_adv = np.zeros(width)
    next_val = np.zeros(width)
    next_ok = np.zeros(width, bool)
    for t in range(length - 1, -1, -1):
        known = valid[t] & (d[t] | next_ok)  # done, or the successor is in this batch
        cont = (~d[t]) & next_ok
        delta = r[t] + gamma * next_val * cont - v[t]
        a = np.where(known, delta + gamma * lam * cont * next_adv, 0.0)
        rows = layout[t][valid[t]]
        adv[rows] = a[valid[t]]
        trainable[rows] = known[valid[t]]
        next_adv, next_val, next_ok = a, v[t], valid[t]
    return adv, adv + value[:n].astype(np.float32), trainable, layout


class Runner:
    """Steps `num_envs` games; `assign(slot, rng, game)` picks who plays each seat of every new game.

    assign returns (actor key per seat, meta) or None to leave the slot idle (evaluation stops
    starting games once it has enough). `on_episode(slot, meta, game)` hears every finished game.
    With `record=True` the decisions of `learner_key` are stored for PPO.
    """

    def __init__(
        self,
        info,
        num_envs: int,
        rng: np.random.Generator,
        actors: dict,
        assign: Callable,
        on_episode: Callable | None = None,
        record: bool = False,
        learner_key: str = "learner",
        capacity: int = 0,
        reward_scale: float = 1.0,
    ):
        self.info = info
        self.num_envs = num_envs
        self.rng = rng
        self.actors = actors
        self.assign = assign
        self.on_episode = on_episode
        self.record = record
        self.learner_key = learner_key
        self.reward_scale = reward_scale
        self.rewards_along = info.rewards_along
        P = info.num_players
        self.games: list = [None] * num_envs
        # each game's seed and moves so far: a checkpoint saves a game in progress as these (data) and a
        # resume replays them, instead of pickling the game object
        self.seeds = np.zeros(num_envs, np.int64)
        self.moves: list[list[int]] = [[] for _ in range(num_envs)]
        self.keys: list[list] = [[] for _ in range(num_envs)]
        self.meta: list = [None] * num_envs
        self.active = np.zeros(num_envs, bool)
        self.cur = np.zeros(num_envs, np.int64)
        self.last_ret = np.zeros((num_envs, P))
        self.first = np.ones((num_envs, P), bool)
        self.pend = np.full((num_envs, P), -1, np.int64)
        self.hidden: dict = {}
        self.carried: dict | None = None
        self.decisions = 0  # learner decisions recorded (env steps)
        self.all_decisions = 0  # every decision taken
        self.actions = np.zeros(num_envs, np.int64)
        self.buf = None
        if record:
            learner = actors[learner_key].net
            self.buf = Buffer(
                capacity + num_envs * P,
                info.obs_dim,
                info.num_actions,
                info.state_dim if learner.uses_state else 0,
                learner.hidden_size,
            )
        self.started = False

    # ----- episodes -------------------------------------------------------------------------
    def start(self) -> None:
        for i in range(self.num_envs):
            self._new_episode(i)
        self.started = True

    def _hidden(self, key):
        h = self.hidden.get(key)
        if h is None:
            size = self.actors[key].net.hidden_size
            h = self.hidden[key] = np.zeros((self.num_envs, self.info.num_players, size), np.float32)
        return h

    def _new_episode(self, i: int) -> None:
        seed = int(self.rng.integers(2**63))
        game = self.info.new_game(seed)
        choice = self.assign(i, self.rng, game)
        if choice is None:
            self.active[i] = False
            self.games[i] = None
            return
        keys, meta = choice
        self.games[i], self.keys[i], self.meta[i] = game, list(keys), meta
        self.seeds[i], self.moves[i] = seed, []
        self.active[i] = True
        self.last_ret[i] = 0.0
        self.first[i] = True
        for h in self.hidden.values():
            h[i] = 0.0
        for key in set(keys):
            actor = self.actors[key]
            if actor.kind == "scripted":
                actor.new_episode(i, [s for s, k in enumerate(keys) if k == key])
        self.cur[i] = game.current_player()

    def _end_episode(self, i: int, truncated: bool = False) -> None:
        game = self.games[i]
        if self.record:
            seats = np.flatnonzero(self.pend[i] >= 0)
            rows = self.pend[i, seats]
            self.buf.done[rows] = True
            if truncated and len(rows):
                self.buf.truncated[rows] = True
                self.buf.boot[rows] = self._values_at_cut(i, seats)
            self.pend[i] = -1
        if self.on_episode is not None:
            self.on_episode(i, self.meta[i], game)
        self._new_episode(i)

    def _values_at_cut(self, i: int, seats: np.ndarray) -> np.ndarray:
        """The learner critic's value of each of `seats` in game i as it stands (no sampling, so the
        runner's random streams stay as they are)."""
        g, net = self.games[i], self.actors[self.learner_key].net
        obs = torch.from_numpy(np.stack([g.observation(int(q)) for q in seats]).astype(np.float32))
        mask = torch.ones((len(seats), self.info.num_actions), dtype=torch.bool)  # (the actor's, unused)
        hidden = torch.from_numpy(self._hidden(self.learner_key)[i, seats]) if net.recurrent else None
        state = None
        if net.uses_state:
            state = torch.from_numpy(np.repeat(g.state_tensor()[None].astype(np.float32), len(seats), 0))
        with torch.no_grad():
            _, value, _ = net.step(obs, mask, hidden, state, True)
        return value.numpy()

    # ----- stepping ---------------------------------------------------------------------------
    def step(self) -> None:
        """Every active game advances to a network decision and takes it (one batch per network).

        Seats of random or scripted players move at once, without waiting for a batch, so every
        network call sees one decision from each game."""
        for i in np.flatnonzero(self.active):
            self._play_unbatched(i)
        groups: dict = {}
        cur = self.cur
        for i in np.flatnonzero(self.active):
            groups.setdefault(self.keys[i][cur[i]], []).append(i)
        for key, slots in groups.items():
            self._net_step(key, self.actors[key], np.asarray(slots))
        actions = self.actions
        for slots in groups.values():
            for i in slots:
                self._apply(i, int(actions[i]))

    def _play_unbatched(self, i: int) -> None:
        games, rng = self.games, self.rng
        while self.active[i]:
            actor = self.actors[self.keys[i][self.cur[i]]]
            if actor.kind == "net":
                return
            g = games[i]
            if actor.kind == "random":
                action = RandomActor.choose(g.legal_action_mask(), rng)
            elif actor.kind == "search":  # reads the game, through resample_hidden only
                action = actor.act(g, int(self.cur[i]))
            else:
                p = int(self.cur[i])
                action = actor.choose(i, p, g.observation(p), g.legal_action_mask())
            self._apply(i, action)

    def _apply(self, i: int, action: int) -> None:
        g = self.games[i]
        g.apply_action(action)
        self.moves[i].append(action)
        self.all_decisions += 1
        terminal = g.is_terminal()
        truncated = not terminal and g.is_truncated()
        if terminal or truncated or self.rewards_along:  # a terminal reward model pays only at the end
            self._collect_rewards(i, g.returns())
        if terminal:
            self._end_episode(i)
        elif truncated:  # cut at the length limit: stop here (the engine would play on)
            self._end_episode(i, truncated=True)
        else:
            self.cur[i] = g.current_player()

    def _collect_rewards(self, i: int, ret: np.ndarray) -> None:
        """Each seat's change of return goes to its last recorded decision."""
        delta = ret - self.last_ret[i]
        if delta.any():
            self.last_ret[i] = ret
            if self.record:
                pend = self.pend[i]
                for q in np.flatnonzero(delta):
                    if pend[q] >= 0:
                        self.buf.reward[pend[q]] += delta[q] * self.reward_scale

    def _net_step(self, key, actor, slots: np.ndarray) -> None:
        games, info = self.games, self.info
        seats = self.cur[slots]
        n = len(slots)
        obs = np.empty((n, info.obs_dim), np.float32)
        mask = np.empty((n, info.num_actions), bool)
        for j in range(n):
            g = games[slots[j]]
            p = int(seats[j])
            obs[j] = g.observation(p)
            mask[j] = g.legal_action_mask()
        rec = self.record and key == self.learner_key
        state = None
        if rec and actor.net.uses_state:
            state = np.stack([games[i].state_tensor() for i in slots]).astype(np.float32)
        hid = None
        if actor.recurrent:
            hid = self._hidden(key)[slots, seats]
        acts, logp, value, new_h = actor.act(obs, mask, hid, state, self.rng, need_value=rec)
        self.actions[slots] = acts
        if actor.recurrent:
            self._hidden(key)[slots, seats] = new_h
        if rec:
            buf = self.buf
            rows = buf.put(
                {
                    "obs": obs,
                    "state": state if state is not None else 0.0,
                    "mask": mask,
                    "action": acts,
                    "logp": logp,
                    "value": value,
                    "reward": 0.0,
                    "done": False,
                    "start": self.first[slots, seats],
                    "chain": slots * self.info.num_players + seats,
                    "hbefore": hid if hid is not None else 0.0,
                }
            )
            self.first[slots, seats] = False
            self.pend[slots, seats] = rows
            self.decisions += n

    # ----- rollouts ---------------------------------------------------------------------------
    def collect(self, steps: int, gamma: float, lam: float, views: tuple[str, ...] = ()) -> Batch:
        """Step every game `steps` times and return the learner's decisions with GAE. The fields named in
        `views` are views of the buffer rather than copies: valid until the next collect (a rollout
        worker's buffer lies in shared memory, which the trainer copies from)."""
        if not self.started:
            self.start()
        buf = self.buf
        buf.n = 0
        if self.carried is not None:
            slots, seats, data = self.carried
            rows = buf.put(data)
            self.pend[slots, seats] = rows
            self.carried = None
        for _ in range(steps):
            self.step()
        n = buf.n
        adv, ret, trainable, layout = compute_gae(
            buf.chain[:n],
            buf.reward[:n],
            buf.value[:n],
            buf.done[:n],
            gamma,
            lam,
            buf.truncated[:n],
            buf.boot[:n],
        )
        batch = Batch(
            **{f: getattr(buf, f)[:n] if f in views else getattr(buf, f)[:n].copy() for f in Buffer.FIELDS},
            advantage=adv,
            returns=ret,
            trainable=trainable,
            layout=layout,
        )
        slots, seats = np.nonzero(self.pend >= 0)
        if len(slots):
            self.carried = (slots, seats, buf.take(self.pend[slots, seats]))
        self.pend[:] = -1
        return batch

    def run_episodes(self) -> None:
        """Play until `assign` stops starting games and every started game has ended."""
        if not self.started:
            self.start()
        while self.active.any():
            self.step()

    # ----- state for resume -------------------------------------------------------------------
    def state_dict(self) -> dict:
        """What a checkpoint keeps to go on exactly: plain data only (checkpoint.plain), the games in
        progress as their seeds and moves, with a fingerprint of each position to check the replay."""
        return {
            "games": [self._game_record(i) for i in range(self.num_envs)],
            "keys": self.keys,
            "meta": self.meta,
            "active": self.active,
            "cur": self.cur,
            "last_ret": self.last_ret,
            "first": self.first,
            "hidden": self.hidden,
            "carried": self.carried,
            "decisions": self.decisions,
            "all_decisions": self.all_decisions,
            "rng": self.rng.bit_generator.state,
            "started": self.started,
        }

    def _game_record(self, i: int) -> dict | None:
        if self.games[i] is None:
            return None
        return {"seed": int(self.seeds[i]), "moves": list(self.moves[i]), "position": position(self.games[i])}

    def load_state_dict(self, state: dict) -> None:
        for name in ("keys", "meta", "active", "cur", "last_ret", "first", "hidden", "carried"):
            setattr(self, name, state[name])
        self.decisions = state["decisions"]
        self.all_decisions = state["all_decisions"]
        self.rng.bit_generator.state = state["rng"]
        self.started = state["started"]
        for i, record in enumerate(state["games"]):
            self.games[i] = None if record is None else self._replay(i, record)

    def _replay(self, i: int, record: dict):
        """Game i rebuilt from its seed by its moves; the scripted players of the slot replay their own
        decisions too, so whatever they remember (their random draws) is as it was. The position must
        match the saved fingerprint: a mismatch means the game's code changed since the checkpoint."""
        game = self.info.new_game(record["seed"])
        self.seeds[i], self.moves[i] = record["seed"], list(record["moves"])
        scripted = {}  # (snapshots are seated after the replay: no actor of theirs is looked up here)
        for seat, key in enumerate(self.keys[i]):
            if is_scripted(self.actors.get(key)):
                scripted.setdefault(key, []).append(seat)
        for key, seats in scripted.items():
            self.actors[key].new_episode(i, seats)
        for action in record["moves"]:
            p = game.current_player()
            actor = self.actors.get(self.keys[i][p])
            if is_scripted(actor):
                chosen = actor.choose(i, p, game.observation(p), game.legal_action_mask())
                if chosen != action:
                    raise CheckpointError(
                        f"game {i} in progress does not replay: its scripted player now chooses {chosen} where "
                        f"it chose {action} (the scripted player's code changed since the checkpoint)"
                    )
            game.apply_action(action)
        if position(game) != record["position"]:
            raise CheckpointError(
                f"game {i} in progress does not replay to the position saved with it (the game's code "
                "changed since the checkpoint); resume with the version of this package that wrote it"
            )
        return game


def is_scripted(actor) -> bool:
    return actor is not None and actor.kind == "scripted"


def position(game) -> str:
    """A fingerprint of a game's whole state: its full state tensor, decision count and random state (an
    engine that draws every chance at set-up keeps no generator)."""
    rng = game.rng.bit_generator.state if game.rng is not None else None
    digest = hashlib.sha256(np.ascontiguousarray(game.state_tensor()).tobytes())
    digest.update(f"{game.num_decisions}|{rng}".encode())
    return digest.hexdigest()
