"""The engine contract every game implements: pure Python + numpy, no PettingZoo import.

Modelled on OpenSpiel's State and Pgx's pure game core: every generic tool (the AEC and
Gymnasium faces, the generic checks, benchmarks, training) works through this class alone.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .config import build_config
from .errors import IllegalActionError
from .layout import Layout

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


_ANY_SEED = np.random.SeedSequence(0)  # copy_rng overwrites the state at once


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state: the same draws from here on, at a small fraction of
    deepcopy's cost (a game's clone copies its rng this way). Its seed sequence is not the original's;
    no engine spawns from it."""
    bits = rng.bit_generator
    new = type(bits)(_ANY_SEED)
    new.state = bits.state
    return np.random.Generator(new)


def copy_state(
    game: Game,
    lists: tuple[str, ...] = (),
    arrays: tuple[str, ...] = (),
    nested: tuple[str, ...] = (),
    drop: tuple[str, ...] = (),
) -> Game:
    """A copy of a game that shares everything except its mutable state, which is named as data: `lists`
    (copied), `arrays` (numpy, copied), `nested` (lists of lists, copied one level deep); `drop` names
    caches the copy rebuilds. The fixed definition (layouts, tables, offsets) stays shared, so a clone
    costs a few microseconds; the caller copies the rng (`copy_rng`) and anything of another shape."""
    new = object.__new__(type(game))
    state = new.__dict__
    state.update(game.__dict__)
    for name in lists:
        state[name] = state[name][:]
    for name in arrays:
        state[name] = state[name].copy()
    for name in nested:
        state[name] = [inner[:] for inner in state[name]]
    for name in drop:
        state.pop(name, None)
    state.pop("_recording", None)  # a copy is not the recorded game
    return new


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

    Subclasses set `name`, `config_class`, and in `__init__` (after `super().__init__`) the
    attributes `num_players`, `num_actions`, `observation_layout` and `state_layout`; they implement
    `_legal_mask()` and `_apply(action)`, `game_type()`, and the observation/state/return methods below.
    `num_decisions` counts the actions applied so far (the faces truncate at
    `game_type().max_decisions`).
    """

    name: ClassVar[str]
    config_class: ClassVar[type]

    num_players: int
    num_actions: int
    observation_layout: Layout
    state_layout: Layout

    def __init__(self, config: Any = None, rng: np.random.Generator | None = None, **options):
        if config is None:
            config = build_config(self.config_class, options)
        elif options:
            raise TypeError("pass either a config object or keyword options, not both")
        self.config = config
        self.rng = rng if rng is not None else np.random.default_rng()
        self._mask_cache: np.ndarray | None = None
        self.num_decisions = 0

    def adopt(self, definition: Any) -> None:
        """Take a configuration's fixed definition (layouts, geometry, tables: Pgx's split of a game's
        fixed part from its state) as attributes, shared by reference: every game of that
        configuration holds the same objects, and a clone copies only the state."""
        self.__dict__.update(vars(definition))

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

    def clone(self) -> Game:
        """An independent deep copy (its own rng state included)."""
        return copy.deepcopy(self)

    def observation_dict(self, player: int) -> dict[str, np.ndarray]:
        """The observation split into its named pieces (for people and tests, not hot paths)."""
        return self.observation_layout.split(self.observation(player))
