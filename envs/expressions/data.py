"""Expressions' components as data: 50 cards (five colors x 1..10), Suggestions, the set-up chart."""

from __future__ import annotations

from typing import NamedTuple

# The rule text names only Green; the other four color names are ours.
COLORS = ("red", "yellow", "green", "blue", "purple")
NUMBERS = tuple(range(1, 11))
NUM_COLORS = len(COLORS)
NUM_NUMBERS = len(NUMBERS)
NUM_CARDS = NUM_COLORS * NUM_NUMBERS  # card id = color * 10 + (number - 1)

# The four sides of a card, in the order of the flat action space.
SUGGESTIONS = ("highest", "lowest", "last", "more")
SUGGESTION_TEXT = {
    "highest": "Highest of this Color",
    "lowest": "Lowest of this Color",
    "last": "Last of this Color",
    "more": "More of this Number",
}
HIGHEST, LOWEST, LAST, MORE = range(4)

# The kinds of decision a seat meets (the turn flow's Decide kinds; the observation's `phase` piece).
DECISIONS = ("turn", "choose a card for Harmony", "choose a card for Agony")
TURN, CHOOSE_HARMONY, CHOOSE_AGONY = range(len(DECISIONS))

# Timer Stack set-up chart (Normal side): players -> (cards per player, timer stack size).
SETUP_CHART = {5: (9, 5), 4: (11, 6), 3: (14, 8), 2: (16, 18)}
# The Hard side of the Setup Card (two timer cards flipped a round), players -> (cards per player,
# timer stack size). The rule text does not give it; ours (Reading, RULES.md "Set-up"): the whole deck
# dealt, as on the Normal side, with the hand size at which the scripted team wins Hard most often
# (benchmarks/expressions_hard.py --sweep). The design's aim, a third to two thirds of its Normal win
# rate, is out of reach for every such chart at every player count (measured in RULES.md).
HARD_SETUP_CHART = {5: (8, 10), 4: (9, 14), 3: (12, 14), 2: (17, 16)}
MIN_PLAYERS, MAX_PLAYERS = 2, 5

MODES = ("normal", "hard", "easy")
REWARDS = ("win_loss", "score")

# The most cards Harmony can hold at the end of a game dealt by the chart of its mode, over every deal
# and every line of play (every guess right when the team likes), by (players, mode); the fewest is 0
# everywhere. Found by the exact search of envs/expressions/extremes.py; with more than 25 the team can
# win, which it can in every mode at every player count (Hard, by the Hard side above: RULES.md).
MOST_HARMONY = {
    (2, "normal"): 32, (2, "hard"): 32, (2, "easy"): 32,
    (3, "normal"): 47, (3, "hard"): 41, (3, "easy"): 49,
    (4, "normal"): 48, (4, "hard"): 43, (4, "easy"): 50,
    (5, "normal"): 49, (5, "hard"): 48, (5, "easy"): 50,
}  # fmt: skip


def setup_chart(num_players: int, mode: str) -> tuple[int, int]:
    """(cards per player, Timer Stack size): the Hard side in Hard mode, else the Normal side (Easy is
    Normal plus a round). Every card not dealt is in the Timer Stack."""
    return (HARD_SETUP_CHART if mode == "hard" else SETUP_CHART)[num_players]


def color_of(card: int) -> int:
    return card // NUM_NUMBERS


def number_of(card: int) -> int:
    """The printed number, 1..10."""
    return card % NUM_NUMBERS + 1


def card_id(color: str | int, number: int) -> int:
    c = COLORS.index(color) if isinstance(color, str) else color
    return c * NUM_NUMBERS + number - 1


def card_name(card: int) -> str:
    return f"{COLORS[color_of(card)]} {number_of(card)}"


def _bits(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


# Bitmasks over the 50 cards, precomputed once: the rules' "same color" / "same number" / "higher".
COLOR_BITS = tuple(_bits(c * NUM_NUMBERS + i for i in range(NUM_NUMBERS)) for c in range(NUM_COLORS))
NUMBER_BITS = tuple(_bits(c * NUM_NUMBERS + i for c in range(NUM_COLORS)) for i in range(NUM_NUMBERS))
HIGHER_BITS = tuple(
    _bits(range(card + 1, color_of(card) * NUM_NUMBERS + NUM_NUMBERS)) for card in range(NUM_CARDS)
)
LOWER_BITS = tuple(_bits(range(color_of(card) * NUM_NUMBERS, card)) for card in range(NUM_CARDS))
ALL_CARDS_BITS = (1 << NUM_CARDS) - 1
SAME_COLOR = tuple(COLOR_BITS[color_of(card)] for card in range(NUM_CARDS))
SAME_NUMBER = tuple(NUMBER_BITS[number_of(card) - 1] for card in range(NUM_CARDS))
NO_CARDS = (0,) * NUM_CARDS


class Meaning(NamedTuple):
    """What a Suggestion of card c says about the rest of its player's hand (the hand without c), as
    bitmasks per card c. Truthful exactly when the rest holds none of `none_of[c]` and, where
    `one_of[c]` is set, at least one of it; `none_of[c]` is then public knowledge. It stays relevant
    (on the table) while the hand holds one of `relevant_while[c]`; 0 means always (hands never grow)."""

    none_of: tuple[int, ...]
    one_of: tuple[int, ...]
    relevant_while: tuple[int, ...]


# The four Suggestions' meanings, one row each, in the order of SUGGESTIONS (the action space's).
MEANING_OF = {
    "highest": Meaning(none_of=HIGHER_BITS, one_of=NO_CARDS, relevant_while=SAME_COLOR),
    "lowest": Meaning(none_of=LOWER_BITS, one_of=NO_CARDS, relevant_while=SAME_COLOR),
    "last": Meaning(none_of=SAME_COLOR, one_of=NO_CARDS, relevant_while=NO_CARDS),
    "more": Meaning(none_of=NO_CARDS, one_of=SAME_NUMBER, relevant_while=SAME_NUMBER),
}
if set(MEANING_OF) != set(SUGGESTIONS):  # a misspelt or missing row fails at import
    raise ValueError(f"MEANING_OF names {sorted(MEANING_OF)}, the Suggestions are {SUGGESTIONS}")
MEANINGS = tuple(MEANING_OF[name] for name in SUGGESTIONS)
