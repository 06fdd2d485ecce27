"""The engine contract every game implements: pure Python + numpy, no PettingZoo import.

Modelled on OpenSpiel's State and Pgx's pure game core: every generic tool (the AEC and
Gymnasium faces, the generic checks, benchmarks, training) works through this class alone.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .config import build_config
from .errors import ConfigError, IllegalActionError, PositionError
from .layout import Layout
from .position import FORMAT, IMMUTABLE, VERSION, Definition, copy_rng, copy_value, decode, encode, handlers

__all__ = ["Game", "GameType", "Definition", "copy_rng", "as_action"]

UTILITIES = ("zero_sum", "constant_sum", "general_sum", "identical")
TEAM_KINDS = ("none", "fixed", "secret")
REWARD_MODELS = ("terminal", "rewards")


@dataclass(frozen=True)
class GameType:
    """What a game is, declared as data (as OpenSpiel's GameType): generic tools read it, never names.

    utility: zero_sum / constant_sum (returns add up to the same total every game) / general_sum /
    identical (every player gets the same return: a cooperative game).
    teams: none (every seat for itself) / fixed (the seating decides the teams) / secret (sides are
    dealt and hidden; `Game.teams()` tells the referee, never a policy).
    min_return, max_return: bounds of any player's total return in one game.
    max_decisions: past this many decisions the faces truncate the game (every episode ends).
    utility_sum: what the returns of a finished game add up to, for constant_sum games (0 for zero_sum).
    reward_model: terminal (returns() is zero until the game ends: the faces and trainers read it only
    then) / rewards (returns may change along the game: read after every action).
    """

    utility: str
    teams: str
    min_return: float
    max_return: float
    max_decisions: int
    utility_sum: float | None = None
    reward_model: str = "terminal"

    def __post_init__(self):
        if self.reward_model not in REWARD_MODELS:
            raise ValueError(f"reward_model must be one of {REWARD_MODELS}, got {self.reward_model!r}")
        if self.utility not in UTILITIES:
            raise ValueError(f"utility must be one of {UTILITIES}, got {self.utility!r}")
        if self.teams not in TEAM_KINDS:
            raise ValueError(f"teams must be one of {TEAM_KINDS}, got {self.teams!r}")
        if not self.min_return <= self.max_return:
            raise ValueError(f"min_return {self.min_return} is above max_return {self.max_return}")
        if not (isinstance(self.max_decisions, int) and self.max_decisions > 0):
            raise ValueError(f"max_decisions must be a positive integer, got {self.max_decisions!r}")
        if self.utility == "zero_sum" and self.utility_sum is None:
            object.__setattr__(self, "utility_sum", 0.0)
        if (self.utility in ("zero_sum", "constant_sum")) != (self.utility_sum is not None):
            raise ValueError(
                f"utility_sum is declared for zero_sum and constant_sum games only ({self.utility})"
            )
        if self.utility == "zero_sum" and self.utility_sum != 0:
            raise ValueError(f"a zero_sum game's returns add up to 0, not {self.utility_sum}")


_FIXED = frozenset(("_fixed", "_not_copied", "config"))  # shared by a copy, besides the definition
_NOT_STATE = frozenset(("_mask_cache", "_max_decisions", "_recording", "_copied"))  # the base class's caches


class _CopyPlan(NamedTuple):
    """How `clone()` copies a game's state: its values read at once (`values`, one C call) and checked
    against the kinds planned for, then each copied by the kind it had: immutable values shared (most
    of a state: numbers, flags, tuples), arrays, flat lists, and the rest by `copy_value`."""

    values: Callable[[dict], tuple]
    kinds: tuple[type, ...]
    arrays: tuple[str, ...]
    lists: tuple[str, ...]
    others: tuple[str, ...]  # (not the generator, `rng`: clone(rng) gives the copy another)

    @classmethod
    def of(cls, state: dict, names: tuple[str, ...]) -> _CopyPlan:
        kinds = tuple(type(state[name]) for name in names)
        by_kind = {np.ndarray: [], list: [], None: []}
        for name, kind in zip(names, kinds):
            if kind not in IMMUTABLE and name != "rng":
                by_kind[kind if kind in by_kind else None].append(name)
        values = operator.itemgetter(*names) if len(names) > 1 else functools.partial(_values, names)
        return cls(values, kinds, *(tuple(by_kind[k]) for k in (np.ndarray, list, None)))


def _values(names: tuple[str, ...], state: dict) -> tuple:
    """These names' values as a tuple, for no name or one (where itemgetter gives no tuple)."""
    return tuple(state[name] for name in names)


_NO_DEFINITION = Definition()
_NO_DEFINITION.freeze()


def _check_kind(name: str, template: Any, value: Any) -> None:
    """A loaded state value is of the kind a fresh game holds there (arrays: dtype and shape)."""
    if template is None or value is None:
        return
    if type(value) is not type(template):
        raise PositionError(
            f"state value {name!r} must be {type(template).__name__}, got {type(value).__name__}"
        )
    if type(value) is np.ndarray and (value.dtype != template.dtype or value.shape != template.shape):
        raise PositionError(
            f"state value {name!r} must be a {template.dtype} array of shape {list(template.shape)}, "
            f"got {value.dtype} {list(value.shape)}"
        )


def as_action(action: Any) -> Any:
    """The plain int behind anything Gymnasium's `Discrete.contains()` accepts (a Python int, a numpy
    integer, a 0-d integer array); anything else is returned as it is, for check_action to refuse."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, np.bool_):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return action


class Game(ABC):
    """One game in progress.

    A game is its configuration's fixed `Definition` (built once by `definition(config)`, frozen,
    installed as attributes by `__init__` and shared by every game of that configuration and every
    copy) and its state: every other attribute. `clone()` copies the state by the type of each value
    (envs.core.position.copy_value) and shares the definition; `to_dict()` / `from_dict()` write the
    state as JSON data and read it back. Names in `DERIVED` are caches the state determines: a
    position leaves them out and `_derive()` makes them again.

    Subclasses set `name`, `config_class`, `definition`, and in `__init__` (after `super().__init__`)
    the attributes `num_players`, `num_actions`, `observation_layout` and `state_layout` (in the
    definition or set there); they implement `_legal_mask()` and `_apply(action)`, `game_type()`,
    and the observation/state/return methods below. `num_decisions` counts the actions applied so far
    (the faces truncate at `game_type().max_decisions`).
    """

    name: ClassVar[str]
    config_class: ClassVar[type]

    num_players: int
    num_actions: int
    observation_layout: Layout
    state_layout: Layout

    # caches the state determines (observation buffers, views, memos): left out of a position,
    # made again by `_derive()`
    DERIVED: ClassVar[frozenset[str]] = frozenset()
    # attributes a copy drops (scratch buffers, views of copied arrays): `_after_copy()` or first use
    # makes them again
    NOT_COPIED: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, config: Any = None, rng: np.random.Generator | None = None, **options):
        if config is None:
            config = build_config(self.config_class, options)
        elif options:
            raise TypeError("pass either a config object or keyword options, not both")
        fixed = type(self).definition(config)
        self.__dict__.update(vars(fixed))
        self._fixed = frozenset(vars(fixed)) | _FIXED  # what a copy shares and a position leaves out
        self._not_copied = self._fixed | self.NOT_COPIED | _NOT_STATE  # what clone() leaves as it is
        self.config = config
        self.rng = rng if rng is not None else np.random.default_rng()
        self._mask_cache: np.ndarray | None = None
        self.num_decisions = 0

    @classmethod
    def definition(cls, config: Any) -> Definition:
        """The configuration's fixed part (cache it: every game of the configuration shares it)."""
        return _NO_DEFINITION

    # ----- what subclasses implement -------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act now; -1 once the game is over."""

    @abstractmethod
    def _legal_mask(self) -> np.ndarray:
        """A fresh bool array of length num_actions for the current decision."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (legality is already checked)."""

    @abstractmethod
    def observation(self, player: int) -> np.ndarray:
        """That player's information state as a fresh float32 vector laid out by observation_layout."""

    @abstractmethod
    def state_tensor(self) -> np.ndarray:
        """The full state (hidden information included) as a float32 vector laid out by state_layout."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def returns(self) -> np.ndarray:
        """Per-player returns so far (zeros until the end for games that pay only at the end)."""

    @abstractmethod
    def resample_hidden(self, player: int, rng: np.random.Generator) -> Game:
        """A copy whose hidden information is redrawn consistently with what `player` knows."""

    @abstractmethod
    def action_to_string(self, action: int) -> str: ...

    @abstractmethod
    def to_string(self, player: int | None = None) -> str:
        """The table as text; with `player`, only what that player may see."""

    def game_type(self) -> GameType:
        """This configuration's GameType (utility, teams, return bounds, maximum length)."""
        raise NotImplementedError(f"{type(self).__name__} must declare its game_type()")

    # ----- optional hooks ------------------------------------------------------------------
    def teams(self) -> list[int]:
        """The team of each seat in this game (secret deals included; default each seat its own).

        For the referee (seating, scoring, training's credit assignment), never for a policy: a seat's
        observation shows another seat's team only where the rules reveal it."""
        return list(range(self.num_players))

    def illegal_reason(self, action: int) -> str:
        """Why a masked-out action is not allowed (games may say more)."""
        return "the rules do not allow it now"

    def action_groups(self) -> list[tuple]:
        """(name, first index, count, meaning) of each block of the flat action space, for the docs; an
        `ActionGroup` may also say that its actions lie on the cells of an observation grid, or are the
        seats."""
        return [("action", 0, self.num_actions, "see action_to_string")]

    def check_invariants(self) -> None:  # noqa: B027 - optional hook, nothing to check by default
        """Raise AssertionError if the state breaks a conservation law (cards, wallets, gems)."""

    def render_rgb(self, player: int | None = None) -> np.ndarray:
        """A picture of the table, uint8 HxWx3: with `player`, only what that player may see (like
        `to_string(player)`, it depends on that player's information alone); None, the whole table.
        The picture says which."""
        from .render import text_picture, view_title

        return text_picture(view_title(player) + "\n" + self.to_string(player))

    # ----- shared behaviour ----------------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        """Read-only bool mask over the flat action space (cached until the next action)."""
        mask = self._mask_cache
        if mask is None:
            if self.is_terminal():
                mask = np.zeros(self.num_actions, dtype=bool)
            else:
                mask = self._legal_mask()
            mask.setflags(write=False)  # (cheaper than through `mask.flags`)
            self._mask_cache = mask
        return mask

    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.legal_action_mask())

    def apply_action(self, action: int, player: int | None = None) -> None:
        """Apply `action` for the current player; raises IllegalActionError and changes nothing
        if the action is out of range, masked out, by the wrong player, or after the end.

        An action is anything Gymnasium's Discrete space contains: a Python int, a numpy integer, a
        0-d integer array."""
        action = as_action(action)
        self.check_action(action, player)
        recording = self.__dict__.get("_recording")  # envs.core.replay.GameRecording, if any
        if recording is not None and recording.game is self:  # (a clone is not recorded)
            recording.actions.append((self.current_player(), action))
        self._mask_cache = None
        self._apply(action)
        self.num_decisions += 1

    def is_truncated(self) -> bool:
        """True once the game has run `game_type().max_decisions` decisions without ending."""
        limit = self.__dict__.get("_max_decisions")
        if limit is None:  # the configuration never changes: read it once
            limit = self._max_decisions = self.game_type().max_decisions
        return self.num_decisions >= limit and not self.is_terminal()

    def check_action(self, action: Any, player: int | None = None) -> None:
        action = as_action(action)
        if self.is_terminal():
            raise IllegalActionError(f"{self.name}: the game is over; no action ({action!r}) is allowed")
        if not isinstance(action, int):
            raise IllegalActionError(f"{self.name}: action must be an integer, got {action!r}")
        if player is not None and player != self.current_player():
            raise IllegalActionError(
                f"{self.name}: player {player} tried to act but it is player {self.current_player()}'s turn"
            )
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"{self.name}: action {action} is out of range 0..{self.num_actions - 1}"
            )
        if not self.legal_action_mask()[action]:
            raise IllegalActionError(
                f"{self.name}: action {action} ({self.action_to_string(int(action))}) is illegal for "
                f"player {self.current_player()}: {self.illegal_reason(int(action))}"
            )

    # ----- the state as a value -------------------------------------------------------------------
    def clone(self, rng: np.random.Generator | None = None) -> Game:
        """An independent copy: every state value copied by its type (its own generator state
        included), the definition shared. A few microseconds: search copies a game per simulation.
        With `rng`, the copy draws its chance from that generator instead (a resampled world)."""
        plan = self._copy_plan()
        new = object.__new__(type(self))
        new.__dict__ = state = self.__dict__.copy()  # (a dict's own copy: faster than update())
        values, kinds, arrays, lists, others = plan
        if tuple(map(type, values(state))) != kinds:  # a value changed kind since: plan again
            plan = self._copy_plan(again=True)
            values, kinds, arrays, lists, others = plan
        for name in arrays:
            value = state[name]
            if value.flags.writeable:  # (a read-only array is replaced whole when it changes)
                state[name] = value.copy()
        for name in lists:
            value = state[name]
            state[name] = value[:] if not value or type(value[0]) in IMMUTABLE else copy_value(value)
        for name in others:
            state[name] = copy_value(state[name])
        state["rng"] = copy_value(state["rng"]) if rng is None else rng  # (None stays None)
        state.pop("_recording", None)  # a copy is not the recorded game
        new._after_copy()
        state["_copied"] = (len(state), plan)  # the same plan, counted for the copy's own attributes
        return new

    def _copy_plan(self, again: bool = False) -> _CopyPlan:
        """How clone() copies this state, made from the kinds of its values; kept with the game and
        handed to its copies, which have the same names, and made again whenever the attributes
        change in number (they are only ever added: caches made on first use) or a value changes kind."""
        d = self.__dict__
        kept = d.get("_copied")
        if again or kept is None or kept[0] != len(d):
            d["_copied"] = None
            kept = d["_copied"] = (len(d), _CopyPlan.of(d, tuple(d.keys() - self._not_copied)))
        return kept[1]

    def _after_copy(self) -> None:
        """On a fresh copy, which still holds the original's values of `NOT_COPIED`: drop them (first
        use makes them again); a game whose copy needs its own at once (views of its copied arrays)
        binds them here instead."""
        state = self.__dict__
        for name in self.NOT_COPIED:
            state.pop(name, None)

    def _derive(self) -> None:  # noqa: B027 - optional hook
        """Make the `DERIVED` caches from the state (after a position was loaded)."""

    def _position_fields(self) -> list[str]:
        skip = self._fixed | self.DERIVED | self.NOT_COPIED | _NOT_STATE
        return sorted(name for name in self.__dict__ if name not in skip)

    def to_dict(self) -> dict:
        """The position as JSON data: the format and its version, the game, its configuration and every
        state value (hidden information and the generator included). `type(game).from_dict(d)`
        continues exactly as this game does."""
        names = handlers(type(self))
        state = {name: encode(self.__dict__[name], names) for name in self._position_fields()}
        config = {f.name: getattr(self.config, f.name) for f in dataclasses.fields(self.config)}
        return {"format": FORMAT, "version": VERSION, "game": self.name, "config": config, "state": state}

    @classmethod
    def from_dict(cls, data: Any) -> Game:
        """The game at a position `to_dict` wrote. Raises PositionError, naming the problem, for data
        that is not such a position or a state the rules forbid; nothing is half-loaded."""
        config = cls._position_config(data)
        game = cls(config, np.random.default_rng(0))  # the definition, and the kind of each state value
        state = data.get("state")
        if type(state) is not dict:
            raise PositionError("a position's 'state' must be an object of state values")
        expected = game._position_fields()
        missing, unknown = sorted(set(expected) - set(state)), sorted(set(state) - set(expected))
        if missing or unknown:
            raise PositionError(f"{cls.name} position: missing state values {missing}, unknown {unknown}")
        names = handlers(cls)
        values = {}
        for name in expected:
            try:
                values[name] = decode(state[name], names)
            except PositionError as error:
                raise PositionError(f"state value {name!r}: {error}") from None
            _check_kind(name, game.__dict__[name], values[name])
        game.__dict__.update(values)
        game._mask_cache = None
        try:
            game._derive()
            game.check_position()
        except PositionError:
            raise
        except (AssertionError, ArithmeticError, LookupError, TypeError, ValueError) as error:
            raise PositionError(f"{cls.name} position breaks the rules: {error}") from None
        return game

    @classmethod
    def start_from(cls, options: dict | None, config: Any) -> Game | None:
        """The game `reset(options={"state": position})` starts from, on a face built for `config`
        (None without that option): a position of another configuration does not fit the face's
        spaces and is refused."""
        if not options or "state" not in options:
            return None
        game = cls.from_dict(options["state"])
        if game.config != config:
            raise PositionError(f"the position is for {game.config}, the environment for {config}")
        if game.is_terminal() or game.is_truncated():
            raise PositionError("the position is a finished game: there is nothing to play from it")
        return game

    @classmethod
    def _position_config(cls, data: Any) -> Any:
        if type(data) is not dict or data.get("format") != FORMAT:
            raise PositionError(f"not a position (a position is an object with format {FORMAT!r})")
        if data.get("version") != VERSION:
            raise PositionError(
                f"position format version {data.get('version')!r}; this library reads {VERSION}"
            )
        if data.get("game") != cls.name:
            raise PositionError(f"a position of {data.get('game')!r}, not of {cls.name!r}")
        options = data.get("config")
        if type(options) is not dict:
            raise PositionError("a position's 'config' must be an object of configuration options")
        try:
            return build_config(cls.config_class, options)
        except (ConfigError, TypeError) as error:
            raise PositionError(f"the position's configuration: {error}") from None

    def check_position(self) -> None:
        """Raise if the state breaks the rules (a loaded position is checked by it): the game's
        conservation laws (`check_invariants`) and a decision waiting whenever the game goes on."""
        self.check_invariants()
        player = self.current_player()
        if self.is_terminal():
            return
        if not 0 <= player < self.num_players:
            raise PositionError(f"{self.name}: the game goes on but no seat is to act ({player})")
        if not self.legal_action_mask().any():
            raise PositionError(f"{self.name}: seat {player} is to act but has no legal action")

    def observation_dict(self, player: int) -> dict[str, np.ndarray]:
        """The observation split into its named pieces (for people and tests, not hot paths)."""
        return self.observation_layout.split(self.observation(player))
