"""Expressions, the cooperative card game of truthful Suggestions, as a pure engine.

The rulebook's order: set-up; on your turn Play a Card (a truthful Suggestion) or Guess a Card;
irrelevant Suggestions go to Agony at once; after every round the First Player flips the Timer Stack;
the game ends when the last timer card is flipped (Easy mode: one more round), and the team wins with
more cards in Harmony than in Agony. Readings of what the text leaves open are marked "Reading" and
listed in RULES.md.

The turn flow (`self.flow`, an `envs.core.flow.TurnFlow`): seat k's turn is a decision
`Decide(TURN, k, _allowed_by_rules, take_turn)` above the step `Do(end_turn, k)`. `take_turn` plays a
card, guesses a card, or (FAQ) adds a card to Harmony; a guess that leaves the guesser holding cards
pushes the guesser's own choice, `Decide(CHOOSE_HARMONY, k, _allowed_by_rules, add_to_harmony)` or
`Decide(CHOOSE_AGONY, k, _allowed_by_rules, add_to_agony)`. Once no decision waits, `end_turn` passes
the turn clockwise, ends the round (the First Player flips the Timer Stack) and the game (plain
calls, which clear the flow). The waiting decision's kind and seat are the observation's `phase` and
`current_player` pieces.

What may be done is written once per rule: `play_conditions`, `guess_conditions`,
`add_to_harmony_conditions` (FAQ) and `choose_conditions` each give their conditions with the words
for an action that fails them; RULES_AT names the rules open at each kind of decision. The legal mask
is every condition met (`_allowed_by_rules`) and an illegal action's reason is the first one failed
(`action_problem`). What each Suggestion says is one row of data.MEANINGS (truth, what it rules out,
how long it stays relevant), read by the mask, the effect and the resampling alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np

from envs.core import ConfigError, Game, GameType, Layout, PieceSpec, PositionError
from envs.core.config import require_choice, require_range
from envs.core.flow import Decide, Do, Frame, TurnFlow
from envs.core.game import Definition
from envs.core.observer import Observer

from .data import (
    ALL_CARDS_BITS,
    CHOOSE_AGONY,
    CHOOSE_HARMONY,
    DECISIONS,
    MAX_PLAYERS,
    MEANINGS,
    MIN_PLAYERS,
    MODES,
    MOST_HARMONY,
    NUM_CARDS,
    REWARDS,
    SETUP_CHART,
    SUGGESTION_TEXT,
    SUGGESTIONS,
    TURN,
    Meaning,
    card_name,
    setup_chart,
)
from .render import table_picture, table_text


def flips_per_round(num_players: int, mode: str) -> int:
    """Timer cards the First Player flips after a round: 2 in 2-player games and in Hard mode."""
    return 2 if (num_players == 2 or mode == "hard") else 1


def most_decisions(num_players: int, mode: str) -> int:
    """The longest game the set-up chart of the mode allows: every turn at most 2 decisions (a guess, then the
    guesser's card), one turn per player a round, a round per flip of the Timer Stack (+1 in Easy)."""
    timer = setup_chart(num_players, mode)[1]
    rounds = -(-timer // flips_per_round(num_players, mode)) + (mode == "easy")
    return 2 * num_players * rounds


# One default for the game: twice the longest game of any player count and mode (60 decisions).
MAX_DECISIONS = 2 * max(most_decisions(n, mode) for n in SETUP_CHART for mode in MODES)


@dataclass(frozen=True)
class ExpressionsConfig:
    num_players: int = 4
    mode: str = "normal"  # normal | hard | easy
    reward: str = "win_loss"  # win_loss: +1/-1 for the team; score: Harmony - Agony
    max_decisions: int = MAX_DECISIONS  # the faces truncate past this many decisions
    # add the public card knowledge pieces `may_hold` and `must_hold` to the observation (RULES.md)
    knowledge: bool = False

    def validate(self) -> None:
        require_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        require_choice("mode", self.mode, MODES)
        require_choice("reward", self.reward, REWARDS)
        require_range("max_decisions", self.max_decisions, 1, 10**9)
        if not isinstance(self.knowledge, bool):
            raise ConfigError(f"knowledge must be True or False, got {self.knowledge!r}")


def _cards(bits: int) -> list[int]:
    """The card ids in a bitmask, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


CARD_SHIFTS = np.arange(NUM_CARDS, dtype=np.int64)  # (bits >> CARD_SHIFTS) & 1: a bitmask's 50 flags


def truth_table(meanings: tuple[Meaning, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every Suggestion's truth as one product with the hand h (50 floats 0/1): row kind*50 + c of
    the weights dotted with h is -100 when c is in the hand, +100 for each card of none_of[c] the rest
    holds, and -1 for each card of one_of[c] it holds (the rest: the hand without c). So it is at most
    the limit -100 - (one_of[c] set) exactly when the Suggestion is truthful for this hand."""
    rows = len(meanings) * NUM_CARDS
    weights = np.zeros((rows, NUM_CARDS), dtype=np.float32)
    limits = np.zeros(rows, dtype=np.float32)
    for kind, meaning in enumerate(meanings):
        for c in range(NUM_CARDS):
            row = weights[kind * NUM_CARDS + c]
            row += 100.0 * ((meaning.none_of[c] >> CARD_SHIFTS) & 1)
            row -= (meaning.one_of[c] >> CARD_SHIFTS) & 1
            row[c] = -100.0  # c itself: held, and not part of the rest
            limits[kind * NUM_CARDS + c] = -100.0 - bool(meaning.one_of[c])
    weights.flags.writeable = limits.flags.writeable = False
    return weights, limits


def hand_table(meanings: tuple[Meaning, ...]) -> tuple[np.ndarray, np.ndarray]:
    """All the play rule reads of a hand as one product with it, over the play block twice: row
    kind*50 + c is -1 at c (at most -1: c is in the hand), row 200 + kind*50 + c the truth table."""
    held = np.tile(-np.eye(NUM_CARDS, dtype=np.float32), (len(meanings), 1))
    truth_weights, truth_limits = truth_table(meanings)
    weights = np.vstack([held, truth_weights])
    limits = np.concatenate([np.full(len(held), -1.0, dtype=np.float32), truth_limits])
    weights.flags.writeable = limits.flags.writeable = False
    return weights, limits


HAND_WEIGHTS, HAND_LIMITS = hand_table(MEANINGS)
RELEVANT_WHILE = tuple(meaning.relevant_while for meaning in MEANINGS)  # by Suggestion, then card


def read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def meaning_rows(field: str) -> np.ndarray:
    """One Meaning field as flags: row kind*50 + c holds the 50 flags of `field[c]` of that
    Suggestion (the layout of a seat's `suggestions` piece flattened)."""
    bits = np.array([getattr(meaning, field) for meaning in MEANINGS], dtype=np.int64).reshape(-1)
    return read_only(((bits[:, None] >> CARD_SHIFTS) & 1).astype(np.float32))


def requirement_table(relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From the Suggestions' relevant_while rows: the distinct requirements a relevant Suggestion
    makes (a card of this color, of this number; requirement x card), which one each Suggestion makes
    (Suggestion row x requirement, 0/1; Last: none), and the requirements each card is in (card x
    slot; the index one past the last requirement stands for none)."""
    requirements = np.unique(relevant[relevant.any(axis=1)], axis=0).astype(np.float64)
    makes = (relevant[:, None] == requirements[None]).all(axis=2).astype(np.float64)
    slots = int(requirements.sum(axis=0).max())
    holding = [np.flatnonzero(column).tolist() for column in requirements.T]
    card_requirements = np.array([ids + [len(requirements)] * (slots - len(ids)) for ids in holding])
    return read_only(requirements), read_only(makes), read_only(card_requirements)


# What a Suggestion rules out for its seat: once told, none_of; once gone from the table before the
# end (no longer relevant), also what kept it relevant.
TOLD_ROWS = meaning_rows("none_of")
GONE_ROWS = read_only(np.maximum(TOLD_ROWS, meaning_rows("relevant_while")))
REQUIREMENTS, MAKES_REQUIREMENT, CARD_REQUIREMENTS = requirement_table(meaning_rows("relevant_while"))


def may_hold(
    suggestions: np.ndarray,
    past_suggestions: np.ndarray,
    guessed_wrong: np.ndarray,
    left_hand: np.ndarray,
    face_up: np.ndarray,
) -> np.ndarray:
    """(seats, 50) bool: the cards each seat may still hold, deduced from the public record alone
    (the observation's float pieces of those names, seats in any order; face_up: bool per card).

    A card is ruled out for a seat when a Suggestion of that seat, on the table or gone, says its hand
    holds none of it (data.MEANINGS none_of); when a Suggestion of that seat left the table while the
    game went on (no longer relevant: the hand holds none of what kept it relevant); when it was
    wrongly guessed in that seat's hand; for every seat, when it was wrongly guessed and then left no
    hand (nobody held it: it is in the Timer Stack). The same facts the engine keeps in `ruled_out`
    as the rules happen, read back from the record."""
    n = len(suggestions)
    ruled = suggestions.reshape(n, -1) @ TOLD_ROWS + past_suggestions.reshape(n, -1) @ GONE_ROWS
    ruled += guessed_wrong
    ruled += guessed_wrong.max(axis=0) > left_hand.max(axis=0)  # in the Timer Stack
    return (ruled == 0) & ~face_up


def must_hold(suggestions: np.ndarray, may: np.ndarray) -> np.ndarray:
    """(seats, 50) float64: for card c and seat s, 1/k with k the size of the smallest of s's
    requirements (a relevant Suggestion on the table: a card of this color / number, data.MEANINGS
    relevant_while) cut to the cards s may hold (`may`) that holds c; 0 when none does."""
    n = len(suggestions)
    made = suggestions.reshape(n, -1) @ MAKES_REQUIREMENT  # (seats, requirements): Suggestions making it
    weight = np.zeros((n, len(REQUIREMENTS) + 1))  # 1/size of each requirement made; the last: none
    np.divide(made > 0, np.maximum(may @ REQUIREMENTS.T, 1), out=weight[:, :-1])
    out = weight.take(CARD_REQUIREMENTS[:, 0], axis=1)
    for slot in CARD_REQUIREMENTS.T[1:]:  # the largest weight (smallest requirement) holding the card
        np.maximum(out, weight.take(slot, axis=1), out=out)
    out *= may
    return out


# The blocks of the flat action space, each rows of 50 cards: play a card (a row per Suggestion),
# guess (a row per other seat, from your left), choose a card of your hand (to Harmony or Agony).
PLAY, GUESS, CHOOSE = range(3)
PLAY_ROWS = len(SUGGESTIONS)

# A condition of a rule: (allowed, why), see `Expressions.play_conditions`.
Condition = tuple[bool | np.ndarray, str]
Conditions = tuple[Condition, ...]
Rule = Callable[..., Conditions]
NOT_WHILE_OTHERS_HOLD_CARDS = (
    False,
    "you may add a card only after a guess, or on your turn when no other player has cards",
)
WAIT_FOR_THE_DECISION = (False, "you must {decision} first")


_tuple_new = tuple.__new__  # builds a NamedTuple without its constructor's Python code (a hot path)


class HandFacts(NamedTuple):
    """A hand as the play rule reads it (read-only arrays, memoized by hand: `hand_facts`)."""

    in_hand: np.ndarray  # (4, 50) bool: Suggestion x card, the card is in the hand
    truthful: np.ndarray  # (4, 50) bool: Suggestion x card, a truthful Suggestion of this hand


@lru_cache(maxsize=1 << 12)
def hand_facts(hand: int) -> HandFacts:
    """A hand (bitmask) as the play rule reads it: one product with the hand's 50 flags (`hand_table`).
    Memoized for every game alike: search meets the same hands again and again."""
    allowed = (HAND_WEIGHTS @ ((hand >> CARD_SHIFTS) & 1).astype(np.float32) <= HAND_LIMITS).reshape(
        -1, NUM_CARDS
    )
    allowed.flags.writeable = False  # rows: in the hand, then truthful by Suggestion
    return _tuple_new(HandFacts, (allowed[:PLAY_ROWS], allowed[PLAY_ROWS:]))


class ExpressionsDefinition(Definition):
    """What a configuration fixes (player count, mode, the knowledge option), built once and shared by
    every game of it and by every copy: the set-up chart's numbers, the action space's bases and
    blocks, the rules open at each decision, the layouts, the observation source's places and the
    observer, each seat's turn as frames. The game's state is everything else (`Expressions`)."""

    def __init__(self, num_players: int, mode: str, knowledge: bool):
        n = self.num_players = num_players
        # the Normal side of the set-up chart, or in Hard mode the Hard side (ours: RULES.md, "Set-up");
        # a game's `hand_size` and `initial_timer` start from them (`set_deal` may set others)
        self.dealt, self.timer_dealt = setup_chart(n, mode)
        self.flips_per_round = flips_per_round(n, mode)
        # Reading: the 2-player "cards left in hands go to Harmony" holds for every mode but Hard.
        self.hands_to_harmony = n == 2 and mode != "hard"
        self.mode_index = MODES.index(mode)
        # flat action space: play (4 x 50) | guess (other seats x 50) | choose a card of your hand (50)
        self.guess_base = len(SUGGESTIONS) * NUM_CARDS
        self.choose_base = self.guess_base + (n - 1) * NUM_CARDS
        self.num_actions = self.choose_base + NUM_CARDS
        # the rows of each block (PLAY, GUESS, CHOOSE) in the action space seen as rows of 50 cards
        self.blocks = (
            slice(0, PLAY_ROWS),
            slice(PLAY_ROWS, PLAY_ROWS + n - 1),
            slice(PLAY_ROWS + n - 1, PLAY_ROWS + n),
        )
        # RULES_AT with each block's rows: what the mask of each kind of decision reads
        self.open_rules = {
            kind: tuple((self.blocks[block], rule) for block, rule in rules)
            for kind, rules in RULES_AT.items()
        }
        self.turn_frames = turn_frames(n)  # seat k's turn, bottom first
        self.knowledge = knowledge
        self.observation_layout = observation_layout(n, knowledge)
        self.state_layout = state_layout(n, self.observation_layout)
        # One absolute-seat source vector (the state without the timer); observation(p) gathers it.
        self._source_layout = source_layout(n, self.observation_layout)
        self._observer = observer(n, knowledge)
        self._offsets, self._strides = source_places(n, knowledge)
        self.freeze()


@cache
def expressions_definition(num_players: int, mode: str, knowledge: bool) -> ExpressionsDefinition:
    return ExpressionsDefinition(num_players, mode, knowledge)


class Expressions(Game):
    name = "expressions"
    config_class = ExpressionsConfig
    # caches the rest of the state determines, left out of a position and made again by `_derive`
    DERIVED = frozenset(("_can_name", "_knowledge_stale"))
    # the knowledge pieces wait for the next observation (`_update_knowledge`); only a game with the
    # option `knowledge` ever sets it
    _knowledge_stale = False

    def __init__(
        self, config: ExpressionsConfig | None = None, rng: np.random.Generator | None = None, **options
    ):
        super().__init__(config, rng, **options)
        # state, not definition: `set_deal` may set other units for `hand_sizes` and `timer_left`
        self.hand_size, self.initial_timer = self.dealt, self.timer_dealt
        self._setup()

    @classmethod
    def definition(cls, config: ExpressionsConfig) -> ExpressionsDefinition:
        """The configuration's fixed part, one per (players, mode, knowledge)."""
        return expressions_definition(config.num_players, config.mode, config.knowledge)

    # ----- set-up --------------------------------------------------------------------------
    def _setup(self) -> None:
        n, rng = self.num_players, self.rng
        deck = rng.permutation(NUM_CARDS).tolist()
        size = self.hand_size
        self.hands = [sum(1 << c for c in deck[p * size : (p + 1) * size]) for p in range(n)]  # bits
        self.timer = deck[n * self.hand_size :]  # top of the stack = last element
        self.suggestions: dict[int, tuple[int, int]] = {}  # card -> (owner, kind), in the order played
        self.harmony: list[int] = []  # bottom first
        self.agony: list[int] = []
        # cards not in Harmony, Agony or Suggestions (face-up cards cannot be named), as the guess rule reads it
        self._can_name = np.ones(NUM_CARDS, dtype=bool)
        # public deductions used to resample consistently: cards each seat is known not to hold
        self.ruled_out = [0] * n
        self.first_player = int(rng.integers(n))
        self.flow = TurnFlow()
        self._begin_turn(self.first_player)
        # the observation source: every hand, then the public pieces with absolute seats (the public
        # history, Easy mode's final round included, is kept here alone)
        self._src = np.zeros(self._source_layout.size, dtype=np.float32)
        self._init_observations()

    def set_deal(
        self,
        hands: list[list[int]],
        timer: list[int],
        first_player: int = 0,
        harmony: list[int] = (),
        agony: list[int] = (),
    ) -> None:
        """Start from a chosen table instead of a shuffled deal (tests, puzzles, teaching).

        hands: card ids per seat (any sizes); timer: the Timer Stack from bottom to top; harmony and
        agony: cards already in those piles (bottom first). Together they must hold all 50 cards once.
        """
        cards = [c for hand in hands for c in hand] + list(timer) + list(harmony) + list(agony)
        if sorted(cards) != list(range(NUM_CARDS)) or len(hands) != self.num_players:
            raise ConfigError("a deal must place each of the 50 cards once, with one hand per player")
        if not 0 <= first_player < self.num_players:
            raise ConfigError(f"first_player must be a seat 0..{self.num_players - 1}")
        self._setup()
        self.hands = [sum(1 << c for c in hand) for hand in hands]
        self.hand_size = max(max(map(len, hands)), 1)
        self.timer = list(timer)
        self.initial_timer = max(len(timer), 1)
        self.first_player = first_player
        self.flow.clear()
        self._begin_turn(first_player)
        self._mask_cache = None
        self._src[:] = 0.0
        self._init_observations()
        self._set_hand_sizes()
        for card in harmony:
            self._to_harmony(card)
        for card in agony:
            self._to_agony(card)
        if self.knowledge:
            self._knowledge_stale = True

    def _set_hand_sizes(self) -> None:
        for p in range(self.num_players):
            self._set_seat_piece("hand_sizes", p, 0, self.hands[p].bit_count() / self.hand_size)

    def _init_observations(self) -> None:
        n, src, off = self.num_players, self._src, self._offsets
        hands = src[off["hands"] : off["hands"] + n * NUM_CARDS].reshape(n, NUM_CARDS)
        hands[:] = (np.array(self.hands, dtype=np.int64)[:, None] >> CARD_SHIFTS) & 1
        src[off["hand_sizes"] : off["hand_sizes"] + n] = 1.0
        src[off["first_player"] + self.first_player] = 1.0
        src[off["mode"] + self.mode_index] = 1.0
        src[off["timer_left"]] = 1.0
        self._mark_turn(None)
        if self.knowledge:
            self._knowledge_stale = True

    # ----- the engine contract ---------------------------------------------------------------
    def current_player(self) -> int:
        return self.flow.player()

    @property
    def player(self) -> int:
        """The seat whose decision waits (-1 once the game is over)."""
        return self.flow.player()

    @property
    def phase(self) -> int | None:
        """The kind of the waiting decision: TURN, CHOOSE_HARMONY or CHOOSE_AGONY (None at the end)."""
        decision = self.flow.decision
        return None if decision is None else decision.kind

    def is_terminal(self) -> bool:
        return not self.flow.frames

    @property
    def terminal(self) -> bool:
        """The game is over: nothing is left to do (`_end_game` clears the turn flow)."""
        return not self.flow.frames

    @property
    def hand_counts(self) -> list[int]:
        """Cards in each seat's hand."""
        return [hand.bit_count() for hand in self.hands]

    @property
    def face_up(self) -> int:
        """Bits of the cards in Harmony, Agony or Suggestions (the ones that cannot be named)."""
        return sum(1 << c for c in np.flatnonzero(~self._can_name).tolist())

    @property
    def final_round(self) -> bool:
        """Easy mode's extra round after the last flip (the observation's `final_round` flag)."""
        return bool(self._src[self._offsets["final_round"]])

    @property
    def turns_this_round(self) -> int:
        """Turns of this round already over (the round starts with the First Player's)."""
        return (self.player - self.first_player) % self.num_players if self.flow.frames else 0

    def teams(self) -> list[int]:
        """One team: every seat plays for Harmony together."""
        return [0] * self.num_players

    def game_type(self) -> GameType:
        """Cooperative: every seat gets the same return, one fixed team. The returns' bounds are the
        true ones for this player count and mode (data.MOST_HARMONY; at the end all 50 cards lie in
        Harmony or Agony, so Harmony - Agony = 2 * Harmony - 50, and Harmony can be 0 in every mode)."""
        cfg = self.config
        most = MOST_HARMONY[cfg.num_players, cfg.mode]
        if cfg.reward == "score":
            low, high = -float(NUM_CARDS), float(2 * most - NUM_CARDS)
        else:
            low, high = -1.0, (1.0 if 2 * most > NUM_CARDS else -1.0)
        return GameType("identical", "fixed", low, high, cfg.max_decisions)

    def returns(self) -> np.ndarray:
        if self.flow.frames:
            return np.zeros(self.num_players)
        if self.config.reward == "score":
            value = float(len(self.harmony) - len(self.agony))
        else:
            value = 1.0 if self.team_wins() else -1.0
        return np.full(self.num_players, value)

    def team_wins(self) -> bool:
        return len(self.harmony) > len(self.agony)

    def observation(self, player: int) -> np.ndarray:
        if self._knowledge_stale:
            self._update_knowledge()
        return self._observer.observe(self._src, player)

    def state_tensor(self) -> np.ndarray:
        if self._knowledge_stale:
            self._update_knowledge()
        n = self.num_players
        out = np.zeros(self.state_layout.size, dtype=np.float32)
        views = self.state_layout.views(out)
        for p in range(n):
            for c in _cards(self.hands[p]):
                views["hands"][p, c] = 1.0
        for depth, c in enumerate(reversed(self.timer)):
            views["timer_position"][c] = (depth + 1) / self.initial_timer
        public = self._src[self._offsets["hands"] + self.num_players * NUM_CARDS :]
        out[-public.size :] = public  # the public pieces, seats absolute
        return out

    def _legal_mask(self) -> np.ndarray:
        """The waiting decision's mask, filled as rows of 50 cards (the blocks' rows), returned flat."""
        rows = np.zeros((self.num_actions // NUM_CARDS, NUM_CARDS), dtype=bool)
        decision = self.flow.frames[-1]  # `flow.fill_mask` inlined: a decision waits until the end
        decision.legal(self, rows, *decision.args)
        return rows.reshape(-1)

    def _apply(self, action: int) -> None:
        flow = self.flow
        decision = flow.frames.pop()  # `flow.choose` inlined: a decision waits until the end
        decision.then(self, action, *decision.args)
        flow.run(self)
        self._mark_turn(decision)
        if self.knowledge:
            self._knowledge_stale = True

    # ----- the turn flow: a turn, and the guesser's card after a guess ---------------------------
    def _begin_turn(self, k: int) -> None:
        """Seat k plays a card or guesses a card; the end of the turn waits beneath that decision."""
        self.flow.frames += self.turn_frames[k]

    def take_turn(self, action: int, k: int) -> None:
        """The action blocks of a turn, in the order of the flat action space."""
        if action < self.guess_base:
            kind, card = divmod(action, NUM_CARDS)
            self.play_a_card(k, card, kind)
        elif action < self.choose_base:
            rel, card = divmod(action - self.guess_base, NUM_CARDS)
            self.guess_a_card(k, self._seat_left_of(k, rel + 1), card)
        else:  # FAQ: no other player holds a card
            self.add_to_harmony(action, k)

    # ----- what may be done: each rule written once ---------------------------------------------
    # A rule gives its conditions over its block of the action space (PLAY, GUESS or CHOOSE, each rows
    # of 50 cards): each condition is (allowed, why), `allowed` a bool for the whole block or flags
    # that broadcast to it (bool, or 0/1 floats for a hand), `why` the words for an action failing it.
    # RULES_AT (below the class) names the rules open at each kind of decision, by block. The legal
    # mask is every condition met (`_allowed_by_rules`); an illegal action's reason is the first
    # condition it fails, or that the waiting decision comes first (`action_problem`).
    def play_conditions(self, k: int) -> Conditions:
        """PLAY A CARD: any one card from your hand, as a Suggestion that is truthful (data.MEANINGS
        compiled into one product with the hand, `hand_table`)."""
        facts = self._hand_facts(k)
        return (
            (facts.in_hand, "{card} is not in your hand"),
            (
                facts.truthful,
                "you must always be truthful when playing cards: {card} is not your {suggestion}",
            ),
        )

    def guess_conditions(self, k: int) -> Conditions:
        """GUESS A CARD: choose another player and a card. Face-up cards cannot be named; Reading:
        only a player who holds cards can be named."""
        return (
            (self._can_name, "{card} is face up and cannot be named"),
            (self._holds_cards(k), "player {target} has no cards to guess"),
        )

    def add_to_harmony_conditions(self, k: int) -> Conditions:
        """FAQ: if no other player has cards on your turn, you can add any one card from your hand to
        Harmony (Reading: instead of playing a card; a guess is then impossible)."""
        if not self._no_other_player_has_cards(k):  # the usual case: no need to read the hand
            return (NOT_WHILE_OTHERS_HOLD_CARDS,)
        return ((True, NOT_WHILE_OTHERS_HOLD_CARDS[1]), (self._hand_vector(k), "{card} is not in your hand"))

    def choose_conditions(self, k: int) -> Conditions:
        """After a guess the guesser adds any one card from their hand to Harmony (right) or Agony
        (wrong); nothing else happens until they have."""
        return ((self._hand_vector(k), "{card} is not in your hand"),)

    def _allowed_by_rules(self, mask: np.ndarray, k: int) -> None:
        """The legal mask of the waiting decision (every decision's `legal`; the mask as rows of 50
        cards, all False on entry): each open block is where every condition of its rule holds."""
        for rows, rule in self.open_rules[self.flow.frames[-1].kind]:  # (the waiting decision's kind)
            met = True  # the conditions so far: True, or the flags where all of them hold
            for allowed, _why in rule(self, k):
                if type(allowed) is np.ndarray:
                    met = allowed if met is True else met & allowed
                elif not allowed:
                    break  # the whole block is ruled out
            else:
                mask[rows] = met

    def action_problem(self, action: int) -> str | None:
        """None if `action` is allowed now, else why not, in the words of the first condition of its
        rule that it fails: the same rules the mask is made of."""
        decision = self.flow.decision
        if decision is None:
            return "the game is over"
        block, row, card = self._action_place(action)
        rule = dict(RULES_AT[decision.kind]).get(block)
        conditions = rule(self, decision.player) if rule else (WAIT_FOR_THE_DECISION,)
        shape = (self.blocks[block].stop - self.blocks[block].start, NUM_CARDS)
        for allowed, why in conditions:
            if not (np.broadcast_to(allowed, shape)[row, card] if type(allowed) is np.ndarray else allowed):
                return why.format(
                    card=card_name(card),
                    suggestion=f"'{SUGGESTION_TEXT[SUGGESTIONS[row]]}'",
                    target=self._seat_left_of(decision.player, row + 1),
                    decision=DECISIONS[decision.kind],
                )
        return None

    def _action_place(self, action: int) -> tuple[int, int, int]:
        """(block, row, card) of a flat action: blocks PLAY, GUESS, CHOOSE; rows as the rules say."""
        if action < self.guess_base:
            return PLAY, *divmod(action, NUM_CARDS)
        if action < self.choose_base:
            return GUESS, *divmod(action - self.guess_base, NUM_CARDS)
        return CHOOSE, 0, action - self.choose_base

    def _holds_cards(self, k: int) -> bool | np.ndarray:
        """Per row of the guess block (a column), whether that seat holds cards (True if every seat does)."""
        hands = self.hands
        if all(hands):
            return True
        return seat_column(tuple(map(bool, hands[k + 1 :] + hands[:k])))  # from k's left

    def _no_other_player_has_cards(self, k: int) -> bool:
        hands = self.hands
        return not any(hands[:k]) and not any(hands[k + 1 :])

    def _guess_targets(self, k: int) -> list[int]:
        """Relative seats of the other players who hold cards (Reading: only they can be named)."""
        return [r for r in range(1, self.num_players) if self.hands[self._seat_left_of(k, r)]]

    def _seat_left_of(self, k: int, r: int) -> int:
        """The seat r places to seat k's left (guess actions name seats this way)."""
        return (k + r) % self.num_players

    def _hand_facts(self, k: int) -> HandFacts:
        """Seat k's hand as the play rule reads it (read-only arrays, memoized by hand: `hand_facts`)."""
        return hand_facts(self.hands[k])

    def _hand_vector(self, k: int) -> np.ndarray:
        """Seat k's hand as 50 floats 0/1 (a view of the observation source, kept in step); the rules
        read it as the condition "the card is in your hand" over the choose block."""
        start = self._offsets["hands"] + k * NUM_CARDS
        return self._src[start : start + NUM_CARDS]

    # ----- the rules, as the rulebook names them ----------------------------------------------
    def play_a_card(self, k: int, card: int, kind: int) -> None:
        """Play a card from your hand as a Suggestion (the mask has checked it is truthful)."""
        self._leave_hand(k, card)
        self.suggestions[card] = (k, kind)
        self._can_name[card] = False
        self._set_seat_piece("suggestions", k, kind * NUM_CARDS + card, 1.0)
        self.ruled_out[k] |= MEANINGS[kind].none_of[card]
        self._discard_irrelevant_suggestions(k)

    def guess_a_card(self, k: int, target: int, card: int) -> None:
        """Name a card in another player's hand; the guesser's own card follows as a separate step."""
        bit = 1 << card
        hand_was_empty = not self.hands[k]
        self._set_pair_piece("guesses", k, target, card)
        if self.hands[target] & bit:
            self._leave_hand(target, card)
            self._to_harmony(card)
            self._discard_irrelevant_suggestions(target)
            self._after_a_right_guess(k, hand_was_empty)
            return
        self.ruled_out[target] |= bit
        self._set_seat_piece("guessed_wrong", target, card, 1.0)
        holder = self.holder_of(card)
        if holder is None:  # FAQ: it is in the Timer Stack, and every player now knows it
            for p in range(self.num_players):
                self.ruled_out[p] |= bit
        else:  # the player who does have it adds it to Agony
            self._leave_hand(holder, card)
            self._to_agony(card)
            self._discard_irrelevant_suggestions(holder)
        self._after_a_wrong_guess(k, hand_was_empty)

    def _after_a_right_guess(self, k: int, hand_was_empty: bool) -> None:
        """The guesser adds a card of their hand to Harmony, as its own decision; (FAQ) out of cards,
        the top card of Agony moves to Harmony instead (Reading: the top one; none if Agony is empty)."""
        if self.hands[k]:
            self.flow.decide(CHOOSE_HARMONY, k, Expressions._allowed_by_rules, Expressions.add_to_harmony, k)
        elif hand_was_empty and self.agony:
            self._move_top(self.agony, self.harmony, "agony", "harmony")

    def _after_a_wrong_guess(self, k: int, hand_was_empty: bool) -> None:
        """The guesser adds a card of their hand to Agony, as its own decision; (FAQ) out of cards,
        the top card of Harmony moves to Agony instead (Reading: none if Harmony is empty). Reading: a
        guesser who named their own last card (a wrong guess) has no card left to add: nothing more."""
        if self.hands[k]:
            self.flow.decide(CHOOSE_AGONY, k, Expressions._allowed_by_rules, Expressions.add_to_agony, k)
        elif hand_was_empty and self.harmony:
            self._move_top(self.harmony, self.agony, "harmony", "agony")

    def add_to_harmony(self, action: int, k: int) -> None:
        """The guesser's card after a right guess, or (FAQ) any card when no one else holds one."""
        card = action - self.choose_base
        self._leave_hand(k, card)
        self._to_harmony(card)
        self._discard_irrelevant_suggestions(k)

    def add_to_agony(self, action: int, k: int) -> None:
        """The guesser's card after a wrong guess."""
        card = action - self.choose_base
        self._leave_hand(k, card)
        self._to_agony(card)
        self._discard_irrelevant_suggestions(k)

    def _discard_irrelevant_suggestions(self, k: int) -> None:
        """A Suggestion no longer relevant to its player's hand goes to Agony at once; its player is
        then known to hold none of what kept it relevant."""
        hand = self.hands[k]
        gone = [
            (card, relevant_while)
            for card, (owner, kind) in self.suggestions.items()
            if owner == k and (relevant_while := RELEVANT_WHILE[kind][card]) and not hand & relevant_while
        ]
        for card, relevant_while in gone:  # in the order they lie on the table
            self._suggestion_to_agony(card)
            self.ruled_out[k] |= relevant_while

    def _suggestion_to_agony(self, card: int) -> None:
        """A Suggestion leaves the table; its seat and kind stay public (past_suggestions)."""
        owner, kind = self.suggestions.pop(card)
        self._set_seat_piece("suggestions", owner, kind * NUM_CARDS + card, 0.0)
        self._set_seat_piece("past_suggestions", owner, kind * NUM_CARDS + card, 1.0)
        self._to_agony(card)

    def end_turn(self, k: int) -> None:
        """Seat k's turn is over: the next seat clockwise plays; after a round (the turn of the seat to
        the First Player's right) the timer flips."""
        if not any(self.hands):
            # Reading: with no card in any hand nothing can happen any more; the timer runs out.
            while self.timer:
                self._flip_timer_card()
            self._end_game()
            return
        following = (k + 1) % self.num_players
        if following == self.first_player and not self._end_round():
            return
        self._begin_turn(following)

    def _end_round(self) -> bool:
        """After all players have taken a turn the First Player flips the Timer Stack; False if that
        ends the game."""
        if self.final_round:
            self._end_game()
            return False
        for _ in range(self.flips_per_round):
            if self.timer:
                self._flip_timer_card()
        if not self.timer:
            if self.config.mode != "easy":
                self._end_game()
                return False
            self._src[self._offsets["final_round"]] = 1.0  # Easy: one last round after the final flip
        return True

    def _flip_timer_card(self) -> None:
        card = self.timer.pop()
        self._src[self._offsets["from_timer"] + card] = 1.0
        self._src[self._offsets["timer_left"]] = len(self.timer) / self.initial_timer
        self._to_agony(card)

    def _end_game(self) -> None:
        """All Suggestions go to Agony; hands too, except in a non-Hard 2-player game (Harmony)."""
        for card in sorted(self.suggestions):
            self._suggestion_to_agony(card)
        for p in range(self.num_players):
            for card in _cards(self.hands[p]):
                self._leave_hand(p, card)
                if self.hands_to_harmony:
                    self._to_harmony(card)
                else:
                    self._to_agony(card)
        self.flow.clear()

    # ----- card movements (each keeps the observations in step) --------------------------------
    def holder_of(self, card: int) -> int | None:
        bit = 1 << card
        for p, hand in enumerate(self.hands):
            if hand & bit:
                return p
        return None

    def _leave_hand(self, p: int, card: int) -> None:
        hand = self.hands[p] = self.hands[p] & ~(1 << card)
        count = hand.bit_count()
        src, at = self._src, self._offsets  # the seat pieces `hands`, `left_hand`, `hand_sizes`
        src[at["hands"] + p * NUM_CARDS + card] = 0.0
        src[at["left_hand"] + p * NUM_CARDS + card] = 1.0
        src[at["hand_sizes"] + p] = count / self.hand_size

    def _to_harmony(self, card: int) -> None:
        self.harmony.append(card)
        self._can_name[card] = False
        self._src[self._offsets["harmony"] + card] = 1.0

    def _to_agony(self, card: int) -> None:
        self.agony.append(card)
        self._can_name[card] = False
        self._src[self._offsets["agony"] + card] = 1.0

    def _move_top(self, source: list[int], target: list[int], source_piece: str, target_piece: str) -> None:
        card = source.pop()
        target.append(card)
        self._src[self._offsets[source_piece] + card] = 0.0
        self._src[self._offsets[target_piece] + card] = 1.0

    # ----- observation maintenance -----------------------------------------------------------
    def _set_seat_piece(self, piece: str, seat: int, index: int, value: float) -> None:
        """Set entry [seat, index] of a per-seat piece (observers see it rotated to their seat)."""
        self._src[self._offsets[piece] + seat * self._strides[piece] + index] = value

    def _set_pair_piece(self, piece: str, seat_a: int, seat_b: int, card: int) -> None:
        self._src[self._offsets[piece] + (seat_a * self.num_players + seat_b) * NUM_CARDS + card] = 1.0

    def _mark_turn(self, done: Decide | None) -> None:
        """The waiting decision's seat and kind (the one-hot `current_player` and `phase` pieces), in
        place of those of the decision just taken (`done`; None on a source just set up)."""
        src, at = self._src, self._offsets
        if done is not None:
            src[at["current_player"] + done.player] = src[at["phase"] + done.kind] = 0.0
        decision = self.flow.decision
        if decision is not None:
            src[at["current_player"] + decision.player] = src[at["phase"] + decision.kind] = 1.0

    def _update_knowledge(self) -> None:
        """The `may_hold` and `must_hold` pieces, deduced from the public pieces of the source by the
        functions the scripted player reads its observation with; refreshed when next read after a
        change (`_knowledge_stale`, set by every action and deal), so play without observing pays
        nothing for them."""
        n, src, at, width = self.num_players, self._src, self._offsets, self._strides

        def piece(name: str) -> np.ndarray:  # (seats, entries per seat), a view of the source
            return src[at[name] : at[name] + n * width[name]].reshape(n, -1)

        suggestions = piece("suggestions")
        may = may_hold(
            suggestions,
            piece("past_suggestions"),
            piece("guessed_wrong"),
            piece("left_hand"),
            ~self._can_name,
        )
        piece("may_hold")[:] = may
        piece("must_hold")[:] = must_hold(suggestions, may)
        self._knowledge_stale = False

    # ----- hidden information ----------------------------------------------------------------
    # random deals tried before the exhaustive search (in 62,700 samples along random games none ran short)
    DEAL_TRIES = 30
    MIX_SWEEPS = 4  # swaps proposed per hidden card

    def requirements(self, k: int) -> list[int]:
        """Bitmasks of which seat k must hold at least one card: its relevant Suggestions say so."""
        out = []
        for card, (owner, kind) in self.suggestions.items():
            relevant_while = MEANINGS[kind].relevant_while[card]
            if owner == k and relevant_while:
                out.append(relevant_while)
        return out

    def resample_hidden(self, player: int, rng: np.random.Generator) -> Expressions:
        """Redeal the other hands and the timer consistently with what `player` knows.

        Known to `player`: own hand, every face-up card, hand sizes, the timer size, and the public
        deductions (`ruled_out` and `requirements`: wrong guesses, and a wrongly named card nobody
        held lies in the timer; truthful Suggestions; Suggestions discarded as irrelevant; relevant
        Suggestions still on the table), all readable from the observation. A random consistent deal
        is built first (an exhaustive search if random tries fail); it is then mixed by swaps that keep
        every constraint, and the timer is shuffled. Only those facts and `rng` are read.
        """
        seats = [p for p in range(self.num_players) if p != player]
        hands = self.hands
        hidden = sum(1 << c for c in self.timer)  # the cards not face up and not in `player`'s hand
        for p in seats:
            hidden |= hands[p]
        # one (cards held, cards ruled out, requirements) per owner: the other seats, then the timer
        owners = [(hands[p].bit_count(), self.ruled_out[p], tuple(self.requirements(p))) for p in seats]
        owners.append((len(self.timer), 0, ()))
        deal = random_deal(hidden, owners, rng, self.DEAL_TRIES) or any_deal(hidden, owners)
        deal = mix_deal(deal, owners, rng, self.MIX_SWEEPS)
        game = self.clone(rng=np.random.default_rng(int(rng.integers(2**63))))
        for p, bits in zip(seats, deal):
            game.hands[p] = bits
        start = self._offsets["hands"]
        hands = game._src[start : start + self.num_players * NUM_CARDS].reshape(self.num_players, NUM_CARDS)
        hands[seats] = (np.array(deal[:-1], dtype=np.int64)[:, None] >> CARD_SHIFTS) & 1
        timer = _cards(deal[-1])
        rng.shuffle(timer)
        game.timer = timer
        if player != self.player:  # the mover's mask reads the mover's hand; `player`'s is unchanged
            game._mask_cache = None
        return game

    # ----- checks and text -------------------------------------------------------------------
    def check_invariants(self) -> None:
        """All 50 cards are always in exactly one place: a hand, a Suggestion, Harmony, Agony, the
        timer; no seat holds a card ruled out for it in public; every Suggestion on the table is
        relevant to its seat's hand."""
        places: dict[int, list[str]] = {}
        for p, hand in enumerate(self.hands):
            for card in _cards(hand):
                places.setdefault(card, []).append(f"seat {p}'s hand")
        piles = {"a Suggestion": self.suggestions, "Harmony": self.harmony, "Agony": self.agony}
        for name, cards in {**piles, "the Timer Stack": self.timer}.items():
            for card in cards:
                places.setdefault(card, []).append(name)
        for card in range(NUM_CARDS):
            where = places.get(card, [])
            if len(where) != 1:
                where = "in " + " and ".join(where) if where else "nowhere"
                raise AssertionError(f"{card_name(card)} is {where}: a card is in exactly one place")
        for p in range(self.num_players):
            if self.hands[p] & self.ruled_out[p]:
                card = card_name(_cards(self.hands[p] & self.ruled_out[p])[0])
                raise AssertionError(f"seat {p} holds {card}, which the public record rules out for it")
        for card, (owner, kind) in self.suggestions.items():
            relevant_while = RELEVANT_WHILE[kind][card]
            if relevant_while and not self.hands[owner] & relevant_while:
                raise AssertionError(
                    f"seat {owner}'s Suggestion {card_name(card)} ('{SUGGESTION_TEXT[SUGGESTIONS[kind]]}') "
                    "is no longer relevant to its hand but stayed on the table"
                )

    # ----- the state as a position (envs.core.position) ---------------------------------------
    # A position holds the hands, the Timer Stack, Harmony and Agony (in order), the Suggestions (in the
    # order played), the public deductions `ruled_out`, the First Player, the units of `hand_sizes` and
    # `timer_left` (`hand_size`, `initial_timer`), the turn flow, the observation source `_src` (it
    # alone keeps the public history) and the generator. DERIVED caches are made again by `_derive`;
    # `check_position` refuses what no game reaches (RULES.md, "Positions").
    def to_dict(self) -> dict:
        """The position as JSON data (envs.core.game.Game.to_dict), the knowledge pieces up to date."""
        if self._knowledge_stale:
            self._update_knowledge()
        return super().to_dict()

    def _derive(self) -> None:
        """The DERIVED caches, from a loaded state (its values first checked for kind and range: the
        caches read them)."""
        self._check_values()
        self._can_name = np.ones(NUM_CARDS, dtype=bool)
        self._can_name[[*self.suggestions, *self.harmony, *self.agony]] = False
        if self.knowledge:
            self._knowledge_stale = False  # a position holds them up to date; check_position compares

    def _check_values(self) -> None:
        """Each state value of the kind and range the rules use; the turn flow one of a seat's turn."""
        n = self.num_players
        for name in ("hands", "ruled_out"):
            masks = getattr(self, name)
            if len(masks) != n:
                raise PositionError(f"{name} must have one entry per seat ({n}), got {len(masks)}")
            for p, bits in enumerate(masks):
                if type(bits) is not int or not 0 <= bits <= ALL_CARDS_BITS:
                    raise PositionError(f"{name}[{p}] must be a bitmask of the 50 cards, got {bits!r}")
        for name in ("timer", "harmony", "agony", "suggestions"):
            for card in getattr(self, name):
                if type(card) is not int or not 0 <= card < NUM_CARDS:
                    raise PositionError(f"{name} holds {card!r}, which is not a card id (0..{NUM_CARDS - 1})")
        kinds = len(SUGGESTIONS)
        for card, value in self.suggestions.items():
            owner, kind = value if type(value) is tuple and len(value) == 2 else (None, None)
            if not (type(owner) is int and 0 <= owner < n and type(kind) is int and 0 <= kind < kinds):
                raise PositionError(
                    f"the Suggestion {card_name(card)} must be (seat 0..{n - 1}, kind 0..{kinds - 1}), got {value!r}"
                )
        ranges = {"first_player": (0, n - 1), "hand_size": (1, NUM_CARDS), "initial_timer": (1, NUM_CARDS)}
        for name, (low, high) in ranges.items():
            if not low <= getattr(self, name) <= high:
                raise PositionError(f"{name} must be in {low}..{high}, got {getattr(self, name)}")
        if self.num_decisions < 0:
            raise PositionError(f"num_decisions must be in 0.., got {self.num_decisions}")
        if not self._is_a_turn(self.flow.frames):
            raise PositionError(
                f"the turn flow must be a decision of seat k (kind 0..{len(DECISIONS) - 1}: {', '.join(DECISIONS)}) "
                f"above Do(end_turn, k), or empty once the game is over; got {self.flow!r}"
            )

    def _is_a_turn(self, frames: list[Frame]) -> bool:
        """Whether the turn flow is one a game reaches: seat k's decision (a turn, or the guesser's card)
        above the end of k's turn; nothing once the game is over."""
        if not frames:
            return True
        top = frames[-1]
        if (
            type(top) is not Decide
            or top.kind not in DECISION_HANDLERS
            or not 0 <= top.player < self.num_players
        ):
            return False
        k = top.player
        then = DECISION_HANDLERS[top.kind]
        turn = [
            Do(Expressions.end_turn, (k,)),
            Decide(top.kind, k, Expressions._allowed_by_rules, then, (k,)),
        ]
        return frames == turn and all(type(frame.args[0]) is int for frame in frames)

    def check_position(self) -> None:
        """Refuse, with a PositionError naming the rule, a state no game reaches: the conservation laws
        (`check_invariants`), the counts and the end of the game, the observation source against the
        rest of the state, its public history against itself and against the public deductions, then
        a decision waiting whenever the game goes on (envs.core)."""
        self.check_invariants()
        self._check_table()
        self._check_source()
        self._check_history()
        super().check_position()

    def _check_table(self) -> None:
        for p, count in enumerate(self.hand_counts):
            if count > self.hand_size:
                raise PositionError(f"seat {p} holds {count} cards, more than the hand size {self.hand_size}")
        if len(self.timer) > self.initial_timer:
            raise PositionError(
                f"the Timer Stack holds {len(self.timer)} cards, more than at set-up ({self.initial_timer})"
            )
        if self.terminal and (any(self.hands) or self.timer or self.suggestions):
            raise PositionError(
                "the game is over (no turn waits) but cards are still in hands, Suggestions or the Timer Stack"
            )
        if not self.terminal and not any(self.hands):
            raise PositionError("the game goes on but no hand holds a card (then the game is over)")

    def _source_views(self) -> dict[str, np.ndarray]:
        return self._source_layout.views(self._src)

    def _check_source(self) -> None:
        """The pieces of the observation source that the rest of the state gives, as it gives them;
        the others (the public history) flags 0/1."""
        n, views, decision = self.num_players, self._source_views(), self.flow.decision
        suggestions = np.zeros((n, len(SUGGESTIONS), NUM_CARDS), dtype=np.float32)
        for card, (owner, kind) in self.suggestions.items():
            suggestions[owner, kind, card] = 1.0
        flipped = views["from_timer"].sum()
        expected = {
            "hands": (card_flags(*self.hands), "the hands"),
            "hand_sizes": ([count / self.hand_size for count in self.hand_counts], "hand counts / hand_size"),
            "suggestions": (suggestions, "the Suggestions on the table"),
            "harmony": (card_flags(self.harmony)[0], "Harmony"),
            "agony": (card_flags(self.agony)[0], "Agony"),
            "timer_left": (
                [len(self.timer) / self.initial_timer if flipped else 1.0],
                "timer / initial_timer",
            ),
            "current_player": (one_hot(n, decision and decision.player), "the seat of the waiting decision"),
            "phase": (
                one_hot(len(DECISIONS), decision and decision.kind),
                "the kind of the waiting decision",
            ),
            "first_player": (one_hot(n, self.first_player), "first_player"),
            "mode": (one_hot(len(MODES), self.mode_index), "the configuration's mode"),
        }
        for piece, (values, what) in expected.items():
            if not np.array_equal(views[piece], np.asarray(values, dtype=np.float32)):
                raise PositionError(f"the observation source's {piece!r} piece does not match {what}")
        for piece in (
            "past_suggestions",
            "left_hand",
            "from_timer",
            "guesses",
            "guessed_wrong",
            "final_round",
        ):
            if not np.isin(views[piece], (0.0, 1.0)).all():
                raise PositionError(
                    f"the observation source's {piece!r} piece holds a value other than 0 and 1"
                )
        if self.knowledge and not self._knowledge_stale:
            written = views["may_hold"].copy(), views["must_hold"].copy()
            self._update_knowledge()
            for piece, before in zip(("may_hold", "must_hold"), written, strict=True):
                if not np.array_equal(views[piece], before):
                    raise PositionError(
                        f"the observation source's {piece!r} piece does not match the public record"
                    )

    def _check_history(self) -> None:
        """The public history in the source (cards that left hands, flipped from the timer, past
        Suggestions, guesses) agrees with where the cards are, with itself, and with `ruled_out`."""
        views = self._source_views()
        hand = card_flags(*self.hands).astype(bool)  # seat x card
        hidden = hand.any(axis=0) | card_flags(self.timer)[0].astype(bool)  # in a hand or the timer
        piles = card_flags(self.harmony, self.agony).astype(bool).any(axis=0)
        past, left, guesses, wrong, flipped = (
            views[piece].astype(bool)
            for piece in ("past_suggestions", "left_hand", "guesses", "guessed_wrong", "from_timer")
        )
        lost = self.initial_timer - len(self.timer)  # timer cards flipped (set_deal: none from an empty one)
        if flipped.sum() != lost and (flipped.any() or self.timer or self.initial_timer != 1):
            raise PositionError(
                f"the observation source's 'from_timer' piece holds {flipped.sum()} cards, not {lost}"
            )
        if views["final_round"][0] and (self.config.mode != "easy" or self.timer):
            raise PositionError("Easy mode's final round starts when an Easy game's Timer Stack runs out")
        n, told = self.num_players, views["suggestions"].astype(bool).any(axis=1)
        broken = {
            "a card flipped from the Timer Stack is in a hand or still in it": flipped & hidden,
            "a card flipped from the Timer Stack also left a hand": flipped & left.any(axis=0),
            "a card left two hands": left.sum(axis=0) > 1,
            "a card that left a hand is in a hand or the Timer Stack": left & hidden,
            "a Suggestion on the table never left its seat's hand": told > left,
            "a card was two Suggestions": past.reshape(-1, NUM_CARDS).sum(axis=0) > 1,
            "a Suggestion that left the table is not in Harmony or Agony": past.any(axis=1) & ~piles,
            "a Suggestion that left the table never left its seat's hand": past.any(axis=1) > left,
            "a seat guessed a card in its own hand": guesses[np.arange(n), np.arange(n)],
            "a guessed card is still in a hand": guesses.any(axis=(0, 1)) & hand.any(axis=0),
            "a wrong guess nobody made": wrong > guesses.any(axis=0),
            "a card wrongly guessed in a hand that held it": wrong & (left | hand),
            "a right guess of a card its seat never held": guesses.any(axis=0) & ~wrong & ~left,
        }
        for what, cards in broken.items():
            if cards.any():
                card = card_name(int(np.flatnonzero(cards)[0] % NUM_CARDS))
                raise PositionError(f"the public history in the observation source says {what} ({card})")
        dealt = left.sum(axis=1) + np.array(self.hand_counts)  # each seat's cards in hand or gone from it
        if dealt.max() != self.hand_size and (dealt.any() or self.hand_size != 1):
            raise PositionError(
                f"hand_size {self.hand_size} must be the most cards dealt to a seat ({dealt.tolist()}: cards in "
                "hand and cards that left it)"
            )
        # ruled_out: what the public record rules out for each seat (may_hold on every card), the same
        # facts written as they happened; at the end Suggestions leave the table without ruling out more
        public = (views[piece] for piece in ("suggestions", "past_suggestions", "guessed_wrong", "left_hand"))
        record = ~may_hold(*public, face_up=np.zeros(NUM_CARDS, dtype=bool))
        for p in range(n):
            ruled = sum(1 << c for c in np.flatnonzero(record[p]).tolist())
            differ = self.ruled_out[p] & ~ruled if self.terminal else self.ruled_out[p] ^ ruled
            if differ:
                raise PositionError(
                    f"ruled_out[{p}] does not match the public record (Suggestions, wrong guesses, cards "
                    f"that left hands) for {card_name(_cards(differ)[0])}"
                )

    def action_groups(self) -> list[tuple[str, int, int, str]]:
        n = self.num_players
        return [
            (
                "play",
                0,
                self.guess_base,
                "play card c as Suggestion s: index s*50 + c, s in " + "/".join(SUGGESTIONS),
            ),
            (
                "guess",
                self.guess_base,
                (n - 1) * NUM_CARDS,
                "guess that the player r seats to your left holds card c: guess_base + (r-1)*50 + c",
            ),
            (
                "choose",
                self.choose_base,
                NUM_CARDS,
                "add card c of your hand: to Harmony/Agony after a guess, or to Harmony when no one else holds a card",
            ),
        ]

    def action_to_string(self, action: int) -> str:
        if action < self.guess_base:
            kind, card = divmod(action, NUM_CARDS)
            return f"play {card_name(card)} as '{SUGGESTION_TEXT[SUGGESTIONS[kind]]}'"
        if action < self.choose_base:
            rel, card = divmod(action - self.guess_base, NUM_CARDS)
            target = self._seat_left_of(max(self.player, 0), rel + 1)
            return f"guess player {target} (+{rel + 1} seats) holds {card_name(card)}"
        card = action - self.choose_base
        where = "Agony" if self.phase == CHOOSE_AGONY else "Harmony"
        return f"add {card_name(card)} to {where}"

    def illegal_reason(self, action: int) -> str:
        return self.action_problem(action) or "it is allowed"

    def to_string(self, player: int | None = None) -> str:
        """The table as text: with `player`, only what that player may see (render.table_view)."""
        return table_text(self, player)

    def render_rgb(self, player: int | None = None) -> np.ndarray:
        """The table as a picture, from the same view as `to_string(player)`."""
        return table_picture(self, player)


@cache
def turn_frames(n: int) -> tuple[tuple[Frame, ...], ...]:
    """Each seat's turn as frames, bottom first, built once per player count (frames never change)."""
    turns = []
    for k in range(n):
        turn = TurnFlow()
        turn.do(Expressions.end_turn, k)
        turn.decide(TURN, k, Expressions._allowed_by_rules, Expressions.take_turn, k)
        turns.append(tuple(turn.frames))
    return tuple(turns)


@cache
def seat_column(seat_flags: tuple[bool, ...]) -> np.ndarray:
    """One flag per other seat as a column, for the rows of the guess block (read-only, built once)."""
    flags = np.array(seat_flags)[:, None]
    flags.flags.writeable = False
    return flags


def card_flags(*bitmasks_or_cards: int | list[int]) -> np.ndarray:
    """(rows, 50) float32 flags: a row per bitmask of cards, or per list of card ids."""
    out = np.zeros((len(bitmasks_or_cards), NUM_CARDS), dtype=np.float32)
    for row, cards in zip(out, bitmasks_or_cards, strict=True):
        row[_cards(cards) if type(cards) is int else cards] = 1.0
    return out


def one_hot(size: int, index: int | None) -> np.ndarray:
    out = np.zeros(size, dtype=np.float32)
    if index is not None:
        out[index] = 1.0
    return out


# What carries out each kind of decision (a turn, the guesser's card after a right or a wrong guess).
DECISION_HANDLERS = {
    TURN: Expressions.take_turn,
    CHOOSE_HARMONY: Expressions.add_to_harmony,
    CHOOSE_AGONY: Expressions.add_to_agony,
}


# The rules open at each kind of decision, by block of the action space; an action of a block not
# open waits for the decision (WAIT_FOR_THE_DECISION).
RULES_AT: dict[int, tuple[tuple[int, Rule], ...]] = {
    TURN: (
        (PLAY, Expressions.play_conditions),
        (GUESS, Expressions.guess_conditions),
        (CHOOSE, Expressions.add_to_harmony_conditions),
    ),
    CHOOSE_HARMONY: ((CHOOSE, Expressions.choose_conditions),),
    CHOOSE_AGONY: ((CHOOSE, Expressions.choose_conditions),),
}
if sorted(RULES_AT) != list(range(len(DECISIONS))):  # a decision without rules fails at import
    raise ValueError(f"RULES_AT covers decisions {sorted(RULES_AT)}, not all of {DECISIONS}")


# ----- resampling: deals consistent with the public facts ----------------------------------------
# A deal is one bitmask of cards per owner (the other seats, then the timer); an owner is described by
# (cards held, cards ruled out, requirements), a requirement being a bitmask of which it holds one.


def fits(bits: int, owner: tuple[int, int, tuple[int, ...]]) -> bool:
    """Whether an owner may hold exactly these cards (the count is kept by construction)."""
    _, ruled_out, requirements = owner
    return not bits & ruled_out and all(bits & req for req in requirements)


def random_deal(hidden: int, owners: list, rng: np.random.Generator, tries: int) -> list[int] | None:
    """A random consistent deal, seat by seat in a random order: a random allowed card for each
    requirement not yet met, then random allowed cards; None if `tries` attempts all run short."""
    seats = len(owners) - 1
    for _ in range(tries):
        pool, deal = hidden, [0] * (seats + 1)
        keys = rng.random((seats, NUM_CARDS)).tolist()  # a random order of the cards, per seat
        for s in rng.permutation(seats).tolist():
            count, ruled_out, requirements = owners[s]
            allowed = pool & ~ruled_out
            chosen = 0
            for req in requirements:
                if not chosen & req:
                    options = _cards(allowed & req & ~chosen)
                    if not options:
                        break
                    chosen |= 1 << options[int(rng.integers(len(options)))]
            else:
                need = count - chosen.bit_count()
                rest = _cards(allowed & ~chosen)
                if 0 <= need <= len(rest):
                    for c in sorted(rest, key=keys[s].__getitem__)[:need]:
                        chosen |= 1 << c
                    deal[s] = chosen
                    pool &= ~chosen
                    continue
            break  # this seat could not be served: try again
        else:
            deal[seats] = pool
            return deal
    return None


def any_deal(hidden: int, owners: list) -> list[int]:
    """A consistent deal by exhaustive search, for when random tries fail: a card for each requirement
    by backtracking, then the seats' other cards by bipartite matching. It reads only the public facts
    (one exists: the true deal)."""
    seats = len(owners) - 1
    tasks = [(s, req) for s in range(seats) for req in owners[s][2]]

    def witnesses(t: int, chosen: list[int], used: int) -> list[int] | None:
        if t == len(tasks):
            return fill(chosen, used)
        s, req = tasks[t]
        count, ruled_out, _ = owners[s]
        if chosen[s] & req:
            return witnesses(t + 1, chosen, used)
        if chosen[s].bit_count() < count:
            for c in _cards(hidden & req & ~ruled_out & ~used):
                chosen[s] |= 1 << c
                found = witnesses(t + 1, chosen, used | 1 << c)
                if found:
                    return found
                chosen[s] ^= 1 << c
        return None

    def fill(chosen: list[int], used: int) -> list[int] | None:
        allowed = [_cards(hidden & ~used & ~owners[s][1]) for s in range(seats)]
        holder: dict[int, int] = {}  # card -> seat it is matched to

        def place(s: int, seen: set) -> bool:  # an augmenting path for one more card of seat s
            for c in allowed[s]:
                if c not in seen:
                    seen.add(c)
                    if c not in holder or place(holder[c], seen):
                        holder[c] = s
                        return True
            return False

        for s in range(seats):
            for _ in range(owners[s][0] - chosen[s].bit_count()):
                if not place(s, set()):
                    return None
        deal = chosen[:] + [0]
        for c, s in holder.items():
            deal[s] |= 1 << c
        deal[seats] = hidden & ~used & ~sum(1 << c for c in holder)
        return deal

    deal = witnesses(0, [0] * seats, 0)
    if deal is None:
        raise AssertionError("no deal fits the public facts: the deductions contradict each other")
    return deal


def mix_deal(deal: list[int], owners: list, rng: np.random.Generator, sweeps: int) -> list[int]:
    """Random swaps between owners that keep every constraint: a Markov chain on consistent deals.

    Each proposal is a uniformly random pair of hidden cards held by different owners (pairs drawn at
    once, those within one owner dropped); the proposal is symmetric, so the chain keeps the uniform
    distribution over consistent deals. About `sweeps` proposals per hidden card."""
    sizes = [bits.bit_count() for bits in deal]
    total = sum(sizes)
    cross = total * total - sum(size * size for size in sizes)  # ordered pairs across owners
    if not cross:
        return deal
    owner = np.repeat(np.arange(len(sizes)), sizes)
    pairs = rng.integers(total, size=(-(-sweeps * total**3 // cross), 2))
    pairs = pairs[owner[pairs[:, 0]] != owner[pairs[:, 1]]].tolist()
    owner = owner.tolist()
    cards = [c for bits in deal for c in _cards(bits)]
    ruled_out = [ruled for _, ruled, _ in owners]
    requirements = [reqs for _, _, reqs in owners]
    needed = [0] * len(owners)  # per owner, the cards some requirement of it holds
    for o, reqs in enumerate(requirements):
        for req in reqs:
            needed[o] |= req
    deal = list(deal)
    for i, j in pairs:
        x, y = cards[i], cards[j]
        a, b = owner[i], owner[j]
        if (ruled_out[a] >> y | ruled_out[b] >> x) & 1:
            continue
        swap = 1 << x | 1 << y
        new_a, new_b = deal[a] ^ swap, deal[b] ^ swap
        # only a requirement holding the card that leaves can stop being met
        if needed[a] >> x & 1 and not all(new_a & req for req in requirements[a]):
            continue
        if needed[b] >> y & 1 and not all(new_b & req for req in requirements[b]):
            continue
        deal[a], deal[b] = new_a, new_b
        cards[i], cards[j] = y, x
    return deal


def observation_layout(n: int, knowledge: bool = False) -> Layout:
    """The observation pieces; seat axes are relative to the observer (0 = you, 1 = your left, ...).
    With `knowledge`, the public card knowledge pieces follow the others (whose places stay).

    Every entry is a 0/1 flag or a fraction, so every piece lies in [0, 1]."""
    return _observation_layout(n, knowledge)  # one cached layout per (n, knowledge), however called


@cache
def _observation_layout(n: int, knowledge: bool) -> Layout:
    c, k = NUM_CARDS, len(SUGGESTIONS)
    return Layout(
        [
            flags("hand", (c,), ("card",), "your hand (one-hot over the 50 cards, id = color*10 + number-1)"),
            flags(
                "suggestions",
                (n, k, c),
                ("seat", "feature", "card"),
                "Suggestions face up in front of each seat, by kind",
            ),
            flags(
                "past_suggestions",
                (n, k, c),
                ("seat", "feature", "card"),
                "Suggestions that left the table for Agony, by seat and kind (no longer relevant to the hand, or the end)",
            ),
            flags("harmony", (c,), ("card",), "cards in Harmony"),
            flags("agony", (c,), ("card",), "cards in Agony"),
            flags(
                "left_hand",
                (n, c),
                ("seat", "card"),
                "cards seen leaving each seat's hand (played, guessed, added to a pile)",
            ),
            flags("from_timer", (c,), ("card",), "cards flipped from the Timer Stack"),
            flags(
                "guesses",
                (n, n, c),
                ("seat", "seat", "card"),
                "guess history: seat a named card c in seat b's hand",
            ),
            flags(
                "guessed_wrong",
                (n, c),
                ("seat", "card"),
                "card c was wrongly guessed in seat b's hand (b does not hold it)",
            ),
            flags("hand_sizes", (n,), ("seat",), "cards in each seat's hand / cards dealt"),
            flags("timer_left", (1,), ("feature",), "timer cards left / timer cards at set-up"),
            flags("current_player", (n,), ("seat",), "the seat to act (one-hot)"),
            flags(
                "first_player",
                (n,),
                ("seat",),
                "the First Player, who flips the timer after each round (one-hot)",
            ),
            flags("phase", (3,), ("feature",), "turn / choose a card for Harmony / choose a card for Agony"),
            flags("final_round", (1,), ("feature",), "1 in Easy mode's extra round after the last flip"),
            flags("mode", (len(MODES),), ("feature",), "normal / hard / easy (one-hot)"),
            *(knowledge_pieces(n) if knowledge else ()),
        ]
    )


def knowledge_pieces(n: int) -> tuple[PieceSpec, ...]:
    """The public card knowledge (config `knowledge`), deduced from the public pieces (`may_hold`,
    `must_hold`): what the scripted player works out, handed to a learner as Hanabi's card knowledge."""
    return (
        flags(
            "may_hold",
            (n, NUM_CARDS),
            ("seat", "card"),
            "card c is hidden and not ruled out in public for seat s (your own hand not removed)",
        ),
        flags(
            "must_hold",
            (n, NUM_CARDS),
            ("seat", "card"),
            "1/k: c is in a set of k cards seat s may hold, one of which it must hold (a relevant Suggestion); smallest set",
        ),
    )


def flags(name: str, shape: tuple[int, ...], axes: tuple[str, ...], description: str) -> PieceSpec:
    """A piece of 0/1 flags or fractions in [0, 1]."""
    return PieceSpec(name, shape, description, 0.0, 1.0, axes)


@cache
def source_layout(n: int, obs: Layout) -> Layout:
    """Every hand, then the public pieces with absolute seats: what observations are gathered from."""
    public = [
        PieceSpec(p.name, p.shape, p.description, p.low, p.high, p.axes) for p in obs if p.name != "hand"
    ]
    return Layout([flags("hands", (n, NUM_CARDS), ("seat", "card"), "every hand"), *public])


@cache
def source_places(n: int, knowledge: bool = False) -> tuple[dict[str, int], dict[str, int]]:
    """Where each piece starts in the source vector, and its length per seat (leading axis)."""
    source = source_layout(n, observation_layout(n, knowledge))
    return {p.name: p.offset for p in source}, {p.name: p.size // p.shape[0] for p in source}


@cache
def observer(n: int, knowledge: bool = False) -> Observer:
    """Turns the source into observation(p): the core observer rotates every axis the layout declares
    a seat axis; `hand` is the observer's row of the source's `hands`."""
    obs = observation_layout(n, knowledge)
    source = source_layout(n, obs)
    starts = {p.name: source[p.name].offset for p in obs if p.name != "hand"}
    return Observer(obs, n, starts=starts, own={"hand": source["hands"].offset})


@cache
def state_layout(n: int, obs: Layout) -> Layout:
    public = [
        PieceSpec(p.name, p.shape, p.description + " (absolute seats)", p.low, p.high, p.axes)
        for p in obs
        if p.name != "hand"
    ]
    return Layout(
        [
            flags("hands", (n, NUM_CARDS), ("seat", "card"), "every hand"),
            flags(
                "timer_position",
                (NUM_CARDS,),
                ("card",),
                "depth of each timer card from the top / timer size (0 if not there)",
            ),
            *public,
        ]
    )


__all__ = ["CHOOSE_AGONY", "CHOOSE_HARMONY", "TURN", "ConfigError", "Expressions", "ExpressionsConfig"]
