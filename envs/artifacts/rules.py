"""Artifacts (Academics vs Looters) as a pure engine.

The rule text's order: set-up (site, secret roles, Storage 3, optional Sold 2, the draw pile,
awareness); each round the drawer draws one card; a round window in which every living player may use
an Active ability, suggest a Resource or (Spain) Call; an artifact is kept or sold by a secret vote,
with the forced sale when Storage overflows and the optional extra sale; an event is followed as its
card says (Random, Election, Storage, Action, Delayed); Delayed events resolve at the end of their
round. Both sides' win conditions are checked after every change of the table. Readings of what the
text leaves open are marked "ours" in RULES.md.

The flow is one `envs.core.flow.TurnFlow` (`self.flow`), a stack of frames naming the rule functions:
- `Do` frames are the steps the rules take by themselves: `_round` (draw), `_window` (the next seat's
  turn in the round window), `_card` (the card's vote or event), `_end_round`, `_resolve` (an event),
  `_elect_vote`, `_extra_sale`, `_offer_check` / `_offer_death_ability`, and each vote's close.
- a `Decide` frame waits for one seat: its kind is the phase (PH_*: the observation's phase one-hot and
  the illegal-action reason read it), `legal` marks the mask, `then` carries the choice out; its args
  are (seat, context).
- a vote is one Decide frame per voter above the Do frame that closes it (`_open_vote`, the vote's
  rules from VOTES: mask, ballot, close, a ballot drawn for resampling): ballots stay secret until the
  last voter's, and the close publishes them all.
`_win` clears the flow. This module holds the engine contract, the set-up, the round's structure
(`_round`, `_card`, `_end_round`) and the win conditions; each family of rules is a mixin in a module
of its own, inherited by `Artifacts` (every rule stays `Artifacts.<name>`), with the tables of
functions its data rows select beside it, checked at import:
- window.py: the round window; WINDOW_OPTIONS, one refusal per option for the mask and the reason.
- votes.py: secret votes, keep or sell, votes over artifacts, Elections; VOTES, PIECE_VOTES.
- events.py: an event's targets and effect, side checks, Reveals, deaths; EVENT_TARGETS, EVENT_EFFECTS.
- abilities.py: Active abilities; ABILITIES. resources.py: suggesting and buying; RESOURCE_RULES.
- piles.py: pieces moving between Storage, Sold, Discard and the draw pile; Spain's call.
- knowledge.py: what each player knows of each seat, one rule, `knowledge()` (cached; the
  observation, the picture and resample_hidden read it), and the deals resample_hidden draws.
- layouts.py: the action space and the layouts; observation.py: writing the observation's source.
- definition.py: what a configuration fixes (ArtifactsDefinition: offsets, layouts, gathers), shared by
  every game of it; everything else on a game is its state (clone() copies it, to_dict() writes it).
- position.py: the conservation laws (check_invariants) and what a loaded position must satisfy
  (check_position: every refusal a PositionError naming the rule).

observation(p) is one gather (envs.core.observer.seat_gathers, from the layout's seat axes) from a
source vector in absolute seats, kept current by observation.py; which steps leave it unchanged
(QUIET_STEPS and friends) sits apart from the rules, at the end of this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core import ActionGroup, Game, GameType
from envs.core.config import require_choice, require_range
from envs.core.flow import Do, TurnFlow

from . import render
from .abilities import AbilityRules
from .data import (
    ACADEMIC_COLLECTION,
    ACADEMICS,
    ARTIFACTS,
    EMPTY_PILE_COLLECTION,
    EVENT_ID,
    EVENTS,
    IS_VOTE,
    LOOTER_EACH,
    LOOTERS,
    MAX_DECISIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_WINNER,
    NUM_ARTIFACT_CARDS,
    NUM_ARTIFACTS,
    NUM_CARDS,
    NUM_EVENTS,
    NUM_RESOURCES,
    PH_KEEP,
    PH_WINDOW,
    PHASE_NAMES,
    PIECES_PER_ARTIFACT,
    POSSESSED,
    PREFERENCES,
    RESOURCES,
    ROLE_ID,
    ROLE_NAMES,
    ROLE_SIDE,
    SIDE_NAMES,
    SITES,
    SOLD_START,
    STORAGE_EVENTS,
    STORAGE_LIMIT,
    STORAGE_START,
)
from .definition import ArtifactsDefinition, definition
from .events import EventRules
from .knowledge import KnowledgeRules, canonical_pile
from .layouts import SEAT_BLOCKS
from .observation import ObservationSource
from .piles import PileRules
from .position import PositionRules
from .resources import ResourceRules
from .vault import Vault
from .votes import VoteRules
from .window import WindowRules


@dataclass(frozen=True)
class ArtifactsConfig:
    num_players: int = 7
    preference: str = "standard"  # the role chart's preference: basic | standard | full
    site: str = "none"  # none | china | spain | greece
    sold_start: bool = True  # the optional 2 pieces in Sold at set-up
    talk: bool = True  # cheap-talk discussion steps before every election
    max_decisions: int = MAX_DECISIONS  # the faces truncate past this many (the rules bound games below it)

    def validate(self) -> None:
        require_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        require_choice("preference", self.preference, PREFERENCES)
        require_choice("site", self.site, SITES)
        require_range("max_decisions", self.max_decisions, 1, 10**9)


class Artifacts(
    WindowRules,
    VoteRules,
    EventRules,
    AbilityRules,
    ResourceRules,
    PileRules,
    KnowledgeRules,
    PositionRules,
    ObservationSource,
    Game,
):
    name = "artifacts"
    config_class = ArtifactsConfig
    rule_modules = ("envs.artifacts.vault",)  # the vault's record type, for saved positions
    # the observation's caches: the source vector and what it shows, the knowledge memo; a loaded
    # position rebuilds them on its first observation (_derive)
    DERIVED = frozenset(("_source", "_pub_dirty", "_pub_decision", "_know_memo"))

    def __init__(
        self, config: ArtifactsConfig | None = None, rng: np.random.Generator | None = None, **options
    ):
        super().__init__(config, rng, **options)
        self._derive()
        self._setup()

    @classmethod
    def definition(cls, config: ArtifactsConfig) -> ArtifactsDefinition:
        """The configuration's fixed part (definition.py), built once per configuration."""
        return definition(config)

    def _derive(self) -> None:
        """The observation's caches, empty: the next observation builds them from the state."""
        self._source: np.ndarray | None = None  # the observation source, built on the first observation
        self._pub_dirty = True
        self._pub_decision: tuple[int, int] | None = None  # (seat, kind) shown as to_act and phase
        # knowledge()'s memo: the key it was computed for, the knowledge, and the knowledge the
        # source holds (Knowledge or None each)
        self._know_memo: tuple = (None, None, None)

    # ===== set-up ===================================================================================
    def _setup(self) -> None:
        rng = self.rng
        roles = np.array(self.chart, dtype=np.int64)
        rng.shuffle(roles)
        self.roles = roles
        self._setup_rest()
        artifacts = np.arange(NUM_ARTIFACT_CARDS)
        rng.shuffle(artifacts)
        self.storage = [0] * NUM_ARTIFACTS
        self.sold = [0] * NUM_ARTIFACTS
        self.discard = [0] * NUM_ARTIFACTS
        for c in artifacts[:STORAGE_START]:
            self.storage[c // PIECES_PER_ARTIFACT] += 1
        taken = STORAGE_START
        if self.config.sold_start:
            for c in artifacts[taken : taken + SOLD_START]:
                self.sold[c // PIECES_PER_ARTIFACT] += 1
            taken += SOLD_START
        pile = [int(c) for c in artifacts[taken:]] + list(range(NUM_ARTIFACT_CARDS, NUM_CARDS))
        rng.shuffle(pile)
        self.pile = [int(c) for c in pile]  # top of the pile = end of the list
        self.vault = Vault.unknown(self.hidden_pieces(), sum(self.sold), 0) if self.spain else None
        self.first_seat = int(rng.integers(self.num_players))
        self.flow.do(Artifacts._round)
        self._advance()

    def _setup_rest(self) -> None:
        """Everything but the roles and the piles, as at the start of the game."""
        n = self.num_players
        # per seat (tuples: a copy shares them; data.replaced changes one seat's)
        self.alive = (True,) * n
        self.revealed = (False,) * n
        self.cleared = (False,) * n
        self.ability_used = (False,) * n
        self.silenced_until = (0,) * n  # the last round a seat is Silenced through
        self.peeks: tuple[tuple[int, int], ...] = ()  # (who learnt, whose side) private checks
        # beside each check in peeks, the seats its checker could name (public; whom it named is the
        # checker's alone); none for Greece's checks, fixed by the seating
        self.peek_options: tuple[tuple[int, ...], ...] = ()
        if self.config.site == "greece":
            self.peeks = tuple((p, (p + 1) % n) for p in range(n))
            self.peek_options = ((),) * n
        self.vault: Vault | None = None  # Spain: what the table knows of the face-down piles
        self.capacity = STORAGE_LIMIT
        self.storage_event = -1  # the Storage event using the Extra Storage Slot
        self.delayed: tuple[
            tuple[int, int, int, int], ...
        ] = ()  # (event, resolve round, drawn round, ballot box)
        self.events_gone = (False,) * NUM_EVENTS
        self.shaman_curse = False
        self.round = 0
        self.drawer = -1
        self.card = -1
        self.card_in_hand = False  # an artifact drawn but not yet kept or sold
        self._reset_card_status()
        self.bought_now = 0  # bitmask of resources bought this round
        self.called_now = False
        self.resources_bought = (0,) * NUM_RESOURCES
        self.suggested = -1
        self.winner = NO_WINNER
        self.end_reason = ""
        # what happens next, and the open vote
        self.flow = TurnFlow()
        self.voting: tuple[int, ...] = ()  # the voters of the open (or last) vote, in voting order
        self.ballots = [-1] * n  # the open vote's ballots (secret): raw actions, a seat in an election
        self.order: tuple[int, ...] = ()  # the round window's seats, from the drawer
        # public records: the last closed vote (absolute seats, absolute seat targets) and the running
        # records, in one vector (the properties last_vote, keep_sell, ... are views of it: votes.py)
        self.last_vote_kind = -1
        self.records = np.zeros(self._records_size, dtype=np.float32)
        self.log: tuple[str, ...] = ()  # what happened, line by line (a tuple: lines are only added)

    def set_table(
        self,
        roles=None,
        storage=(0, 0, 0, 0, 0),
        sold=(0, 0, 0, 0, 0),
        discard=(0, 0, 0, 0, 0),
        top=(),
        first_seat: int = 0,
        events_gone=(),
        start_round: int = 1,
    ) -> None:
        """Restart from round 1 with a chosen table (for tests and analysis): roles by seat (ids or
        names), pieces per artifact in Storage / Sold / Discard, and the first cards of the draw pile
        (`top`: artifact index 0-4 or event name, the first drawn first); the rest of the draw pile is
        every other card, shuffled. `start_round` numbers the first round played."""
        n = self.num_players
        ids = None
        if roles is not None:
            unknown = [r for r in roles if isinstance(r, str) and r not in ROLE_ID]
            if unknown:
                raise ValueError(f"unknown role name(s) {unknown}; roles are {list(ROLE_ID)}")
            ids = [ROLE_ID[r] if isinstance(r, str) else int(r) for r in roles]
            if sorted(ids) != list(self.chart):
                raise ValueError(f"roles {ids} are not the role chart {list(self.chart)}")
        for name, counts in (("storage", storage), ("sold", sold), ("discard", discard)):
            if len(counts) != NUM_ARTIFACTS or min(counts) < 0:
                raise ValueError(f"{name} must give 5 non-negative counts, got {counts!r}")
        for a in range(NUM_ARTIFACTS):
            placed = (
                storage[a] + sold[a] + discard[a] + sum(1 for t in top if not isinstance(t, str) and t == a)
            )
            if placed > PIECES_PER_ARTIFACT:
                raise ValueError(f"more than 5 pieces of {ARTIFACTS[a]} placed")
        if sum(storage) > STORAGE_LIMIT or max(storage) >= ACADEMIC_COLLECTION:
            raise ValueError(
                f"storage {storage!r} must hold at most 5 pieces and fewer than 4 of one artifact"
            )
        bad = [t for t in list(top) + list(events_gone) if isinstance(t, str) and t not in EVENT_ID]
        bad += [t for t in top if not isinstance(t, str) and not 0 <= t < NUM_ARTIFACTS]
        if bad:
            raise ValueError(f"unknown card(s) {bad}: give artifact indices 0-4 or event names")
        if ids is not None:
            self.roles = np.array(ids, dtype=np.int64)
        self._setup_rest()
        self.storage, self.sold, self.discard = list(storage), list(sold), list(discard)
        free = {
            a: list(range(a * 5, a * 5 + 5))[storage[a] + sold[a] + discard[a] :]
            for a in range(NUM_ARTIFACTS)
        }
        gone = {EVENT_ID[e] for e in events_gone}
        self.events_gone = tuple(i in gone for i in range(NUM_EVENTS))
        head = []
        for item in top:
            if isinstance(item, str):
                head.append(NUM_ARTIFACT_CARDS + EVENT_ID[item])
            else:
                head.append(free[item].pop())
        rest = [c for a in range(NUM_ARTIFACTS) for c in free[a]]
        rest += [
            NUM_ARTIFACT_CARDS + i
            for i in range(NUM_EVENTS)
            if i not in gone and NUM_ARTIFACT_CARDS + i not in head
        ]
        self.rng.shuffle(rest)
        self.pile = [int(c) for c in rest] + head[::-1]
        self.vault = Vault.unknown(self.hidden_pieces(), sum(sold), sum(discard)) if self.spain else None
        self.first_seat = first_seat % n
        self.round = start_round - 1
        self.flow.do(Artifacts._round)
        self._mask_cache = None
        self._advance()
        self._pub_dirty = True

    # ===== the contract ============================================================================
    def current_player(self) -> int:
        top = self.flow.decision
        return -1 if top is None or self.winner != NO_WINNER else top.player

    @property
    def phase(self) -> int:
        """The waiting decision's kind (PH_*), -1 when none waits (read-only: the flow decides)."""
        top = self.flow.decision
        return -1 if top is None or self.winner != NO_WINNER else top.kind

    def is_terminal(self) -> bool:
        return self.winner != NO_WINNER

    def game_type(self) -> GameType:
        """Secret teams (the dealt sides); every winner +1, every loser -1. The sides never have equal
        sizes (2-4 Looters among 5-10), so the returns add up to +-(Academics - Looters) depending on
        who wins: general-sum for the players, zero-sum between the two teams."""
        return GameType("general_sum", "secret", -1.0, 1.0, self.config.max_decisions)

    def returns(self) -> np.ndarray:
        if self.winner == NO_WINNER:
            return np.zeros(self.num_players)
        return np.array([1.0 if ROLE_SIDE[r] == self.winner else -1.0 for r in self.roles])

    def teams(self) -> list[int]:
        """The dealt sides (0 Academics, 1 Looters) per seat: secret, for the referee only."""
        return [ROLE_SIDE[int(r)] for r in self.roles]

    # ===== small queries ===========================================================================
    def living(self) -> list[int]:
        """Living seats in seat order from the drawer."""
        n, start = self.num_players, max(self.drawer, 0)
        return [s for s in ((start + k) % n for k in range(n)) if self.alive[s]]

    def is_silenced(self, s: int) -> bool:
        return self.silenced_until[s] >= self.round

    def voters(self) -> list[int]:
        return [s for s in self.living() if not self.is_silenced(s)]

    def pile_has(self, a: int) -> bool:
        lo = a * PIECES_PER_ARTIFACT
        return any(lo <= c < lo + PIECES_PER_ARTIFACT for c in self.pile)

    def sold_total(self) -> int:
        return sum(self.sold)

    def storage_total(self) -> int:
        return sum(self.storage)

    def looters_pile_condition(self) -> bool:
        return all(self.sold[a] + self.discard[a] >= LOOTER_EACH for a in range(NUM_ARTIFACTS))

    def all_looters_revealed(self) -> bool:
        return all(self.revealed[s] for s in range(self.num_players) if ROLE_SIDE[self.roles[s]] == LOOTERS)

    def possessed_dead(self) -> bool:
        return any(not self.alive[s] for s in range(self.num_players) if self.roles[s] == POSSESSED)

    # ===== the driver ==============================================================================
    def _advance(self) -> None:
        """Play the rules' own steps (Do frames) until a seat must decide or the game is over."""
        frames = self.flow.frames
        while frames and type(frames[-1]) is Do and self.winner == NO_WINNER:
            step = frames.pop()
            if step.run not in QUIET_STEPS:  # (observation bookkeeping: see QUIET_STEPS)
                self._pub_dirty = True
            step.run(self, *step.args)

    def _win(self, side: int, reason: str) -> None:
        """The game ends at once: nothing left to do is done."""
        if self.winner == NO_WINNER:
            self.winner = side
            self.end_reason = reason
            self.flow.clear()
            self.log += (f"{SIDE_NAMES[side]} win: {reason}",)

    def _check_academics(self) -> None:
        if self.winner != NO_WINNER:
            return
        if max(self.storage) >= ACADEMIC_COLLECTION:
            self._win(ACADEMICS, f"4 pieces of {ARTIFACTS[int(np.argmax(self.storage))]} in Storage")
        elif self.all_looters_revealed():
            self._win(ACADEMICS, "every Looter is Revealed")

    def _check_looters(self) -> None:
        if self.winner != NO_WINNER:
            return
        if self.possessed_dead():
            self._win(LOOTERS, "the Possessed is dead")
        elif not self.spain and self.looters_pile_condition():
            self._win(LOOTERS, "2 pieces of each artifact in Sold + Discard")

    # ===== a round ==================================================================================
    def _round(self) -> None:
        """The next living seat draws the top card; then the round window, the card, the round's end."""
        n = self.num_players
        if not self.pile:
            best = max(self.storage)
            if best >= EMPTY_PILE_COLLECTION:
                self._win(ACADEMICS, "the draw pile is empty and Storage holds 3 of one artifact")
            else:
                self._win(LOOTERS, "the draw pile is empty without 3 of one artifact in Storage")
            return
        self.round += 1
        if self.drawer < 0:
            start = self.first_seat
        else:
            start = (self.drawer + 1) % n
        while not self.alive[start]:
            start = (start + 1) % n
        self.drawer = start
        self.card = self.pile.pop()
        self._reset_card_status()
        self.bought_now = 0
        self.called_now = False
        self.order = tuple(self.living())
        self.flow.do(Artifacts._end_round)
        if self.card < NUM_ARTIFACT_CARDS:
            self.card_in_hand = True
            if self.vault is not None:  # the pile held this piece
                self.vault.prune(self.hidden_pieces())
            self.log += (
                f"round {self.round}: player {self.drawer} draws {ARTIFACTS[self.card // PIECES_PER_ARTIFACT]}",
            )
        else:
            ev = self.card - NUM_ARTIFACT_CARDS
            self.events_gone = (*self.events_gone[:ev], True, *self.events_gone[ev + 1 :])
            self.log += (f"round {self.round}: player {self.drawer} draws {EVENTS[ev].name}",)
            if ev in STORAGE_EVENTS and self.storage_event >= 0 and self.storage_event != ev:
                self.nulled = True  # FAQ: Storage Expansion vs Borrow Exhibit
            elif ev in STORAGE_EVENTS:
                self.storage_event = ev  # active from the draw on
        self.flow.do(Artifacts._card)
        self.flow.do(Artifacts._window, 0)

    def _reset_card_status(self) -> None:
        """What the resources and the Storage events did to this round's card (public)."""
        self.ballot_box = False  # Ballot Box bought: this Random event's targets are elected
        self.skipped = False  # Lawyer bought: this Election is skipped
        self.red_tape = False  # Red Tape bought: this Election resolves at the end of the next round
        self.nulled = False  # a Storage event drawn while the other one is active

    def _card(self) -> None:
        """The card after the window: an artifact goes to the keep vote; an event is followed (unless
        nulled or skipped), now or, Delayed or Red-Taped, at the end of a later round."""
        if self.card < NUM_ARTIFACT_CARDS:
            self._open_vote(PH_KEEP)
            return
        ev = self.card - NUM_ARTIFACT_CARDS
        if self.nulled or self.skipped:
            return
        e = EVENTS[ev]
        if e.delay or self.red_tape:
            delay = e.delay if e.delay else 1
            self.delayed += ((ev, self.round + delay, self.round, int(self.ballot_box)),)
            return
        self.flow.do(Artifacts._resolve, ev, int(self.ballot_box))

    def _end_round(self) -> None:
        """The round's Delayed events resolve (the oldest first), then the next round."""
        self.card_in_hand = False
        self.flow.do(Artifacts._round)
        due = [d for d in self.delayed if d[1] <= self.round]
        self.delayed = tuple(d for d in self.delayed if d[1] > self.round)
        for d in reversed(due):
            self.flow.do(Artifacts._resolve, d[0], d[3])

    # ===== the legal mask ==========================================================================
    def _legal_mask(self) -> np.ndarray:
        return self.flow.fill_mask(self, np.zeros(self.num_actions, dtype=bool))

    def illegal_reason(self, action: int) -> str:
        top = self.flow.decision
        if top is not None and top.kind == PH_WINDOW:  # the window's own refusals (WINDOW_OPTIONS)
            return f"in the round window: {self._window_refusal(top.player, action)}"
        return (
            f"in phase '{PHASE_NAMES[self.phase]}' the legal actions are "
            f"{list(np.flatnonzero(self.legal_action_mask()))}"
        )

    # ===== applying an action ======================================================================
    def _apply(self, action: int) -> None:
        then = self.flow.decision.then
        if not (then in QUIET_CHOICES or (action == self.A_PASS and then in QUIET_PASSES)):
            self._pub_dirty = True  # (observation bookkeeping: see QUIET_STEPS)
        self.flow.choose(self, action)
        self._advance()

    # ===== observations ============================================================================
    def observation(self, player: int) -> np.ndarray:
        if self._pub_dirty:  # (what a player knows changes only with the public table)
            self._build_public()
            self._write_knowledge(self._source)
        src, at = self._source, self._at
        top = self.flow.decision
        decision = None if top is None or self.winner != NO_WINNER else (top.player, top.kind)
        if decision != self._pub_decision:  # who acts and the phase change without a public event
            src[at["to_act"]] = 0
            src[at["phase"]] = 0
            if decision is not None:
                src[at["to_act"].start + top.player] = 1
                src[at["phase"].start + top.kind] = 1
            self._pub_decision = decision
        return src.take(self._observer_index[player])

    def state_tensor(self) -> np.ndarray:
        n = self.num_players
        out = np.zeros(self.state_layout.size, dtype=np.float32)
        v = self.state_layout.views(out)
        v["roles"][np.arange(n), self.roles] = 1
        pile = self.pile[::-1]
        v["draw_pile"][: len(pile)] = (np.array(pile, dtype=np.float32) + 1) / NUM_CARDS
        v["sold"][:] = np.array(self.sold) / 5
        v["discard"][:] = np.array(self.discard) / 5
        if self.phase >= 0 and IS_VOTE[self.phase]:  # the open vote's secret ballots
            for s in range(n):
                if self.ballots[s] >= 0:
                    v["ballots"][s] = (self.ballots[s] + 1) / 64
        for who, whom in self.peeks:
            v["private_sides"][who, whom] = 1
        v["seat0_view"][:] = self.observation(0)
        return out

    # ===== determinization ==========================================================================
    def resample_hidden(self, player: int, rng: np.random.Generator) -> Artifacts:
        """A state drawn from those p cannot tell from this one, as a function of p's information and
        rng alone: every draw starts from a canonical (sorted) pool, never from the true arrangement,
        and the sample's own chance is seeded from rng."""
        p = player
        g = self.clone(rng=np.random.default_rng(int(rng.integers(2**63))))  # (its own chance)
        g.log = (f"(a state drawn for player {p}: the hidden roles, checks, ballots and cards redrawn)",)
        # roles: keep what p knows; re-deal the rest of the chart under every side constraint
        g.roles = self._consistent_roles(p, rng)
        # whom other seats checked privately: any seat they could have named
        peeks = list(self.peeks)
        for i, (who, _) in enumerate(self.peeks):
            options = self.peek_options[i] if i < len(self.peek_options) else ()
            if who != p and options:
                peeks[i] = (who, options[int(rng.integers(len(options)))])
        g.peeks = tuple(peeks)
        # other voters' secret ballots in the open vote
        if self.phase >= 0 and IS_VOTE[self.phase]:
            for s in self.voting:
                if s != p and self.ballots[s] >= 0:  # cast already
                    g.ballots[s] = self._random_ballot(s, rng)
        # the draw pile; under Spain also the face-down Sold and Discard, drawn among the contents the
        # whole public history allows (the vault), the pile holding the rest
        hidden = self.hidden_pieces()
        if self.vault is not None:
            config = self.vault.draw(rng)
            g.sold, g.discard = list(config[:NUM_ARTIFACTS]), list(config[NUM_ARTIFACTS:])
        in_pile = [hidden[a] - g.sold[a] - g.discard[a] for a in range(NUM_ARTIFACTS)]
        g.pile = canonical_pile(in_pile, self.events_gone)
        rng.shuffle(g.pile)
        if self.card < NUM_ARTIFACT_CARDS:  # pieces of one artifact look alike: a canonical id
            g.card = self.card // PIECES_PER_ARTIFACT * PIECES_PER_ARTIFACT + PIECES_PER_ARTIFACT - 1
        g._mask_cache = None
        g._know_memo = (None, None, None)
        g._pub_dirty = True
        return g

    # ===== text =====================================================================================
    def action_to_string(self, action: int) -> str:
        n = self.num_players
        a = int(action)
        s = self.current_player()

        def rel(k):
            return f"player {(s + k) % n}" if s >= 0 else f"seat +{k}"

        for name, (start, count) in self.blocks.items():
            if start <= a < start + count:
                k = a - start
                if name == "seat":
                    return f"choose {rel(k)}"
                if name == "artifact":
                    return f"choose {ARTIFACTS[k]}"
                if name == "role":
                    return f"name {ROLE_NAMES[k]}"
                if name == "resource":
                    return f"suggest {RESOURCES[k].name}"
                if name == "accuse":
                    return f"accuse {rel(k)}"
                if name == "vouch":
                    return f"vouch for {rel(k)}"
                return {
                    "pass": "pass / none",
                    "yes": "yes (keep / agree)",
                    "no": "no (sell / disagree)",
                    "use": "use Active ability",
                    "call": "call a check (Spain)",
                }[name]
        return f"action {a} (out of range)"

    def action_groups(self) -> list[ActionGroup]:
        meaning = {
            "pass": "pass in the window / say nothing / sell no more / do not use",
            "yes": "keep the artifact, agree to buy",
            "no": "sell the artifact, do not buy",
            "seat": "a player, relative seat (0 = me): election vote, ability target, side check",
            "artifact": "an artifact: which to sell, replace, restore, search, smuggle",
            "role": "a role (Foxfire)",
            "use": "use my Active ability (window, death)",
            "resource": "suggest buying a resource",
            "call": "Spain: call a check of the hidden piles",
            "accuse": "discussion: accuse a player (relative seat)",
            "vouch": "discussion: vouch for a player (relative seat)",
        }
        return [
            ActionGroup(name, start, count, meaning[name], seats=name in SEAT_BLOCKS)
            for name, (start, count) in self.blocks.items()
        ]

    def to_string(self, player: int | None = None) -> str:
        """The table as text, from `player`'s point of view (None: the whole table)."""
        return render.text(self, player)

    def render_rgb(self, player: int | None = None) -> np.ndarray:
        """The table as a picture, from `player`'s point of view (None: the whole table)."""
        return render.render(self, player)


# ===== observation bookkeeping, apart from the rules ============================================
# The public table is rebuilt for the next observation after every step or choice except these, which
# leave it as it was: a step that only puts the next seat's decision on the flow, a secret ballot
# (public when the vote's close publishes it), a pass. (Who acts and the phase are written apart.)
QUIET_STEPS = frozenset({Artifacts._window, Artifacts._offer_check, Artifacts._offer_death_ability})
QUIET_CHOICES = frozenset({Artifacts._cast_ballot, Artifacts._cast_seat_ballot})
QUIET_PASSES = frozenset({Artifacts._window_choice, Artifacts._talk, Artifacts._death_choice})
