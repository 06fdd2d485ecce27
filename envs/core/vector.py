"""N games stepped together, over W worker processes: for each game the seat to decide, its observation
and legal mask, and the rewards due, as numpy batches (the shape a CleanRL-style loop wants).

    games = envs.vector("exposed", num_games=64, workers=2, seed=0, num_players=4)
    step = games.reset()
    for _ in range(1000):
        actions = choose(step.obs, step.mask)          # [N] integers, one per game
        step = games.step(actions)
    games.close()

Modes. Self-play (neither `opponents` nor `seat`): every seat is played from outside, and
`step.player[i]` is the seat to decide next in game i. Opponents mode (`opponents=` or `seat=`): one
learning seat per game (`seat`, or a random seat each game), the other seats played inside the workers
by `opponents`, named or given as for SingleSeatEnv ("random", the default; "scripted"; "search";
"search:<run>"; a policy `policy(observation, mask) -> action`, with its optional `reset()` and
`for_seat(seat)` hooks; or a list with one per seat); `step.player` is then always the learning seat.
Each game has its own opponents, built as one SingleSeatEnv builds them; a given policy object is shared
by the games of a worker, except that one with a `reset()` hook and no `for_seat()` is copied for each
game (it keeps per-game state).

Rewards. `step.rewards[i, p]` is what seat p of game i earned with this step: the change of p's return
over every action the step applied (the one given and, in opponents mode, the other seats' up to the
learner's next decision), terminal payoffs included. A game whose `GameType.reward_model` is "terminal"
pays only when it ends, as the other faces do. The rewards of a game add up to its returns. To give
them to decisions, keep, for each game, the last decision of each seat: a reward of seat p goes to p's
last decision in that game. In opponents mode that is simply this step's decision:
`rewards[i, player_before[i]]`, with `player_before` the `player` the step was chosen for. (Only a
"rewards" game can pay a seat before its first decision of a game; add such a reward to that first
decision, or drop it if the seat never decides.)

Auto-reset. Where `terminated[i]` (the game ended) or `truncated[i]` (it was cut at its
`GameType.max_decisions`: every game ends), `rewards[i]` and `final_returns[i]` are that game's last,
and `player[i]`, `obs[i]`, `mask[i]` already belong to the slot's next game. Elsewhere `final_returns`
is zero.

Final observations (`final_obs=True`, off by default: it adds N x P observations to every batch).
`final_obs[i, p]` is seat p's observation of the position game i ended or was cut in, where it ended
or was cut with this step, and zero elsewhere: what a learner bootstraps a cut game's value from (a
game that ended is worth its returns; one that was cut is not over).

Seeding. Game slot i draws everything (its deals, its random seat, the random opponents' choices) from
its own generator, `np.random.default_rng(np.random.SeedSequence(seed).spawn(num_games)[i])`, and owns
its named opponents, so the same seed and N give the same stream whatever W: a run with one worker (in
this process) and with several play the same games. A given policy that draws its own random numbers
is the one exception: its draws depend on how the games are split over workers. `reset(seed)` starts
every slot again from that seed (named opponents rebuilt too); `reset()` deals new games from where the
generators are.

Workers. workers=1 steps the games in this process; W > 1 splits them over W processes
(`envs.core.workers`), which exchange actions, observations, masks, rewards and flags through one
block of shared memory, with a small pipe message per worker and step. Close with `close()` or a
`with` block (the block is freed on exit and at interpreter exit too).
"""

from __future__ import annotations

import copy as copying
import weakref
from dataclasses import dataclass
from multiprocessing import shared_memory
from typing import Any

import numpy as np
from gymnasium import spaces

from .config import build_config
from .errors import IllegalActionError, OrderError
from .policies import checked_seat, deal_for_seat, new_game, play_others, seat_policies
from .registry import GameSpec, spec
from .workers import Workers, arrays_over, offsets, split

FIELDS = ("player", "obs", "mask", "rewards", "terminated", "truncated", "final_returns")
OPTIONAL_FIELDS = ("final_obs",)


@dataclass(frozen=True)
class Step:
    """One batch: row i is game slot i (see the module docstring for what each field means)."""

    player: np.ndarray  # [N] int64: the seat to decide next
    obs: np.ndarray  # [N, D] float32: that seat's observation
    mask: np.ndarray  # [N, A] bool: its legal actions
    rewards: np.ndarray  # [N, P] float32: what each seat earned with this step
    terminated: np.ndarray  # [N] bool: the game ended with this step (the slot holds a new one)
    truncated: np.ndarray  # [N] bool: the game was cut at max_decisions (the slot holds a new one)
    final_returns: np.ndarray  # [N, P] float32: the ended game's returns; zero elsewhere
    final_obs: np.ndarray | None = None  # [N, P, D] float32 with final_obs=True: each seat's observation
    # of the position a game ended or was cut in; zero elsewhere


def buffer_layout(
    num_games: int, num_players: int, num_actions: int, obs_dim: int, final_obs: bool = False
) -> dict[str, tuple]:
    """name -> (shape, dtype) of every batch array; "action" carries the actions in."""
    n = num_games
    final = {"final_obs": ((n, num_players, obs_dim), np.float32)} if final_obs else {}
    return {
        "action": ((n,), np.int64),
        "player": ((n,), np.int64),
        "obs": ((n, obs_dim), np.float32),
        "mask": ((n, num_actions), np.bool_),
        "rewards": ((n, num_players), np.float32),
        "terminated": ((n,), np.bool_),
        "truncated": ((n,), np.bool_),
        "final_returns": ((n, num_players), np.float32),
        **final,
    }


def own_copy(opponents):
    """What one game slot plays with: a policy with per-game state (a `reset()` hook) that cannot give
    each seat its own copy (no `for_seat()`) is copied, so concurrent games do not share that state."""
    if isinstance(opponents, (list, tuple)):
        return [own_copy(o) for o in opponents]
    if callable(getattr(opponents, "reset", None)) and not callable(getattr(opponents, "for_seat", None)):
        return copying.deepcopy(opponents)
    return opponents


class Slots:
    """The games of a run of slots (all of them in process, or one worker's share), stepped in place:
    actions are read from, and results written to, the given arrays (rows = these slots)."""

    def __init__(self, spec: GameSpec, options: dict, opponents, seat, versus: bool, arrays: dict):
        self.spec, self.options = spec, dict(options)
        self.config = build_config(spec.game_class.config_class, self.options)
        self.opponents, self.fixed_seat, self.versus = opponents, seat, versus
        self.arrays = arrays
        count, self.num_players = arrays["rewards"].shape
        self.games: list[Any] = [None] * count
        self.rngs: list[np.random.Generator] = []
        self.policies: list[list] = []  # per slot, one policy per seat (opponents mode)
        self.seats = [0] * count
        self.last_returns = np.zeros((count, self.num_players))
        self.final_obs = arrays.get("final_obs")  # None unless asked for
        self.finished: list[int] = []  # slots whose final observations the last step wrote
        probe = spec.game_class(self.config, np.random.default_rng(0))
        self.rewards_along = probe.game_type().reward_model == "rewards"
        self.memory: shared_memory.SharedMemory | None = None

    def reset(self, seeds: list | None) -> None:
        """New games in every slot; with `seeds` (one SeedSequence per slot), from those seeds and with
        freshly built opponents."""
        if seeds is not None:
            self.rngs = [np.random.default_rng(s) for s in seeds]
            if self.versus:
                self.policies = [
                    seat_policies(
                        self.spec, self.config, self.options, own_copy(self.opponents), self.num_players
                    )
                    for _ in seeds
                ]
        a = self.arrays
        a["rewards"][:] = 0
        a["final_returns"][:] = 0
        a["terminated"][:] = False
        a["truncated"][:] = False
        if self.final_obs is not None:
            self.final_obs[:] = 0
            self.finished = []
        for i in range(len(self.games)):
            self.start(i)
            self.observe(i)

    def step(self) -> None:
        """Apply each slot's action (checked by the caller), pay the rewards, start new games where
        games ended."""
        a = self.arrays
        rewards, final_returns, terminated, truncated = (
            a["rewards"],
            a["final_returns"],
            a["terminated"],
            a["truncated"],
        )
        rewards[:] = 0
        final_returns[:] = 0
        self.clear_final_obs()
        actions = a["action"].tolist()
        for i, action in enumerate(actions):
            game = self.games[i]
            if self.versus:
                game.apply_action(action, player=self.seats[i])
                play_others(game, self.seats[i], self.policies[i], self.rngs[i])
            else:
                game.apply_action(action)
            ended = game.is_terminal()
            cut = not ended and game.is_truncated()
            terminated[i], truncated[i] = ended, cut
            if ended or cut or self.rewards_along:
                returns = game.returns()
                rewards[i] = returns - self.last_returns[i]
                self.last_returns[i] = returns
                if ended or cut:
                    final_returns[i] = returns
                    self.keep_final_obs(i)
                    self.start(i)
            self.observe(i)

    def keep_final_obs(self, i: int) -> None:
        if self.final_obs is not None:
            game = self.games[i]
            for p in range(self.num_players):
                self.final_obs[i, p] = game.observation(p)
            self.finished.append(i)

    def clear_final_obs(self) -> None:
        """Zero the rows the last step wrote (the rest are zero already)."""
        for i in self.finished:
            self.final_obs[i] = 0
        self.finished = []

    def start(self, i: int) -> None:
        rng = self.rngs[i]
        self.last_returns[i] = 0
        if self.versus:  # as SingleSeatEnv.reset: the seat first, then deals up to its first decision
            seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(self.num_players))
            self.seats[i] = seat
            self.games[i] = deal_for_seat(self.spec.game_class, self.config, seat, self.policies[i], rng)
        else:
            self.games[i] = new_game(self.spec.game_class, self.config, rng)

    def observe(self, i: int) -> None:
        game, a = self.games[i], self.arrays
        player = self.seats[i] if self.versus else game.current_player()
        a["player"][i] = player
        a["obs"][i] = game.observation(player)
        a["mask"][i] = game.legal_action_mask()

    def close(self) -> None:
        """Drop the views of the shared block before closing this process's handle on it."""
        self.arrays = {}
        if self.memory is not None:
            self.memory.close()
            self.memory = None


def worker_slots(
    memory_name: str, layout: dict, games: range, spec, options, opponents, seat, versus
) -> Slots:
    """What a worker process hosts: its share of the slots, over the parent's shared block."""
    memory = shared_memory.SharedMemory(name=memory_name)
    rows = {name: array[games.start : games.stop] for name, array in arrays_over(memory.buf, layout).items()}
    slots = Slots(spec, options, opponents, seat, versus, rows)
    slots.memory = memory
    return slots


def release(workers: Workers | None, memory: shared_memory.SharedMemory | None) -> None:
    """Stop the workers, then free the shared block (also run at interpreter exit if never closed)."""
    if workers is not None:
        workers.close()
    if memory is not None:
        try:
            memory.close()
        except BufferError:  # a caller still holds views (copy=False): the mapping goes with them
            pass
        try:
            memory.unlink()
        except FileNotFoundError:
            pass


class VectorGames:
    """`num_games` games of one configuration, stepped together over `workers` processes (see the
    module docstring: modes, rewards, auto-reset, seeding).

    game: a registered name or a GameSpec; **config: the game's options (num_players=..., ...).
    copy: True (default) returns each Step's arrays as fresh copies; False returns read-only views of
    the batch buffers, valid until the next step (no copying).
    final_obs: True adds `Step.final_obs` [N, P, D], each seat's observation of a game that ended or was
    cut (see the module docstring); False (default) leaves it None.
    context: the multiprocessing start method of the workers ("spawn", the default, is safe everywhere).
    Attributes: num_games, num_workers, num_players, num_actions, obs_dim, observation_layout,
    game_type, single_observation_space, single_action_space.
    """

    def __init__(
        self,
        game: str | GameSpec,
        num_games: int,
        workers: int = 1,
        seed: int | None = None,
        opponents=None,
        seat: int | None = None,
        context: str = "spawn",
        copy: bool = True,
        final_obs: bool = False,
        **config: Any,
    ):
        self.spec = game if isinstance(game, GameSpec) else spec(game)
        self.num_games = positive_int("num_games", num_games)
        self.num_workers = positive_int("workers", workers)
        if self.num_workers > self.num_games:
            raise ValueError(f"workers ({workers}) must not exceed num_games ({num_games})")
        options = dict(config)
        self.config = build_config(self.spec.game_class.config_class, options)
        probe = self.spec.game_class(self.config, np.random.default_rng(0))
        self.num_players, self.num_actions = probe.num_players, probe.num_actions
        self.observation_layout = probe.observation_layout
        self.obs_dim = probe.observation_layout.size
        self.game_type = probe.game_type()
        low, high = probe.observation_layout.bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.seat = checked_seat(seat, self.num_players)
        self.versus = opponents is not None or seat is not None
        if self.versus:  # unknown names and wrong lists are refused here, before any worker starts
            seat_policies(self.spec, self.config, options, opponents, self.num_players)
        self.copy = bool(copy)
        self._seed = np.random.SeedSequence(seed)
        self._ready, self._closed, self._seeded = False, False, False
        layout = buffer_layout(self.num_games, self.num_players, self.num_actions, self.obs_dim, final_obs)
        self._fields = FIELDS + tuple(name for name in OPTIONAL_FIELDS if name in layout)
        slot_args = (self.spec, options, opponents, self.seat, self.versus)
        self._memory, self._workers, self._slots, self._finalizer = None, None, None, None
        if self.num_workers == 1:
            self._arrays = {name: np.zeros(shape, dtype) for name, (shape, dtype) in layout.items()}
            self._slots = Slots(*slot_args, self._arrays)
        else:
            self._memory = shared_memory.SharedMemory(create=True, size=offsets(layout)[1])
            self._arrays = arrays_over(self._memory.buf, layout)
            self._ranges = split(self.num_games, self.num_workers)
            args = [(self._memory.name, layout, r, *slot_args) for r in self._ranges]
            try:
                self._workers = Workers(worker_slots, args, context=context)
            except BaseException:
                self._arrays = {}
                release(None, self._memory)
                raise
            self._finalizer = weakref.finalize(self, release, self._workers, self._memory)
        self._views = Step(**{name: read_only(self._arrays[name]) for name in self._fields})

    def __enter__(self) -> VectorGames:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "opponents" if self.versus else "self-play"
        return (
            f"VectorGames({self.spec.name!r}, num_games={self.num_games}, workers={self.num_workers}, "
            f"{mode}, num_players={self.num_players})"
        )

    def reset(self, seed: int | None = None) -> Step:
        """New games in every slot: from `seed` if given (and at the first reset, from the seed given at
        construction), else from where each slot's generator is."""
        self._check_open()
        if seed is not None:
            seeds = np.random.SeedSequence(seed).spawn(self.num_games)
        elif not self._seeded:
            seeds = self._seed.spawn(self.num_games)
        else:
            seeds = None
        self._ready = False
        self._run("reset", seeds)
        self._seeded = self._ready = True
        return self._result()

    def step(self, actions) -> Step:
        """Apply one action per game (an integer array of shape [num_games]); every action is checked
        before any is applied, so a refused batch changes no game."""
        self._check_open()
        if not self._ready:
            raise OrderError("step() needs reset() first (after construction, or after a failed step)")
        self._arrays["action"][:] = self._checked(actions)
        self._ready = False
        self._run("step", None)
        self._ready = True
        return self._result()

    def _run(self, method: str, seeds: list | None) -> None:
        if self._workers is None:
            getattr(self._slots, method)(*([seeds] if method == "reset" else []))
        elif method == "reset":
            self._workers.call(
                "reset", [(None if seeds is None else seeds[r.start : r.stop],) for r in self._ranges]
            )
        else:
            self._workers.call("step")

    def _checked(self, actions) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,):
            raise ValueError(
                f"actions must have shape ({self.num_games},), one per game; got {actions.shape}"
            )
        if not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
        outside = np.flatnonzero((actions < 0) | (actions >= self.num_actions))
        if len(outside):
            i = int(outside[0])
            raise IllegalActionError(
                f"{self.spec.name}: game {i}: action {int(actions[i])} is out of range 0..{self.num_actions - 1}"
                f" ({len(outside)} game(s) refused; no game was changed)"
            )
        refused = np.flatnonzero(~self._arrays["mask"][np.arange(self.num_games), actions])
        if len(refused):
            i = int(refused[0])
            raise IllegalActionError(
                f"{self.spec.name}: game {i}: action {int(actions[i])} is illegal for seat "
                f"{int(self._arrays['player'][i])} now (see step.mask[{i}]; {len(refused)} game(s) refused; "
                "no game was changed)"
            )
        return actions

    def _result(self) -> Step:
        if not self.copy:
            return self._views
        return Step(**{name: self._arrays[name].copy() for name in self._fields})

    def _check_open(self) -> None:
        if self._closed:
            raise OrderError("this VectorGames is closed")

    def close(self) -> None:
        """Stop the workers and free the shared block (safe to call twice)."""
        if self._closed:
            return
        self._closed, self._ready = True, False
        self._arrays, self._views, self._slots = {}, None, None  # the views go before the block
        if self._finalizer is not None:
            self._finalizer()


def read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def positive_int(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
