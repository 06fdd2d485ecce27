"""The engine contract every game implements: pure Python + numpy, no PettingZoo import.

Modelled on OpenSpiel's State and Pgx's pure game core: every generic tool (the AEC and
Gymnasium faces, the generic checks, benchmarks, training) works through this class alone.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from .config import build_config
from .errors import IllegalActionError
from .layout import Layout


class Game(ABC):
    """One game in progress.

    Subclasses set `name`, `config_class`, and in `__init__` (after `super().__init__`) the
    attributes `num_players`, `num_actions`, `observation_layout` and `state_layout`; they implement
    `_legal_mask()` and `_apply(action)`, and the observation/state/return methods below.
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

    # ----- optional hooks ------------------------------------------------------------------
    def illegal_reason(self, action: int) -> str:
        """Why a masked-out action is not allowed (games may say more)."""
        return "the rules do not allow it now"

    def action_groups(self) -> list[tuple[str, int, int, str]]:
        """(name, first index, count, meaning) of each block of the flat action space, for the docs."""
        return [("action", 0, self.num_actions, "see action_to_string")]

    def check_invariants(self) -> None:  # noqa: B027 - optional hook, nothing to check by default
        """Raise AssertionError if the state breaks a conservation law (cards, wallets, gems)."""

    def render_rgb(self) -> np.ndarray:
        """A picture of the table, uint8 HxWx3."""
        from .render import text_picture

        return text_picture(self.to_string())

    # ----- shared behaviour ----------------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        """Read-only bool mask over the flat action space (cached until the next action)."""
        mask = self._mask_cache
        if mask is None:
            if self.is_terminal():
                mask = np.zeros(self.num_actions, dtype=bool)
            else:
                mask = self._legal_mask()
            mask.flags.writeable = False
            self._mask_cache = mask
        return mask

    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.legal_action_mask())

    def apply_action(self, action: int, player: int | None = None) -> None:
        """Apply `action` for the current player; raises IllegalActionError and changes nothing
        if the action is out of range, masked out, by the wrong player, or after the end."""
        self.check_action(action, player)
        self._mask_cache = None
        self._apply(int(action))

    def check_action(self, action: Any, player: int | None = None) -> None:
        if self.is_terminal():
            raise IllegalActionError(f"{self.name}: the game is over; no action ({action!r}) is allowed")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
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
