"""The round window (rulebook: each round, after the draw, every living player in turn from the drawer
may use an Active ability, suggest a Resource, or under Spain Call a check; or pass). Each option
states its condition once, as a refusal (WINDOW_OPTIONS): the mask and the illegal-action reason
read the same function."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .data import ABILITY_FROM_ROUND, PH_WINDOW
from .resources import ResourceRules

if TYPE_CHECKING:
    from .rules import Artifacts


class WindowRules:
    """The round window's turns and options (a mixin of rules.Artifacts)."""

    def _window(self, i: int) -> None:
        """The round window: the i-th seat from the drawer (if alive) may act."""
        order = self.order
        while i < len(order) and not self.alive[order[i]]:
            i += 1
        if i < len(order):
            s = order[i]
            self.flow.decide(PH_WINDOW, s, WindowRules._window_options, WindowRules._window_choice, s, i)

    def _window_options(self, mask: np.ndarray, s: int, i: int) -> None:
        """Every window option (WINDOW_OPTIONS) its refusal allows."""
        for action, (option, k) in self._window_action:
            if not option.refusal(self, s, k):
                mask[action] = True

    def _window_choice(self, action: int, s: int, i: int) -> None:
        """The option taken (WINDOW_OPTIONS), then the next seat's turn in the window."""
        self.flow.do(WindowRules._window, i + 1)
        option, k = self._window_option[action]
        option.take(self, s, k)

    def _window_refusal(self, s: int, action: int) -> str:
        """Why seat s may not take `action` in the window (the refusal the mask is built from)."""
        if action not in self._window_option:
            return "in the round window you may pass, use your Active ability, suggest a resource or Call"
        option, k = self._window_option[action]
        return option.refusal(self, s, k)

    def _may_pass(self, s: int, k: int) -> str:
        return ""

    def _pass(self, s: int, k: int) -> None:
        pass

    def _ability_refusal(self, s: int, k: int) -> str:
        if self.round < ABILITY_FROM_ROUND:
            return f"Active abilities may be used from round {ABILITY_FROM_ROUND}"
        if not self.ability_targets(s):
            return "you have no unused Active ability with a legal target"
        return ""

    def _use_ability_now(self, s: int, k: int) -> None:
        self._announce_ability(s)

    def _call_refusal(self, s: int, k: int) -> str:
        if not self.spain:
            return "only under Spain may a player Call a check"
        return "a check was Called this round already" if self.called_now else ""

    def _call(self, s: int, k: int) -> None:
        self._spain_call(s)


class WindowOption(NamedTuple):
    """An option of the round window, for seat s and the index k of the action in its block: why s
    may not take it ("" when it may: the mask and the illegal-action reason read this one function)
    and taking it."""

    refusal: Callable[[Artifacts, int, int], str]
    take: Callable[[Artifacts, int, int], None]


# The round window's options, by action block
WINDOW_OPTIONS: dict[str, WindowOption] = {
    "pass": WindowOption(WindowRules._may_pass, WindowRules._pass),
    "use": WindowOption(WindowRules._ability_refusal, WindowRules._use_ability_now),
    "resource": WindowOption(ResourceRules.suggestion_refusal, ResourceRules._suggest),
    "call": WindowOption(WindowRules._call_refusal, WindowRules._call),
}
