"""The turn flow every game runs on: a stack of typed frames, last in first out.

A `Decide` frame waits for its player: `legal(game, mask, *args)` marks the allowed actions in the
mask, and `then(game, action, *args)` carries the choice out. A `Do` frame is a step the rules take
by themselves: `run(game, *args)`. Frames name functions (module functions or a game class's
methods, never strings or positions), so an editor follows them and a misspelt name fails when the
module is imported, not in the middle of a game. A frame holds no game and never changes, so a clone
copies the stack as a plain list.

    flow.decide(ASK, p, Game._ask_mask, Game._answer, card)   # p answers about `card`
    flow.do(Game._end_turn)                                     # runs once nobody must decide
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np


class Decide(NamedTuple):
    """`player` must choose one of the actions `legal(game, mask, *args)` marks; `then(game, action,
    *args)` carries it out (a handler that needs the seat takes it in `args`). `kind` is the game's
    name for the decision (its observation and reasons read it)."""

    kind: int
    player: int
    legal: Callable[..., None]
    then: Callable[..., None]
    args: tuple = ()


class Do(NamedTuple):
    """A step the rules take without a decision: `run(game, *args)`."""

    run: Callable[..., Any]
    args: tuple = ()


Frame = Decide | Do


class TurnFlow:
    """What happens next: the frames still to play, the next one last."""

    __slots__ = ("frames",)

    def __init__(self, frames: list[Frame] | None = None):
        self.frames: list[Frame] = list(frames) if frames else []

    def copy(self) -> TurnFlow:
        """A full copy: frames are immutable, so a new list of the same frames is enough."""
        return TurnFlow(self.frames)

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def __repr__(self) -> str:
        return f"TurnFlow({[_frame_text(f) for f in self.frames]})"

    # ----- adding what happens next (the frame pushed last plays first)
    # (tuple.__new__ skips the NamedTuple constructor's Python code: frames are made on every turn)
    def decide(
        self, kind: int, player: int, legal: Callable[..., None], then: Callable[..., None], *args
    ) -> None:
        self.frames.append(_tuple_new(Decide, (kind, player, legal, then, args)))

    def do(self, run: Callable[..., Any], *args) -> None:
        self.frames.append(_tuple_new(Do, (run, args)))

    def clear(self) -> None:
        self.frames.clear()

    # ----- reading and playing the next frame
    @property
    def decision(self) -> Decide | None:
        """The decision waiting for its player (None while a step is next or nothing is left)."""
        top = self.frames[-1] if self.frames else None
        return top if type(top) is Decide else None

    def player(self) -> int:
        """Who must decide now (-1 when no decision is waiting)."""
        top = self.decision
        return -1 if top is None else top.player

    def fill_mask(self, game: Any, mask: np.ndarray) -> np.ndarray:
        """Mark the waiting decision's legal actions in `mask` (all False on entry)."""
        top = self.frames[-1] if self.frames else None
        if type(top) is not Decide:
            self._nothing_waits()
        top.legal(game, mask, *top.args)
        return mask

    def choose(self, game: Any, action: int) -> Decide:
        """Take the waiting decision off the stack and carry out `action`; returns the decision."""
        top = self.frames[-1] if self.frames else None
        if type(top) is not Decide:
            self._nothing_waits()
        self.frames.pop()
        top.then(game, action, *top.args)
        return top

    def run(self, game: Any, stop: Callable[[], bool] | None = None) -> None:
        """Play `Do` steps until a decision waits, nothing is left, or `stop()` (the game is over)."""
        frames = self.frames
        while frames and type(frames[-1]) is Do and not (stop is not None and stop()):
            step = frames.pop()
            step.run(game, *step.args)

    def _nothing_waits(self) -> None:
        raise RuntimeError(f"no decision is waiting: {self!r}")


_tuple_new = tuple.__new__


def _frame_text(frame: Frame) -> str:
    if type(frame) is Do:
        return f"do {_name(frame.run)}{frame.args}"
    return f"seat {frame.player} decides {frame.kind} by {_name(frame.legal)} then {_name(frame.then)}{frame.args}"


def _name(fn: Callable) -> str:
    return getattr(fn, "__qualname__", repr(fn))


def check_handlers(table: dict[str, Callable], names: list[str] | tuple[str, ...], what: str) -> None:
    """At import: every name a data table uses has a handler (a function, or a tuple of functions), and
    no handler names nothing.

    Games keep their handler tables beside their rules (`ITEM_EFFECTS = {"dentist": Exposed.dentist,
    ...}`), so a rule is one hop from its data row and a missing or misspelt one fails at import."""
    missing = sorted(set(names) - set(table))
    extra = sorted(set(table) - set(names))
    if missing or extra:
        raise ValueError(f"{what}: no handler for {missing}; handlers for unknown names {extra}")
    for name, handler in table.items():
        # a row of handlers (a NamedTuple of a mask, an effect, a reason...) is checked field by field
        for fn in handler if isinstance(handler, tuple) else (handler,):
            if not callable(fn):
                raise TypeError(f"{what}: the handler of {name!r} is {fn!r}, not a function")
