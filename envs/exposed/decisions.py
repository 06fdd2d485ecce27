"""Exposed: the decisions a turn is made of and the public record of a turn, shared by rules.py and
its family modules (no rule is played here).

The decision kinds (`Decide.kind` of the waiting frame, the observation's `decision` piece), the
blocks of the action space an item step chooses from (an item step is items.py's `ItemStep`) and the
public action kinds recorded per turn.
"""

from __future__ import annotations

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


# public action kinds recorded per turn
K_MOVE, K_STEAL, K_EXPOSE, K_SNITCH, K_ITEM = range(5)
KIND_NAMES = ("move", "steal", "expose", "snitch", "item")
