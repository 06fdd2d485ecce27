"""Exposed: the decisions a turn is made of and the public record of a turn, shared by rules.py and
its family modules (no rule is played here).

The decision kinds (`Decide.kind` of the waiting frame, the observation's `decision` piece), the
blocks of the action space an item step chooses from, `ItemStep` (one choice inside an item) and the
public action kinds recorded per turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

# decision kinds (`Decide.kind` of the waiting frame; the observation's `decision` piece)
ACTION, MOVE1, MOVE2, SNITCH_FLIP, OFFER, PICK, DENTIST, PILOT = range(8)
DECISION_NAMES = (
    "choose an action",
    "first swap of a Move",
    "second swap of a Move",
    "Snitch: the tile to flip",
    "use the stolen Mark's item?",
    "item step",
    "Dentist: tell the asker a line holding your Guest",
    "Pilot: swap the Pilot tile (or pass)",
)
NUM_DECISIONS = len(DECISION_NAMES)
# what an item step chooses from (a block of the action space)
B_STEAL, B_CELL, B_LINE, B_SEAT, B_GUEST = range(5)


class ItemStep(NamedTuple):
    """One choice inside an item (a PICK decision): one of the `block` entries that
    `allowed(game, *allowed_args)` marks (booleans over cells, lines, absolute seats or Guests), or
    a pass when `optional`; then `then(game, *then_args, choice)`, choice None on a pass (or when an
    earlier step took every choice away).

    What the deciding seat knows of the choice, for the observation's `item_choice` pieces: which
    kind of choice it is (`kind`: its row of data.py's ITEM_CHOICES, by `then`), and where the item
    already is: the `line` it works on, the `tile` (a cell) and the `player` (absolute seat) the
    choice goes with, and how many choices of this kind are `left`, this one included (-1 / 0: none)."""

    block: int
    allowed: Callable[..., np.ndarray]
    allowed_args: tuple
    then: Callable[..., None]
    then_args: tuple
    optional: bool = False
    kind: int = -1
    line: int = -1
    tile: int = -1
    player: int = -1
    left: int = 0

    def __repr__(self) -> str:
        chosen = f"{self.allowed.__qualname__}{self.allowed_args} in block {self.block}"
        then = f"{self.then.__qualname__}{self.then_args}"
        return f"ItemStep({chosen}{', or pass' if self.optional else ''}, then {then})"


# public action kinds recorded per turn
K_MOVE, K_STEAL, K_EXPOSE, K_SNITCH, K_ITEM = range(5)
KIND_NAMES = ("move", "steal", "expose", "snitch", "item")
