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
`_win` clears the flow. What a data row selects is a table of functions beside the rules, checked at
import: EVENT_TARGETS (whom an event targets: data.TARGETS), EVENT_EFFECTS (its effect), ABILITIES (a
role's Active ability), RESOURCE_RULES (when a resource may be suggested, and what buying it does) and
PIECE_VOTES (a vote over artifacts: its options and its result). The round window's options are
WINDOW_OPTIONS: one refusal per option gives both the mask and the illegal-action reason.
What each player knows of each seat is one rule, `knowledge()` (cached; the observation, the picture
and resample_hidden read it).

observation(p) is one gather (envs.core.observer.seat_gathers, from the layout's seat axes) from a
source vector in absolute seats; the bookkeeping that keeps that source current (QUIET_STEPS and
friends) sits apart from the rules, at the end of the module.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

from envs.core import ActionGroup, Game, GameType, Layout, PieceSpec
from envs.core.config import require_choice, require_range
from envs.core.flow import Do, TurnFlow, check_handlers
from envs.core.game import copy_rng, copy_state
from envs.core.observer import seat_gathers

from . import render
from .data import (
    ABILITY_FROM_ROUND,
    ACADEMIC_COLLECTION,
    ACADEMICS,
    ACTIVE_ABILITIES,
    APPARENT_SIDE,
    ARTIFACTS,
    AWARE_OF,
    EFFECTS,
    ELECTION,
    EMPTY_PILE_COLLECTION,
    EVENT_ID,
    EVENTS,
    EXTRA_SLOT,
    IS_VOTE,
    LOOTER_EACH,
    LOOTERS,
    MAX_ARTIFACT_DRAWS,
    MAX_DECISIONS,
    MAX_DELAY,
    MAX_ELECTIONS,
    MAX_PLAYERS,
    MAX_PURCHASES,
    MAX_ROUNDS,
    MAX_SILENCE,
    MIN_PLAYERS,
    NO_WINNER,
    NUM_ARTIFACT_CARDS,
    NUM_ARTIFACTS,
    NUM_CARDS,
    NUM_EVENTS,
    NUM_PHASES,
    NUM_RESOURCES,
    NUM_ROLES,
    NUM_VOTE_KINDS,
    PH_AGREE,
    PH_DEATH,
    PH_DONATION,
    PH_ELECT,
    PH_EXTRA,
    PH_FOXFIRE,
    PH_KEEP,
    PH_OVERFLOW,
    PH_PEEK,
    PH_REPLACE,
    PH_RESTORE,
    PH_TALK,
    PH_TARGET,
    PH_THEFT,
    PH_WINDOW,
    PHASE_NAMES,
    PIECES_PER_ARTIFACT,
    POSSESSED,
    PREFERENCES,
    RANDOM,
    RESOURCES,
    ROLE_ACTIVE,
    ROLE_ID,
    ROLE_NAMES,
    ROLE_SIDE,
    ROLES,
    SIDE_NAMES,
    SITES,
    SOLD_START,
    STORAGE_EVENTS,
    STORAGE_LIMIT,
    STORAGE_START,
    TARGETS,
    TYPE_VOTES,
    VOTE_KIND,
    VOTE_PHASES,
    VOTES_PER_SEAT,
    role_chart,
)
from .vault import Vault


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


# the blocks whose actions are the relative seats, one each (ActionGroup.seats)
SEAT_BLOCKS = ("seat", "accuse", "vouch")


def action_blocks(n: int) -> dict[str, tuple[int, int]]:
    """The flat action space for n players: block name -> (first index, count)."""
    blocks = {}
    start = 0
    for name, count in (
        ("pass", 1),
        ("yes", 1),
        ("no", 1),
        ("seat", n),
        ("artifact", NUM_ARTIFACTS),
        ("role", NUM_ROLES),
        ("use", 1),
        ("resource", NUM_RESOURCES),
        ("call", 1),
        ("accuse", n),
        ("vouch", n),
    ):
        blocks[name] = (start, count)
        start += count
    return blocks


def observation_layout(n: int) -> Layout:
    """Every piece bounded: 0/1 flags and one-hots, counts divided by a bound the rules prove (data.py),
    discussion tokens in [-1, 1]. Axes: seat (relative, 0 = the observer), card (role, artifact or
    event card ids), item (artifacts, resources), feature."""
    V = 2 + n + NUM_ARTIFACTS + 1
    S, C, I, F = "seat", "card", "item", "feature"
    return Layout(
        [
            PieceSpec("my_role", (NUM_ROLES,), "own role, one-hot", 0, 1, (C,)),
            PieceSpec(
                "known_roles",
                (n, NUM_ROLES),
                "roles I know (own, Revealed, awareness), by relative seat",
                0,
                1,
                (S, C),
            ),
            PieceSpec(
                "known_sides",
                (n, 2),
                "sides I know [Academic, Looter] (roles known, private checks, public clears)",
                0,
                1,
                (S, F),
            ),
            PieceSpec("alive", (n,), "1 if the seat is alive", 0, 1, (S,)),
            PieceSpec("revealed", (n,), "1 if the seat's role is Revealed", 0, 1, (S,)),
            PieceSpec("silenced", (n,), "1 if the seat is Silenced now", 0, 1, (S,)),
            PieceSpec(
                "silence_left", (n,), f"rounds of silence left after this one, /{MAX_SILENCE}", 0, 1, (S,)
            ),
            PieceSpec("ability_used", (n,), "1 if the seat has used its Active ability", 0, 1, (S,)),
            PieceSpec(
                "cleared", (n,), "1 if publicly known to be an Academic (Shaman's wrong guess)", 0, 1, (S,)
            ),
            PieceSpec("drawer", (n,), "the drawer of this round", 0, 1, (S,)),
            PieceSpec("to_act", (n,), "the player choosing now", 0, 1, (S,)),
            PieceSpec("phase", (NUM_PHASES,), "the current decision, one-hot", 0, 1, (F,)),
            PieceSpec(
                "card",
                (NUM_ARTIFACTS + NUM_EVENTS,),
                "this round's card: artifact or event, one-hot",
                0,
                1,
                (C,),
            ),
            PieceSpec(
                "card_status",
                (5,),
                "[artifact still to place, Ballot Box, Skipped, Red Tape, nulled]",
                0,
                1,
                (F,),
            ),
            PieceSpec("storage", (NUM_ARTIFACTS,), "pieces in Storage per artifact, /5", 0, 1, (I,)),
            PieceSpec(
                "sold", (NUM_ARTIFACTS,), "pieces in Sold per artifact, /5 (zero under Spain)", 0, 1, (I,)
            ),
            PieceSpec(
                "discard",
                (NUM_ARTIFACTS,),
                "pieces in Discard per artifact, /5 (zero under Spain)",
                0,
                1,
                (I,),
            ),
            PieceSpec(
                "pile_sizes",
                (4,),
                "[Storage capacity /6, Sold size /25, Discard size /25, draw pile /50]",
                0,
                1,
                (F,),
            ),
            PieceSpec(
                "vault",
                (NUM_ARTIFACTS, 4),
                "Spain: per artifact [fewest, most] pieces in Sold, [fewest, most] in Discard that the "
                "public history allows, /5 (zero elsewhere)",
                0,
                1,
                (I, F),
            ),
            PieceSpec("events_gone", (NUM_EVENTS,), "1 for each event already drawn", 0, 1, (C,)),
            PieceSpec(
                "delayed",
                (NUM_EVENTS,),
                f"events waiting to resolve (Delayed or Red-Taped): rounds until they resolve, /{MAX_DELAY + 1}",
                0,
                1,
                (C,),
            ),
            PieceSpec(
                "flags",
                (4,),
                "[extra slot open, Shaman's curse pending, a resource suggested now, Spain call made]",
                0,
                1,
                (F,),
            ),
            PieceSpec("resource", (NUM_RESOURCES,), "the resource now put to the vote, one-hot", 0, 1, (I,)),
            PieceSpec(
                "resources_bought",
                (NUM_RESOURCES,),
                f"times each resource was bought, /{MAX_PURCHASES}",
                0,
                1,
                (I,),
            ),
            PieceSpec("round", (1,), f"round number /{MAX_ROUNDS}", 0, 1, (F,)),
            PieceSpec("site", (len(SITES),), "the site, one-hot", 0, 1, (F,)),
            PieceSpec("chart", (NUM_ROLES,), "how many of each role are in play, /4", 0, 1, (C,)),
            PieceSpec(
                "last_vote_kind", (NUM_VOTE_KINDS,), "kind of the last closed vote, one-hot", 0, 1, (F,)
            ),
            PieceSpec(
                "last_vote",
                (n, V),
                "each seat's choice in it: [yes, no, seat (relative) x n, artifact x5, none]",
                0,
                1,
                (S, F),
            ),
            PieceSpec(
                "keep_sell_record",
                (n, 2),
                f"artifact votes so far per seat: [keep, sell], /{MAX_ARTIFACT_DRAWS}",
                0,
                1,
                (S, F),
            ),
            PieceSpec(
                "majority_record",
                (n, 2),
                f"closed votes so far per seat: [voted with the result, against], /{VOTES_PER_SEAT}",
                0,
                1,
                (S, F),
            ),
            PieceSpec(
                "election_record",
                (n, n),
                f"election votes so far from seat i for seat j, /{MAX_ELECTIONS}",
                0,
                1,
                (S, S),
            ),
            PieceSpec(
                "talk_last", (n, n), "last discussion: +1 seat i vouched for j, -1 accused", -1, 1, (S, S)
            ),
            PieceSpec(
                "talk_record",
                (n, n),
                f"all discussions: vouches minus accusations from i about j, /{MAX_ELECTIONS}",
                -1,
                1,
                (S, S),
            ),
        ]
    )


def state_layout(n: int, obs: Layout) -> Layout:
    return Layout(
        [
            PieceSpec("roles", (n, NUM_ROLES), "every seat's role (absolute seats)", axes=("seat", "card")),
            ("draw_pile", (NUM_CARDS,), "the draw pile from the top: (card id + 1) / 50, 0 past its end"),
            ("sold", (NUM_ARTIFACTS,), "Sold per artifact /5"),
            ("discard", (NUM_ARTIFACTS,), "Discard per artifact /5"),
            PieceSpec(
                "ballots",
                (n,),
                "secret ballots of the open vote: (action + 1) / 64, 0 if none",
                axes=("seat",),
            ),
            PieceSpec(
                "private_sides",
                (n, n),
                "1 if seat i has privately learnt seat j's side",
                axes=("seat", "seat"),
            ),
            ("seat0_view", (obs.size,), "observation of seat 0 (public information)"),
        ]
    )


class Definition:
    """What a configuration fixes, built once and shared by every game of it and by every copy: the
    flat action space's offsets, the observation and state layouts, the role chart, the observation's
    source layout and gather index. A game holds these attributes by reference; clone() copies only
    the mutable state (and the turn flow)."""

    def __init__(self, cfg: ArtifactsConfig):
        n = self.num_players = cfg.num_players
        self.spain = cfg.site == "spain"
        self.china = cfg.site == "china"
        self.blocks = action_blocks(n)
        self.A_PASS = 0
        self.A_YES = 1
        self.A_NO = 2
        self.A_SEAT = self.blocks["seat"][0]
        self.A_ART = self.blocks["artifact"][0]
        self.A_ROLE = self.blocks["role"][0]
        self.A_USE = self.blocks["use"][0]
        self.A_RES = self.blocks["resource"][0]
        self.A_CALL = self.blocks["call"][0]
        self.A_ACCUSE = self.blocks["accuse"][0]
        self.A_VOUCH = self.blocks["vouch"][0]
        self.num_actions = self.A_VOUCH + n
        self.observation_layout = observation_layout(n)
        self.state_layout = state_layout(n, self.observation_layout)
        self.site = cfg.site
        self.chart = role_chart(n, cfg.preference)
        self.num_looters = sum(ROLE_SIDE[r] == LOOTERS for r in self.chart)
        # the round window's options by action (WINDOW_OPTIONS): action -> (option, index in its block)
        self._window_option = {
            self.blocks[name][0] + k: (option, k)
            for name, option in WINDOW_OPTIONS.items()
            for k in range(self.blocks[name][1])
        }
        self._window_action = tuple(self._window_option.items())
        self._observe_at(n)

    def _observe_at(self, n: int) -> None:
        """The observation's source vector, one per game, in absolute seats: every seat's role one-hot
        [n, roles] (the observer's row is my_role), what each observer knows of every seat by relative
        seat ([n, n, roles] and [n, n, 2]: its row is known_roles / known_sides), then the public
        pieces in layout order. observation(p) is one gather from it, derived from the layout's seat
        axes (envs.core.observer.seat_gathers)."""
        lay = self.observation_layout
        R = NUM_ROLES
        self._roles_at = slice(0, n * R)
        self._known_roles_at = slice(n * R, n * R + n * n * R)
        self._known_sides_at = slice(self._known_roles_at.stop, self._known_roles_at.stop + n * n * 2)
        first_public = lay["known_sides"].offset + lay["known_sides"].size
        shift = self._known_sides_at.stop - first_public
        # where each public piece lies in the source, and the part the configuration fixes
        self._at = {
            piece.name: slice(piece.offset + shift, piece.offset + shift + piece.size)
            for piece in lay.pieces
            if piece.offset >= first_public
        }
        self._public_at = slice(first_public + shift, lay.size + shift)
        self._pub_fixed = np.zeros(lay.size - first_public, dtype=np.float32)
        self._pub_fixed[self._at["site"].start - shift - first_public + SITES.index(self.site)] = 1
        for r in self.chart:
            self._pub_fixed[self._at["chart"].start - shift - first_public + r] += 0.25
        self._source_size = lay.size + shift
        self._observers = np.arange(n)[:, None]
        self._relative_seats = (self._observers + np.arange(n)[None, :]) % n  # [observer, k] -> seat
        # pieces written together (contiguous in the layout)
        self._seat_flags_at = slice(self._at["alive"].start, self._at["cleared"].stop)
        self._piles_at = slice(self._at["storage"].start, self._at["discard"].stop)
        self._no_piles = [0] * (2 * NUM_ARTIFACTS)
        names = [piece.name for piece in lay.pieces]
        for run in (
            ("alive", "revealed", "silenced", "silence_left", "ability_used", "cleared"),
            ("storage", "sold", "discard"),
        ):
            i = names.index(run[0])
            assert tuple(names[i : i + len(run)]) == run, f"{run} must stay contiguous in the layout"
        self._observer_index = seat_gathers(
            lay,
            n,
            starts={name: at.start for name, at in self._at.items()},
            own={
                "my_role": self._roles_at.start,
                "known_roles": self._known_roles_at.start,
                "known_sides": self._known_sides_at.start,
            },
            rotate={"last_vote": vote_target_seats},
        )


def vote_target_seats(block: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """last_vote's columns [yes, no, seat x n, artifact x5, none]: the seat columns are relative too."""
    n = len(perm)
    cols = np.arange(block.shape[1])
    cols[2 : 2 + n] = 2 + perm
    return block[:, cols]


@cache
def definition(cfg: ArtifactsConfig) -> Definition:
    """The shared definition of a configuration (built once: configs are frozen, so hashable)."""
    return Definition(cfg)


# The mutable state, by how clone() copies it: flat lists, numpy arrays. Besides these, the flow, `delayed`
# (a list of lists), `peek_options` (a dict), `vault` and `rng` get their own copies; every other
# attribute is the configuration's fixed definition (shared), an immutable value (ints, tuples,
# strings), or a read-only cache that is replaced and never written (`_mask_cache`); the observation
# source `_source` is copied with its flags.
LIST_FIELDS = (
    "alive",
    "revealed",
    "cleared",
    "ability_used",
    "silenced_until",
    "peeks",
    "events_gone",
    "resources_bought",
    "voting",
    "ballots",
    "order",
    "storage",
    "sold",
    "discard",
    "pile",
    "log",
)
ARRAY_FIELDS = (
    "roles",
    "last_vote",
    "keep_sell",
    "majority_record",
    "election_record",
    "talk_last",
    "talk_record",
)


def canonical_pile(in_pile: list[int], events_gone: list[bool]) -> list[int]:
    """The draw pile's cards in a canonical order, from what it holds: `in_pile[a]` pieces of each
    artifact (the lowest card ids: the card in hand, if any, takes the highest) and every event not
    yet drawn."""
    pile = [a * PIECES_PER_ARTIFACT + k for a in range(NUM_ARTIFACTS) for k in range(in_pile[a])]
    return pile + [NUM_ARTIFACT_CARDS + e for e in range(NUM_EVENTS) if not events_gone[e]]


def constrained_deal(
    pool: list[int], allowed: list[frozenset[int] | None], rng: np.random.Generator
) -> list[int]:
    """A deal of the multiset `pool` (sorted) to as many seats, seat i taking a role in allowed[i]
    (None: any), drawn uniformly among the distinct deals allowed. The constrained seats draw first,
    seat by seat, each role weighted by the number of deals it leaves (counted exactly: the free seats
    take any arrangement of what remains); the free seats then take a uniform arrangement of the rest.
    The draw depends on the pool and rng alone."""
    kinds = sorted(set(pool))
    bound = [i for i, ok in enumerate(allowed) if ok is not None]
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def takes(j: int, counts: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        """(role, counts left) for each role the j-th constrained seat may take now."""
        ok = allowed[bound[j]]
        return [
            (kinds[k], counts[:k] + (c - 1,) + counts[k + 1 :])
            for k, c in enumerate(counts)
            if c and kinds[k] in ok
        ]

    def ways(j: int, counts: tuple[int, ...]) -> int:
        if j == len(bound):  # the free seats: every arrangement of the rest
            return math.factorial(sum(counts)) // math.prod(math.factorial(c) for c in counts)
        if (j, counts) not in memo:
            memo[j, counts] = sum(ways(j + 1, rest) for _, rest in takes(j, counts))
        return memo[j, counts]

    deal = [-1] * len(pool)
    counts = tuple(pool.count(k) for k in kinds)
    for j, seat in enumerate(bound):
        options = takes(j, counts)
        weights = [ways(j + 1, rest) for _, rest in options]
        pick = int(rng.integers(sum(weights)))
        for (role, rest), w in zip(options, weights):
            if pick < w:
                deal[seat], counts = role, rest
                break
            pick -= w
    rest = [k for k, c in zip(kinds, counts) for _ in range(c)]
    for seat, i in zip((i for i, ok in enumerate(allowed) if ok is None), rng.permutation(len(rest))):
        deal[seat] = rest[i]
    return deal


class Knowledge(NamedTuple):
    """What every player knows of every seat, [observer, seat] in absolute seats (-1: unknown)."""

    role: np.ndarray  # the exact role p knows s to hold
    side: np.ndarray  # the side p knows s to have


AWARE = np.array([[r in AWARE_OF[holder] for r in range(NUM_ROLES)] for holder in range(NUM_ROLES)])
TRUE_SIDE = np.array(ROLE_SIDE)
SEEN_SIDE = np.array(APPARENT_SIDE)  # the side a check sees
ROLE_IDS = np.arange(NUM_ROLES)  # (one-hot columns)
SIDE_IDS = np.arange(2)  # known_sides' columns [Academic, Looter]
assert (ACADEMICS, LOOTERS) == (0, 1)


def learn(
    roles: np.ndarray, revealed: list[bool], cleared: list[bool], peeks: list[tuple[int, int]]
) -> Knowledge:
    """Artifacts.knowledge's rule for a whole table at once: roles known (own, Revealed, awareness),
    then sides: a known role's true side, else a public clear's (Academic), else a private check's
    apparent side."""
    n = len(roles)
    knows = AWARE[roles[:, None], roles[None, :]]  # [observer, seat]: aware of the seat's role
    knows |= np.array(revealed)
    knows.flat[:: n + 1] = True  # one's own role
    learnt = np.full((n, n), -1)
    for who, whom in peeks:
        learnt[who, whom] = SEEN_SIDE[roles[whom]]
    if True in cleared:
        learnt[:, np.array(cleared)] = ACADEMICS
    role = np.where(knows, roles[None, :], -1)
    return Knowledge(role, np.where(knows, TRUE_SIDE[roles][None, :], learnt))


EVERY_ROLE = frozenset(range(NUM_ROLES))
ACADEMIC_ROLES = frozenset(r for r in EVERY_ROLE if ROLE_SIDE[r] == ACADEMICS)
APPEARING_AS = {
    side: frozenset(r for r in EVERY_ROLE if APPARENT_SIDE[r] == side) for side in (ACADEMICS, LOOTERS)
}


class Artifacts(Game):
    name = "artifacts"
    config_class = ArtifactsConfig

    def __init__(
        self, config: ArtifactsConfig | None = None, rng: np.random.Generator | None = None, **options
    ):
        super().__init__(config, rng, **options)
        self.adopt(definition(self.config))
        self._source: np.ndarray | None = None  # the observation source, built on the first observation
        self._pub_dirty = True
        self._pub_decision: tuple[int, int] | None = None  # (seat, kind) shown as to_act and phase
        self._know_key = None  # what knowledge() was computed for, and its result
        self._know: Knowledge | None = None
        self._know_written: Knowledge | None = None  # the knowledge the source holds
        self._setup()

    def clone(self) -> Artifacts:
        """An independent copy: the mutable state copied structurally, the fixed definition shared."""
        return self._copy(copy_rng(self.rng))

    def _copy(self, rng: np.random.Generator) -> Artifacts:
        """clone() with the given generator for the copy's chance."""
        g = copy_state(self, LIST_FIELDS, ARRAY_FIELDS, ("delayed",))
        g.flow = self.flow.copy()
        g.peek_options = self.peek_options.copy()
        if self.vault is not None:
            g.vault = self.vault.copy()
        if self._source is not None:
            g._source = self._source.copy()
        g.rng = rng
        return g

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
        self.alive = [True] * n
        self.revealed = [False] * n
        self.cleared = [False] * n
        self.ability_used = [False] * n
        self.silenced_until = [0] * n
        self.peeks: list[tuple[int, int]] = []  # (who learnt, whose side) private checks
        # a check its checker chose, by its index in peeks: the seats it could name (public; whom it
        # named is the checker's alone). Greece's checks are fixed by the seating.
        self.peek_options: dict[int, tuple[int, ...]] = {}
        if self.config.site == "greece":
            self.peeks += [(p, (p + 1) % n) for p in range(n)]
        self.vault: Vault | None = None  # Spain: what the table knows of the face-down piles
        self.capacity = STORAGE_LIMIT
        self.storage_event = -1  # the Storage event using the Extra Storage Slot
        self.delayed: list[list[int]] = []  # [event, resolve round, drawn round, ballot box]
        self.events_gone = [False] * NUM_EVENTS
        self.shaman_curse = False
        self.round = 0
        self.drawer = -1
        self.card = -1
        self.card_in_hand = False  # an artifact drawn but not yet kept or sold
        self._reset_card_status()
        self.bought_now = 0  # bitmask of resources bought this round
        self.called_now = False
        self.resources_bought = [0] * NUM_RESOURCES
        self.suggested = -1
        self.winner = NO_WINNER
        self.end_reason = ""
        # what happens next, and the open vote
        self.flow = TurnFlow()
        self.voting: list[int] = []  # the voters of the open (or last) vote, in voting order
        self.ballots = [-1] * n  # the open vote's ballots (secret): raw actions, a seat in an election
        self.order: list[int] = []  # the round window's seats, from the drawer
        # public records
        V = 2 + n + NUM_ARTIFACTS + 1
        self.last_vote_kind = -1
        self.last_vote = np.zeros((n, V), dtype=np.float32)  # absolute seats, absolute seat targets
        self.keep_sell = np.zeros((n, 2), dtype=np.float32)
        self.majority_record = np.zeros((n, 2), dtype=np.float32)
        self.election_record = np.zeros((n, n), dtype=np.float32)
        self.talk_last = np.zeros((n, n), dtype=np.float32)
        self.talk_record = np.zeros((n, n), dtype=np.float32)
        self.log: list[str] = []

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
        self.events_gone = [i in gone for i in range(NUM_EVENTS)]
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

    def knowledge(self) -> Knowledge:
        """What every player knows of every seat (absolute seats), the rule in one place: p knows s's
        exact role if s is p, is Revealed, or holds a role p is aware of; p knows s's side from a
        known role (the true side), else from a public clear (Academic), else from a private check
        of p's (the apparent side: the Forger shows as an Academic). Cached until a reveal, a clear,
        a check or the deal changes (they change only with the table; resample_hidden drops it)."""
        key = (tuple(self.revealed), tuple(self.cleared), len(self.peeks), self.roles.tobytes())
        if key != self._know_key:
            self._know = learn(self.roles, self.revealed, self.cleared, self.peeks)
            self._know_key = key
        return self._know

    def knows_role(self, p: int, s: int) -> bool:
        """Does player p know seat s's exact role? (own, Revealed, or awareness)."""
        return bool(self.knowledge().role[p, s] >= 0)

    def known_side(self, p: int, s: int) -> int:
        """The side p knows seat s to have (-1: unknown); private checks see apparent sides."""
        return int(self.knowledge().side[p, s])

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
            self.log.append(f"{SIDE_NAMES[side]} win: {reason}")

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
        self.order = self.living()
        self.flow.do(Artifacts._end_round)
        if self.card < NUM_ARTIFACT_CARDS:
            self.card_in_hand = True
            if self.vault is not None:  # the pile held this piece
                self.vault.prune(self.hidden_pieces())
            self.log.append(
                f"round {self.round}: player {self.drawer} draws {ARTIFACTS[self.card // PIECES_PER_ARTIFACT]}"
            )
        else:
            ev = self.card - NUM_ARTIFACT_CARDS
            self.events_gone[ev] = True
            self.log.append(f"round {self.round}: player {self.drawer} draws {EVENTS[ev].name}")
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

    def _window(self, i: int) -> None:
        """The round window: the i-th seat from the drawer (if alive) may act."""
        order = self.order
        while i < len(order) and not self.alive[order[i]]:
            i += 1
        if i < len(order):
            s = order[i]
            self.flow.decide(PH_WINDOW, s, Artifacts._window_options, Artifacts._window_choice, s, i)

    def _window_options(self, mask: np.ndarray, s: int, i: int) -> None:
        """Every window option (WINDOW_OPTIONS) its refusal allows."""
        for action, (option, k) in self._window_action:
            if not option.refusal(self, s, k):
                mask[action] = True

    def _window_choice(self, action: int, s: int, i: int) -> None:
        """The option taken (WINDOW_OPTIONS), then the next seat's turn in the window."""
        self.flow.do(Artifacts._window, i + 1)
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
            self.delayed.append([ev, self.round + delay, self.round, int(self.ballot_box)])
            return
        self.flow.do(Artifacts._resolve, ev, int(self.ballot_box))

    def _end_round(self) -> None:
        """The round's Delayed events resolve (the oldest first), then the next round."""
        self.card_in_hand = False
        self.flow.do(Artifacts._round)
        due = [d for d in self.delayed if d[1] <= self.round]
        for d in reversed(due):
            self.delayed.remove(d)
            self.flow.do(Artifacts._resolve, d[0], d[3])

    # ===== artifacts: keep or sell =================================================================
    def _close_keep(self) -> None:
        a = self.card // PIECES_PER_ARTIFACT
        voters = self.voting
        yes = sum(1 for s in voters if self.ballots[s] == self.A_YES)
        no = len(voters) - yes
        keep = yes > no  # a tie goes to the disagree group: sell
        self._record_vote([(s, 0 if self.ballots[s] == self.A_YES else 1) for s in voters], keep_sell=True)
        self._china([s for s in voters if (self.ballots[s] == self.A_YES) != keep])
        self.card_in_hand = False
        self.flow.do(Artifacts._extra_sale)
        if keep:
            self.log.append(f"kept {ARTIFACTS[a]} ({yes}-{no})")
            self._add_to_storage(a, sell_overflow=True)
        else:
            self.log.append(f"sold {ARTIFACTS[a]} ({yes}-{no})")
            self._sell(a)

    def _extra_sale(self) -> None:
        if self.storage_total() == 0:
            return
        self._piece_vote(PH_EXTRA)

    # ===== pile moves ==============================================================================
    def _add_to_storage(self, a: int, sell_overflow: bool = False) -> None:
        """A piece enters Storage; beyond capacity one of the OTHER pieces is sold (a kept artifact)
        or replaced, i.e. Discarded (events and abilities), chosen by vote."""
        self.storage[a] += 1
        self._check_academics()
        if self.winner != NO_WINNER or self.storage_total() <= self.capacity:
            return
        self._piece_vote(PH_OVERFLOW if sell_overflow else PH_REPLACE, a)

    def hidden_pieces(self) -> list[int]:
        """Pieces of each artifact in no public place (5 minus Storage minus the card in hand): in the
        draw pile, Sold or Discard."""
        out = [PIECES_PER_ARTIFACT - k for k in self.storage]
        if self.card_in_hand:
            out[self.card // PIECES_PER_ARTIFACT] -= 1
        return out

    def _sell(self, a: int, seen: bool = True) -> None:
        self.sold[a] += 1
        if self.vault is not None and seen:
            self.vault.sell(a)
        self._check_looters()

    def _discard(self, a: int, seen: bool = True) -> None:
        if self.vault is not None and seen and not self.shaman_curse:
            self.vault.discard(a)
        if self.shaman_curse:  # the Shaman's wrong guess with an empty Discard
            self.shaman_curse = False
            self._shuffle_into_pile(a)
            self.log.append(f"the discarded {ARTIFACTS[a]} is shuffled back into the draw pile")
            return
        self.discard[a] += 1
        self._check_looters()

    def _shuffle_into_pile(self, a: int) -> None:
        lo = a * PIECES_PER_ARTIFACT
        used = set(c for c in self.pile if lo <= c < lo + PIECES_PER_ARTIFACT)
        held = self.card if self.card_in_hand else -1
        card = next(c for c in range(lo, lo + PIECES_PER_ARTIFACT) if c not in used and c != held)
        self.pile.append(card)
        self.rng.shuffle(self.pile)

    def _search_pile(self, a: int) -> bool:
        """Take one piece of artifact a out of the draw pile (then shuffle it); False if none."""
        lo = a * PIECES_PER_ARTIFACT
        for i, c in enumerate(self.pile):
            if lo <= c < lo + PIECES_PER_ARTIFACT:
                del self.pile[i]
                self.rng.shuffle(self.pile)
                return True
        return False

    def _random_piece(self, counts: list[int]) -> int:
        total = sum(counts)
        k = int(self.rng.integers(total))
        for a, c in enumerate(counts):
            if k < c:
                return a
            k -= c
        raise AssertionError("empty pile")

    def _pay(self, cost: int) -> None:
        """Resource cost: pieces from Sold to Discard (ours: the artifact with most pieces in Sold;
        under Spain random pieces)."""
        for _ in range(cost):
            if self.spain:
                a = self._random_piece(self.sold)
            else:
                a = int(np.argmax(self.sold))
            self.sold[a] -= 1
            curse = self.shaman_curse
            self._discard(a, seen=not self.spain)
            if self.vault is not None:  # which piece, nobody sees
                self.vault.pay_one(to_pile=curse)
            if self.winner != NO_WINNER:
                return

    # ===== votes ===================================================================================
    def _open_vote(self, kind: int, *context) -> None:
        """A secret vote of the living, unsilenced players, one ballot each in seat order from the
        drawer (a Decide frame per voter: VOTES[kind]'s `legal` and `cast`, given the voter and
        `context`), then its `close(*context)` publishes and counts the ballots; at once when nobody
        may vote."""
        vote = VOTES[kind]
        voters = self.voters()
        self.voting = voters
        self.ballots = [-1] * self.num_players
        if not voters:
            vote.close(self, *context)
            return
        flow = self.flow
        flow.do(vote.close, *context)
        legal, cast = vote.legal, vote.cast
        for s in reversed(voters):
            flow.decide(kind, s, legal, cast, s, *context)

    def _cast_ballot(self, action: int, s: int, *context) -> None:
        """A secret ballot: the raw action (yes / no, an artifact, none)."""
        self.ballots[s] = action

    def _cast_seat_ballot(self, action: int, s: int, *context) -> None:
        """A secret election ballot: the seat voted for."""
        self.ballots[s] = (s + action - self.A_SEAT) % self.num_players

    def _yes_no_options(self, mask: np.ndarray, s: int, *context) -> None:
        mask[self.A_YES] = mask[self.A_NO] = True

    def _piece_vote(self, kind: int, new: int = -1) -> None:
        """A vote over artifacts (pieces of one artifact are one option; PIECE_VOTES[kind] gives its
        options and its result); `new`: the piece just added to a full Storage, which it may not pick."""
        self._open_vote(kind, kind, new)

    def piece_vote_options(self, kind: int, new: int = -1) -> list[int]:
        """The artifacts a vote over artifacts may choose (pieces of one artifact are one option)."""
        return PIECE_VOTES[kind].options(self, new)

    def _in_storage_but_new(self, new: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.storage[a] - (a == new) > 0]

    def _in_storage(self, new: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.storage[a] > 0]

    def _in_sold(self, new: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.sold[a] > 0]

    def _any_artifact(self, new: int) -> list[int]:
        return list(range(NUM_ARTIFACTS))  # donation: any artifact (the pile may lack it)

    def _piece_options(self, mask: np.ndarray, s: int, kind: int, new: int) -> None:
        for a in self.piece_vote_options(kind, new):
            mask[self.A_ART + a] = True
        if PIECE_VOTES[kind].may_choose_none:
            mask[self.A_PASS] = True

    def _plurality(self, counts: dict[int, int], favour: int | None = None) -> int:
        best = max(counts.values())
        tied = [k for k, v in counts.items() if v == best]
        if favour is not None and favour in tied:
            return favour
        return tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]

    def _close_piece_vote(self, kind: int, new: int) -> None:
        """Publish the ballots; the plurality's artifact meets the vote's result (a tie that includes
        *none* goes to none, the disagree rule; other ties at random)."""
        vote = PIECE_VOTES[kind]
        options = vote.options(self, new)
        NONE = -1
        counts = {a: 0 for a in options}
        if vote.may_choose_none:
            counts[NONE] = 0
        choices = []
        for s in self.voting:
            b = self.ballots[s]
            a = NONE if b == self.A_PASS else b - self.A_ART
            counts[a] += 1
            choices.append((s, 2 + self.num_players + a if a >= 0 else 2 + self.num_players + NUM_ARTIFACTS))
        self._record_vote(choices, kind=kind)
        if not options:
            return
        result = self._plurality(counts, favour=NONE if vote.may_choose_none else None)
        self._china(
            [
                s
                for s in self.voting
                if (NONE if self.ballots[s] == self.A_PASS else self.ballots[s] - self.A_ART) != result
            ]
        )
        if result != NONE:
            vote.result(self, result)

    def _sell_from_storage(self, a: int) -> None:
        self.storage[a] -= 1
        self.log.append(f"sold {ARTIFACTS[a]} from Storage")
        self._sell(a)

    def _discard_from_storage(self, a: int) -> None:
        self.storage[a] -= 1
        self.log.append(f"discarded {ARTIFACTS[a]} from Storage")
        self._discard(a)

    def _restore_from_sold(self, a: int) -> None:
        self.sold[a] -= 1
        self._add_to_storage(a)

    def _search_for(self, a: int) -> None:
        """Donation: a piece of the artifact is searched for in the draw pile and kept if found."""
        if self.vault is not None:
            self.vault.searched(a, self.hidden_pieces(), self.pile_has(a))
        if self._search_pile(a):
            self.log.append(f"donation: {ARTIFACTS[a]} kept")
            self._add_to_storage(a)

    def _record_vote(
        self, choices: list[tuple[int, int]], keep_sell: bool = False, kind: int = PH_KEEP
    ) -> None:
        """Publish a closed vote: every voter's choice (column of last_vote)."""
        self.last_vote_kind = VOTE_KIND[kind]
        lv = self.last_vote
        lv[:] = 0
        for s, col in choices:
            lv[s, col] = 1.0
            if keep_sell:
                self.keep_sell[s, col] += 1

    def _china(self, minority: list[int]) -> None:
        """Record who voted with the result and who against; China's Zombie Troop: the minority of a
        vote is Silenced through the next round (voting for any winner of a many-winner vote is the
        majority)."""
        for s in self.voting:
            self.majority_record[s, 1 if s in minority else 0] += 1
        if self.china:
            for s in minority:
                self.silenced_until[s] = max(self.silenced_until[s], self.round + 1)

    def _start_election(self, ev: int, count: int) -> None:
        """An Election: a discussion step for every voter (option `talk`), then the vote."""
        self.flow.do(Artifacts._elect_vote, ev, count)
        if self.config.talk:
            talkers = self.voters()
            if talkers:
                self.talk_last[:] = 0
                for s in reversed(talkers):
                    self.flow.decide(PH_TALK, s, Artifacts._talk_options, Artifacts._talk, s)

    def _talk_options(self, mask: np.ndarray, s: int) -> None:
        mask[self.A_PASS] = True
        n = self.num_players
        for t in range(n):
            if t != s and self.alive[t]:
                k = (t - s) % n
                mask[self.A_ACCUSE + k] = mask[self.A_VOUCH + k] = True

    def _talk(self, action: int, s: int) -> None:
        """Cheap talk: pass, accuse or vouch for a player (public)."""
        if action != self.A_PASS:
            n = self.num_players
            if action >= self.A_VOUCH:
                t, v = (s + action - self.A_VOUCH) % n, 1.0
            else:
                t, v = (s + action - self.A_ACCUSE) % n, -1.0
            self.talk_last[s, t] = v
            self.talk_record[s, t] += v

    def _elect_vote(self, ev: int, count: int) -> None:
        self._open_vote(PH_ELECT, ev, count)

    def _elect_options(self, mask: np.ndarray, s: int, ev: int, count: int) -> None:
        n = self.num_players
        for t in range(n):
            if self.alive[t]:
                mask[self.A_SEAT + (t - s) % n] = True

    def _close_election(self, ev: int, count: int) -> None:
        living = self.living()
        counts = dict.fromkeys(living, 0)
        choices = []
        for s in self.voting:
            t = self.ballots[s]
            counts[t] += 1
            self.election_record[s, t] += 1
            choices.append((s, 2 + t))
        self._record_vote(choices, kind=PH_ELECT)
        winners = []
        for _ in range(min(count, len(living))):
            w = self._plurality(counts)
            winners.append(w)
            del counts[w]
        self._china([s for s in self.voting if self.ballots[s] not in winners])
        self.log.append(f"{EVENTS[ev].name}: elected {winners}")
        self._effect(ev, winners)

    # ===== resources ===============================================================================
    def suggestion_refusal(self, s: int, r: int) -> str:
        """Why resource r may not be suggested now ("" if it may): each resource at most once a
        round, only while Sold holds its cost, only when the current card lists it (Insurance
        aside), and its own rule (RESOURCE_RULES: fitting the card, or Insurance for a Delayed event
        in play)."""
        # (constant texts: the mask asks this for every resource at every window step)
        if self.bought_now >> r & 1:
            return "that resource was bought this round already"
        if sum(self.sold) < RESOURCE_COST[r]:
            return "Sold holds fewer pieces than that resource costs"
        if RESOURCES[r].listed:  # offered only by the current card listing it
            ev = self.card - NUM_ARTIFACT_CARDS
            if ev < 0 or r not in EVENTS[ev].resources:
                return "the current card does not list that resource"
            if self.nulled:
                return "the current card is nulled"
        return RESOURCE_RULE[r].refusal(self, r)

    def suggestable(self) -> list[int]:
        """Resources that may be suggested now."""
        return [r for r in range(NUM_RESOURCES) if not self.suggestion_refusal(-1, r)]

    def _ballot_box_refusal(self, r: int) -> str:
        """Ballot Box (listed on the card): a Random event whose targets are not elected already."""
        if EVENTS[self.card - NUM_ARTIFACT_CARDS].type != RANDOM:
            return "the Ballot Box applies to a Random event"
        return "this event's targets are elected already" if self.ballot_box else ""

    def _election_resource_refusal(self, r: int) -> str:
        """Lawyer, Red Tape (listed on the card): an Election not yet skipped or delayed."""
        if EVENTS[self.card - NUM_ARTIFACT_CARDS].type != ELECTION:
            return "Lawyer and Red Tape apply to an Election"
        return "this Election is skipped or delayed already" if self.skipped or self.red_tape else ""

    def _insurance_refusal(self, r: int) -> str:
        """Insurance: a Delayed event in play drawn in an earlier round (Cancel Status)."""
        if any(self.cancel_status_applies(d) for d in self.delayed):
            return ""
        return "no Delayed event drawn in an earlier round is in play"

    def _suggest(self, s: int, r: int) -> None:
        """Seat s suggests buying resource r: the table votes to agree."""
        self.suggested = r
        self._open_vote(PH_AGREE, r, s)

    def _close_agree(self, r: int, suggester: int) -> None:
        voters = self.voting
        yes = [s for s in voters if self.ballots[s] == self.A_YES]
        self._record_vote([(s, 0 if self.ballots[s] == self.A_YES else 1) for s in voters], kind=PH_AGREE)
        need = math.ceil(len(self.living()) / 3)
        bought = len(yes) >= need and self.sold_total() >= RESOURCES[r].cost
        self._china([s for s in voters if (self.ballots[s] == self.A_YES) != bought])
        self.suggested = -1
        self.log.append(
            f"{RESOURCES[r].name}: {len(yes)} agree (need {need}) -> {'bought' if bought else 'not bought'}"
        )
        if not bought:
            return
        self.bought_now |= 1 << r
        self.resources_bought[r] += 1
        self._pay(RESOURCES[r].cost)
        if self.winner != NO_WINNER:
            return
        RESOURCE_RULE[r].buy(self)

    def _buy_ballot_box(self) -> None:
        self.ballot_box = True

    def _buy_lawyer(self) -> None:
        self.skipped = True

    def _buy_red_tape(self) -> None:
        self.red_tape = True

    def _buy_insurance(self) -> None:
        for d in self.delayed:  # the oldest first
            if self.cancel_status_applies(d):
                self._cancel_status(d)
                break

    def cancel_status_applies(self, d: list[int]) -> bool:
        """Glossary, Cancel Status: "negate the effect of a Delayed event in play AFTER the turn it was
        drawn". A Delayed event is a card with the Delayed icon; a resource never changes a card's type
        (FAQ, Ballot Box), so an Election delayed by Red Tape is no Delayed event: neither Insurance nor
        Police Raid cancels it."""
        return EVENTS[d[0]].delay > 0 and d[2] < self.round

    def _cancel_status(self, d: list[int]) -> None:
        self.delayed.remove(d)
        if self.storage_event == d[0]:
            self.storage_event = -1
        self.log.append(f"Cancel Status: {EVENTS[d[0]].name}")

    # ===== events ==================================================================================
    def _resolve(self, ev: int, ballot_box: int) -> None:
        """An event's targets by the rule its row names (EVENT_TARGETS: none, the drawer, random living
        players or an Election), then its effect."""
        EVENT_TARGET[ev](self, ev, ballot_box)

    def _no_targets(self, ev: int, ballot_box: int) -> None:
        self._effect(ev, [])

    def _drawer_target(self, ev: int, ballot_box: int) -> None:
        """The drawer, if still alive when the event resolves (a Delayed one may find them dead)."""
        self._effect(ev, [self.drawer] if self.alive[self.drawer] else [])

    def _random_targets(self, ev: int, ballot_box: int) -> None:
        """`count` random living players; with the Ballot Box bought, elected instead (the card stays
        Random: FAQ)."""
        if ballot_box:
            self._elected_targets(ev, ballot_box)
            return
        living = self.living()
        picks = self.rng.choice(len(living), size=min(EVENTS[ev].count, len(living)), replace=False)
        self._effect(ev, [living[int(i)] for i in picks])

    def _elected_targets(self, ev: int, ballot_box: int) -> None:
        """An Election of `count` living players (discussion first), then the effect on them."""
        self._start_election(ev, EVENTS[ev].count)

    def _effect(self, ev: int, targets: list[int]) -> None:
        """The event's effect on its targets: the handler its row names (EVENT_EFFECTS)."""
        EVENT_EFFECT[ev](self, ev, targets)

    def _event_reveal(self, ev: int, targets: list[int]) -> None:
        for t in targets:
            self._reveal(t)

    def _event_silence(self, ev: int, targets: list[int]) -> None:
        for t in targets:
            self.silenced_until[t] = max(self.silenced_until[t], self.round + EVENTS[ev].param)

    def _event_kill(self, ev: int, targets: list[int]) -> None:
        for t in targets:
            self._kill(t)

    def _event_check_side(self, ev: int, targets: list[int]) -> None:
        """Each target privately checks the side of a living player of its choice (in target order)."""
        for t in reversed(targets):
            if self.alive[t] and len(self.living()) > 1:
                self.flow.do(Artifacts._offer_check, t)

    def _event_foxfire(self, ev: int, targets: list[int]) -> None:
        if targets:
            t = targets[0]
            self.flow.decide(PH_FOXFIRE, t, Artifacts._foxfire_options, Artifacts._foxfire_choice, t)

    def _event_open_extra_slot(self, ev: int, targets: list[int]) -> None:
        self.capacity = STORAGE_LIMIT + EXTRA_SLOT

    def _event_borrow_exhibit(self, ev: int, targets: list[int]) -> None:
        """The Extra Storage Slot opens and holds a piece searched from the pile: of the artifact with
        most pieces in Storage among those the pile holds (ours: ties at random)."""
        if self.storage_event != ev:  # cancelled meanwhile
            return
        self.capacity = STORAGE_LIMIT + EXTRA_SLOT
        options = [a for a in range(NUM_ARTIFACTS) if self.pile_has(a)]
        if options:
            best = max(self.storage[a] for a in options)
            tied = [a for a in options if self.storage[a] == best]
            a = tied[int(self.rng.integers(len(tied)))]
            if self.vault is not None:
                self.vault.borrowed(a, self.hidden_pieces(), self.storage)
            self._search_pile(a)
            self.log.append(f"Borrow Exhibit: {ARTIFACTS[a]} in the Extra Storage Slot")
            self._add_to_storage(a)

    def _event_restore(self, ev: int, targets: list[int]) -> None:
        """A piece returns from Sold to Storage: chosen by vote (under Spain, a random piece)."""
        if self.sold_total() > 0:
            if self.spain:
                a = self._random_piece(self.sold)
                self.sold[a] -= 1
                self.vault.sold_to_storage(a)
                self._add_to_storage(a)
            else:
                self._piece_vote(PH_RESTORE)

    def _event_donation(self, ev: int, targets: list[int]) -> None:
        self._piece_vote(PH_DONATION)

    def _event_theft(self, ev: int, targets: list[int]) -> None:
        if self.storage_total() > 0:
            self._piece_vote(PH_THEFT)

    def _event_black_market(self, ev: int, targets: list[int]) -> None:
        """A piece of the artifact with fewest pieces in Sold + Discard among those the pile holds is
        sold (ours: ties at random; face down under Spain)."""
        options = [a for a in range(NUM_ARTIFACTS) if self.pile_has(a)]
        if options:
            low = min(self.sold[a] + self.discard[a] for a in options)
            tied = [a for a in options if self.sold[a] + self.discard[a] == low]
            a = tied[int(self.rng.integers(len(tied)))]
            if self.vault is not None:  # sold face down: which one, nobody sees
                self.vault.black_market(self.hidden_pieces())
            self._search_pile(a)
            self.log.append(f"Black Market: {ARTIFACTS[a]} sold")
            self._sell(a, seen=self.vault is None)

    def _event_cancel_every_delayed(self, ev: int, targets: list[int]) -> None:
        """Police Raid: Cancel Status of every Delayed event in play."""
        for d in [d for d in self.delayed if self.cancel_status_applies(d)]:
            self._cancel_status(d)

    def _event_unsilence(self, ev: int, targets: list[int]) -> None:
        self.silenced_until = [0] * self.num_players

    def _event_nothing(self, ev: int, targets: list[int]) -> None:
        pass

    def _foxfire_options(self, mask: np.ndarray, s: int) -> None:
        for r in set(self.chart):
            mask[self.A_ROLE + r] = True

    def _foxfire_choice(self, action: int, s: int) -> None:
        self._foxfire(action - self.A_ROLE)

    def _check_side(self, who: int, whom: int) -> None:
        """A private side check of a living player of the checker's choice: everyone sees who checks
        among which players; only the checker knows whom (and the side seen)."""
        self.peek_options[len(self.peeks)] = tuple(
            t for t in range(self.num_players) if t != who and self.alive[t]
        )
        self.peeks.append((who, whom))

    def _offer_check(self, t: int) -> None:
        if self.alive[t] and len(self.living()) > 1:
            self.flow.decide(PH_PEEK, t, Artifacts._other_living_options, Artifacts._check_choice, t)

    def _other_living_options(self, mask: np.ndarray, s: int) -> None:
        n = self.num_players
        for t in range(n):
            if t != s and self.alive[t]:
                mask[self.A_SEAT + (t - s) % n] = True

    def _check_choice(self, action: int, s: int) -> None:
        self._check_side(s, (s + action - self.A_SEAT) % self.num_players)

    def _reveal(self, s: int) -> None:
        if not self.revealed[s]:
            self.revealed[s] = True
            self.log.append(f"player {s} is Revealed: {ROLE_NAMES[self.roles[s]]}")
            self._check_academics()

    def _kill(self, s: int) -> None:
        if not self.alive[s]:
            return
        self.alive[s] = False
        self.log.append(f"player {s} dies")
        self._check_looters()
        self._reveal(s)
        if self.winner == NO_WINNER and ROLE_ACTIVE[self.roles[s]] and not self.ability_used[s]:
            self.flow.do(Artifacts._offer_death_ability, s)

    def _offer_death_ability(self, s: int) -> None:
        """The dying player may at once use an unused Active ability (pass or use)."""
        if self.ability_targets(s):
            self.flow.decide(PH_DEATH, s, Artifacts._death_options, Artifacts._death_choice, s)

    def _death_options(self, mask: np.ndarray, s: int) -> None:
        mask[self.A_PASS] = mask[self.A_USE] = True

    def _death_choice(self, action: int, s: int) -> None:
        if action == self.A_USE:
            self._announce_ability(s)

    # ===== abilities ===============================================================================
    def ability_targets(self, s: int) -> list[int]:
        """Legal targets of s's unused Active ability: seats (roles that target players) or artifacts."""
        role = int(self.roles[s])
        if not ROLE_ACTIVE[role] or self.ability_used[s]:
            return []
        return ROLE_ABILITY[role].targets(self, s)

    def _other_living(self, s: int) -> list[int]:
        return [t for t in range(self.num_players) if t != s and self.alive[t]]

    def _seance_targets(self, s: int) -> list[int]:
        return [t for t in range(self.num_players) if t != s and self.alive[t] and not self.revealed[t]]

    def _restore_targets(self, s: int) -> list[int]:
        if self.spain:
            return [-1] if self.sold_total() > 0 else []
        return [a for a in range(NUM_ARTIFACTS) if self.sold[a] > 0]

    def _smuggle_targets(self, s: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.storage[a] > 0]

    def _announce_ability(self, s: int) -> None:
        """The user shows their role card ("must Reveal their role, then use their Active ability");
        the Reveal counts for the win conditions only after the effect (Order of Execution)."""
        if not self.revealed[s]:
            self.revealed[s] = True
            self.log.append(f"player {s} reveals {ROLE_NAMES[self.roles[s]]} to use the ability")
        self.flow.decide(PH_TARGET, s, Artifacts._target_options, Artifacts._target_choice, s)

    def _target_options(self, mask: np.ndarray, s: int) -> None:
        n = self.num_players
        on_artifacts = ROLE_ABILITY[int(self.roles[s])].on_artifacts
        for t in self.ability_targets(s):
            if on_artifacts:
                mask[self.A_ART + t if t >= 0 else self.A_USE] = True
            else:
                mask[self.A_SEAT + (t - s) % n] = True

    def _target_choice(self, action: int, s: int) -> None:
        if action == self.A_USE:
            target = -1  # Curator under Spain: a random piece of Sold
        elif self.A_ART <= action < self.A_ART + NUM_ARTIFACTS:
            target = action - self.A_ART
        else:
            target = (s + action - self.A_SEAT) % self.num_players
        self._use_ability(s, target)

    def _use_ability(self, s: int, target: int) -> None:
        """The ability's effect (ABILITIES), then the user is Revealed (Order of Execution)."""
        role = int(self.roles[s])
        self.ability_used[s] = True
        self.log.append(f"player {s} uses the {ROLE_NAMES[role]}'s ability on {target}")
        ROLE_ABILITY[role].use(self, s, target)
        self._check_academics()  # the user's Reveal counts now

    def _hit(self, s: int, target: int) -> None:
        self._kill(target)

    def _seance(self, s: int, target: int) -> None:
        if ROLE_SIDE[int(self.roles[target])] == LOOTERS:
            self._reveal(target)
            return
        self.cleared[target] = True
        if sum(self.discard) > 0:
            a = self._random_piece(self.discard)
            self.discard[a] -= 1
            self._shuffle_into_pile(a)
            if self.vault is not None:
                self.vault.discard_to_pile()
        else:
            self.shaman_curse = True

    def _investigate(self, s: int, target: int) -> None:
        self._check_side(s, target)

    def _restore(self, s: int, target: int) -> None:
        a = self._random_piece(self.sold) if target < 0 else target
        self.sold[a] -= 1
        if self.vault is not None:
            self.vault.sold_to_storage(a)
        self._add_to_storage(a)

    def _smuggle(self, s: int, target: int) -> None:
        self.storage[target] -= 1
        self._discard(target)

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

    def _foxfire(self, role: int) -> None:
        holders = [t for t in range(self.num_players) if self.roles[t] == role]
        t = holders[int(self.rng.integers(len(holders)))]
        self.log.append(f"Foxfire names the {ROLE_NAMES[role]}")
        self._reveal(t)

    def _spain_call(self, s: int) -> None:
        self.called_now = True
        if self.looters_pile_condition():
            self._win(LOOTERS, f"player {s} called: 2 pieces of each artifact in Sold + Discard")
            return
        self.vault.call_failed()
        if sum(self.discard) > 0:
            a = self._random_piece(self.discard)
            self.discard[a] -= 1
            self.sold[a] += 1
            self.vault.discard_to_sold()
            self.log.append(f"player {s} called wrongly: a discarded piece returns to Sold")

    # ===== observations ============================================================================
    # Bookkeeping apart from the rules: the observation's source vector (Definition._observe_at) holds
    # the public pieces, rewritten when a step or choice changed the table (all but QUIET_STEPS,
    # QUIET_CHOICES and QUIET_PASSES), and the knowledge blocks, rewritten then if reveals, clears,
    # private checks or roles changed (they change only with the table; resample_hidden marks its
    # sample stale). Each observer's view is one gather through the layout's seat axes.
    def touch(self) -> None:
        """Mark the cached public view stale (call after changing the state by hand, as tests do)."""
        self._pub_dirty = True

    def _write_knowledge(self, src: np.ndarray) -> None:
        """Every seat's role one-hot and what each observer knows by relative seat, from knowledge()
        (rewritten only when that changed)."""
        know = self.knowledge()
        if know is self._know_written:
            return
        rel = self._relative_seats  # [observer, k] -> the seat k places after the observer
        src[self._roles_at] = (self.roles[:, None] == ROLE_IDS).ravel()
        src[self._known_roles_at] = (know.role[self._observers, rel][:, :, None] == ROLE_IDS).ravel()
        src[self._known_sides_at] = (know.side[self._observers, rel][:, :, None] == SIDE_IDS).ravel()
        self._know_written = know

    def _build_public(self) -> None:
        """The public pieces (absolute seats), each written at its place in the source."""
        if self._source is None:
            self._source = np.zeros(self._source_size, dtype=np.float32)
            self._know_written = None
        pub, at = self._source, self._at
        pub[self._public_at] = self._pub_fixed  # the site and the role chart
        r = self.round
        pub[self._seat_flags_at] = (  # alive, revealed, silenced, silence_left, ability_used, cleared
            self.alive
            + self.revealed
            + [su >= r for su in self.silenced_until]
            + [max(0, su - r) / MAX_SILENCE for su in self.silenced_until]
            + self.ability_used
            + self.cleared
        )
        if self.drawer >= 0:
            pub[at["drawer"].start + self.drawer] = 1
        if self.card >= 0:
            c = self.card
            pub[
                at["card"].start
                + (
                    c // PIECES_PER_ARTIFACT
                    if c < NUM_ARTIFACT_CARDS
                    else c - NUM_ARTIFACT_CARDS + NUM_ARTIFACTS
                )
            ] = 1
        cs = at["card_status"].start
        pub[cs] = self.card_in_hand
        pub[cs + 1] = self.ballot_box
        pub[cs + 2] = self.skipped
        pub[cs + 3] = self.red_tape
        pub[cs + 4] = self.nulled
        piles = self._piles_at  # storage, sold, discard (Sold and Discard zero under Spain)
        # (a count divided as a Python float, then stored as float32, equals the float32 division)
        pub[piles] = [
            k / 5
            for k in (
                self.storage + self._no_piles if self.spain else self.storage + self.sold + self.discard
            )
        ]
        ps = at["pile_sizes"].start
        pub[ps] = self.capacity / 6
        pub[ps + 1] = sum(self.sold) / 25
        pub[ps + 2] = sum(self.discard) / 25
        pub[ps + 3] = len(self.pile) / 50
        if self.vault is not None:
            pub[at["vault"]] = (self.vault.ranges() / PIECES_PER_ARTIFACT).ravel()
        pub[at["events_gone"]] = self.events_gone
        for d in self.delayed:
            pub[at["delayed"].start + d[0]] = (d[1] - self.round + 1) / (MAX_DELAY + 1)
        fl = at["flags"].start
        pub[fl] = self.capacity > STORAGE_LIMIT
        pub[fl + 1] = self.shaman_curse
        pub[fl + 2] = self.suggested >= 0
        pub[fl + 3] = self.called_now
        if self.suggested >= 0:
            pub[at["resource"].start + self.suggested] = 1
        pub[at["resources_bought"]] = [k / MAX_PURCHASES for k in self.resources_bought]
        pub[at["round"].start] = self.round / MAX_ROUNDS
        if self.last_vote_kind >= 0:
            pub[at["last_vote_kind"].start + self.last_vote_kind] = 1
            pub[at["last_vote"]] = self.last_vote.ravel()
        n = self.num_players
        np.divide(self.keep_sell, MAX_ARTIFACT_DRAWS, out=pub[at["keep_sell_record"]].reshape(n, 2))
        np.divide(self.majority_record, VOTES_PER_SEAT, out=pub[at["majority_record"]].reshape(n, 2))
        np.divide(self.election_record, MAX_ELECTIONS, out=pub[at["election_record"]].reshape(n, n))
        pub[at["talk_last"]] = self.talk_last.ravel()
        np.divide(self.talk_record, MAX_ELECTIONS, out=pub[at["talk_record"]].reshape(n, n))
        self._pub_dirty = False
        self._pub_decision = None

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
        g = self._copy(np.random.default_rng(int(rng.integers(2**63))))
        g.log = [f"(a state drawn for player {p}: the hidden roles, checks, ballots and cards redrawn)"]
        # roles: keep what p knows; re-deal the rest of the chart under every side constraint
        g.roles = self._consistent_roles(p, rng)
        # whom other seats checked privately: any seat they could have named
        for i, (who, _) in enumerate(self.peeks):
            options = self.peek_options.get(i)
            if who != p and options:
                g.peeks[i] = (who, options[int(rng.integers(len(options)))])
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
        g._know_key = None
        g._pub_dirty = True
        return g

    def _consistent_roles(self, p: int, rng: np.random.Generator) -> np.ndarray:
        """A deal drawn uniformly from those p cannot tell from the true one: every role p knows (own,
        Revealed, awareness) kept, the rest of the chart re-dealt so that each publicly cleared seat
        is an Academic and each side p checked privately shows the side p saw (the Forger's apparent
        side). All constraints hold together (a cleared seat p also checked stays a true Academic)."""
        n = self.num_players
        known = self.knowledge().role[p]
        free = [s for s in range(n) if known[s] < 0]
        pool = sorted(int(self.roles[s]) for s in free)  # the chart less the known roles
        seen = {whom: APPARENT_SIDE[int(self.roles[whom])] for who, whom in self.peeks if who == p}
        allowed: list[frozenset[int] | None] = []
        for s in free:
            ok = EVERY_ROLE
            if self.cleared[s]:
                ok &= ACADEMIC_ROLES
            if s in seen:
                ok &= APPEARING_AS[seen[s]]
            allowed.append(None if ok == EVERY_ROLE else ok)
        roles = self.roles.copy()
        roles[free] = constrained_deal(pool, allowed, rng)
        return roles

    def _random_ballot(self, s: int, rng: np.random.Generator) -> int:
        """Any ballot seat s could have cast in the open vote (as the ballots store it: VOTES)."""
        vote = self.flow.decision  # (its args: the voter, then the vote's context)
        return VOTES[vote.kind].random_ballot(self, rng, *vote.args[1:])

    def _random_yes_no(self, rng: np.random.Generator, *context) -> int:
        return int(rng.choice([self.A_YES, self.A_NO]))

    def _random_living(self, rng: np.random.Generator, *context) -> int:
        living = [t for t in range(self.num_players) if self.alive[t]]
        return int(living[int(rng.integers(len(living)))])

    def _random_piece_ballot(self, rng: np.random.Generator, kind: int, new: int) -> int:
        opts = [self.A_ART + a for a in self.piece_vote_options(kind, new)]
        if PIECE_VOTES[kind].may_choose_none:
            opts.append(self.A_PASS)
        return int(opts[int(rng.integers(len(opts)))])

    # ===== invariants and text =====================================================================
    def check_invariants(self) -> None:
        pieces = [self.storage[a] + self.sold[a] + self.discard[a] for a in range(NUM_ARTIFACTS)]
        for c in self.pile:
            if c < NUM_ARTIFACT_CARDS:
                pieces[c // PIECES_PER_ARTIFACT] += 1
        if self.card_in_hand:
            pieces[self.card // PIECES_PER_ARTIFACT] += 1
        assert pieces == [PIECES_PER_ARTIFACT] * NUM_ARTIFACTS, f"artifact pieces not conserved: {pieces}"
        assert len(set(self.pile)) == len(self.pile), "a card is twice in the draw pile"
        events_in_pile = sum(1 for c in self.pile if c >= NUM_ARTIFACT_CARDS)
        assert events_in_pile + sum(self.events_gone) == NUM_EVENTS, "event cards not conserved"
        for c in self.pile:
            if c >= NUM_ARTIFACT_CARDS:
                assert not self.events_gone[c - NUM_ARTIFACT_CARDS]
        assert min(self.storage + self.sold + self.discard) >= 0
        over = self.phase in (PH_OVERFLOW, PH_REPLACE) or self.winner != NO_WINNER
        assert self.storage_total() <= self.capacity + (1 if over else 0), "Storage over capacity"
        assert sorted(int(r) for r in self.roles) == list(self.chart), "roles differ from the chart"
        if self.vault is not None:
            assert tuple(self.sold + self.discard) in self.vault, "Spain: the piles left the public knowledge"
        for s in range(self.num_players):
            assert self.alive[s] or self.revealed[s], "a dead player must be Revealed"
        if self.winner == NO_WINNER:
            assert not self.possessed_dead()
            # a Looter who announced an Active ability counts as Revealed only after its effect
            assert not self.all_looters_revealed() or self.phase == PH_TARGET
            assert max(self.storage) < ACADEMIC_COLLECTION
            assert self.current_player() >= 0

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


class PieceVote(NamedTuple):
    """A vote over artifacts: the artifacts it may pick (given the piece just added, if any), whether
    *none* is an option, and what happens to the artifact chosen."""

    options: Callable[[Artifacts, int], list[int]]
    may_choose_none: bool
    result: Callable[[Artifacts, int], None]


PIECE_VOTES: dict[int, PieceVote] = {
    PH_OVERFLOW: PieceVote(Artifacts._in_storage_but_new, False, Artifacts._sell_from_storage),
    PH_REPLACE: PieceVote(Artifacts._in_storage_but_new, False, Artifacts._discard_from_storage),
    PH_EXTRA: PieceVote(Artifacts._in_storage, True, Artifacts._sell_from_storage),
    PH_RESTORE: PieceVote(Artifacts._in_sold, False, Artifacts._restore_from_sold),
    PH_DONATION: PieceVote(Artifacts._any_artifact, False, Artifacts._search_for),
    PH_THEFT: PieceVote(Artifacts._in_storage, False, Artifacts._discard_from_storage),
}
assert set(PIECE_VOTES) == set(TYPE_VOTES)


class Vote(NamedTuple):
    """A secret vote: the ballots a voter may cast (`legal(game, mask, voter, *context)`), how a
    ballot is kept (`cast`), the close that publishes and counts them (`close(game, *context)`), and
    a ballot drawn for a voter whose ballot another seat cannot see (`random_ballot`, resample_hidden)."""

    legal: Callable[..., None]
    cast: Callable[..., None]
    close: Callable[..., None]
    random_ballot: Callable[..., int]


VOTES: dict[int, Vote] = {
    PH_KEEP: Vote(
        Artifacts._yes_no_options, Artifacts._cast_ballot, Artifacts._close_keep, Artifacts._random_yes_no
    ),
    PH_AGREE: Vote(
        Artifacts._yes_no_options, Artifacts._cast_ballot, Artifacts._close_agree, Artifacts._random_yes_no
    ),
    PH_ELECT: Vote(
        Artifacts._elect_options,
        Artifacts._cast_seat_ballot,
        Artifacts._close_election,
        Artifacts._random_living,
    ),
    **{
        kind: Vote(
            Artifacts._piece_options,
            Artifacts._cast_ballot,
            Artifacts._close_piece_vote,
            Artifacts._random_piece_ballot,
        )
        for kind in TYPE_VOTES
    },
}
assert tuple(VOTES) == VOTE_PHASES, "every vote kind has its rules, in the order last_vote_kind reads"

# ===== observation bookkeeping, apart from the rules ============================================
# The public table is rebuilt for the next observation after every step or choice except these, which
# leave it as it was: a step that only puts the next seat's decision on the flow, a secret ballot
# (public when the vote's close publishes it), a pass. (Who acts and the phase are written apart.)
QUIET_STEPS = frozenset({Artifacts._window, Artifacts._offer_check, Artifacts._offer_death_ability})
QUIET_CHOICES = frozenset({Artifacts._cast_ballot, Artifacts._cast_seat_ballot})
QUIET_PASSES = frozenset({Artifacts._window_choice, Artifacts._talk, Artifacts._death_choice})


# ===== what the data rows select: handler tables, checked at import ==============================
# An event's effect (data.EVENTS[i].effect names it)
EVENT_EFFECTS: dict[str, Callable[[Artifacts, int, list[int]], None]] = {
    "open_extra_slot": Artifacts._event_open_extra_slot,
    "borrow_exhibit": Artifacts._event_borrow_exhibit,
    "foxfire": Artifacts._event_foxfire,
    "reveal": Artifacts._event_reveal,
    "check_side": Artifacts._event_check_side,
    "silence": Artifacts._event_silence,
    "kill": Artifacts._event_kill,
    "restore": Artifacts._event_restore,
    "donation": Artifacts._event_donation,
    "theft": Artifacts._event_theft,
    "black_market": Artifacts._event_black_market,
    "cancel_every_delayed": Artifacts._event_cancel_every_delayed,
    "unsilence": Artifacts._event_unsilence,
    "nothing": Artifacts._event_nothing,
}
check_handlers(EVENT_EFFECTS, EFFECTS, "event effects (data.EFFECTS)")
EVENT_EFFECT = tuple(EVENT_EFFECTS[e.effect] for e in EVENTS)  # by event id

# Whom an event targets (data.EVENTS[i].target, a T_* index into data.TARGETS)
EVENT_TARGETS: dict[str, Callable[[Artifacts, int, int], None]] = {
    "none": Artifacts._no_targets,
    "drawer": Artifacts._drawer_target,
    "random": Artifacts._random_targets,
    "elected": Artifacts._elected_targets,
}
check_handlers(EVENT_TARGETS, TARGETS, "event targets (data.TARGETS)")
if any(not 0 <= e.target < len(TARGETS) for e in EVENTS):
    raise ValueError("data.EVENTS: every event's target is one of data.TARGETS (T_*)")
EVENT_TARGET = tuple(EVENT_TARGETS[TARGETS[e.target]] for e in EVENTS)  # by event id


class Ability(NamedTuple):
    """A role's Active ability: its legal targets for seat s (seats, or artifacts: -1 a random piece)
    and its effect on one."""

    targets: Callable[[Artifacts, int], list[int]]
    use: Callable[[Artifacts, int, int], None]
    on_artifacts: bool


# A role's Active ability (data.ROLES[i].active names it)
ABILITIES: dict[str, Ability] = {
    "Seance": Ability(Artifacts._seance_targets, Artifacts._seance, False),
    "Restore": Ability(Artifacts._restore_targets, Artifacts._restore, True),
    "Investigate": Ability(Artifacts._other_living, Artifacts._investigate, False),
    "Hit": Ability(Artifacts._other_living, Artifacts._hit, False),
    "Smuggle": Ability(Artifacts._smuggle_targets, Artifacts._smuggle, True),
}
check_handlers({k: v.use for k, v in ABILITIES.items()}, ACTIVE_ABILITIES, "Active abilities (data.ROLES)")
if any(ROLE_ACTIVE[i] != bool(r.active) for i, r in enumerate(ROLES)):
    raise ValueError("data.ROLES: every role with an Active ability, and only those, names it")
ROLE_ABILITY: tuple[Ability | None, ...] = tuple(ABILITIES.get(r.active) for r in ROLES)  # by role id


class ResourceRule(NamedTuple):
    """A resource's own rule: why it may not be suggested now ("" when it may; the once-a-round,
    cost and listing rules, data.RESOURCES' `listed`, are common: Artifacts.suggestion_refusal), and
    what buying it does."""

    refusal: Callable[[Artifacts, int], str]
    buy: Callable[[Artifacts], None]


# A resource (data.RESOURCES, by name)
RESOURCE_RULES: dict[str, ResourceRule] = {
    "Ballot Box": ResourceRule(Artifacts._ballot_box_refusal, Artifacts._buy_ballot_box),
    "Lawyer": ResourceRule(Artifacts._election_resource_refusal, Artifacts._buy_lawyer),
    "Red Tape": ResourceRule(Artifacts._election_resource_refusal, Artifacts._buy_red_tape),
    "Insurance": ResourceRule(Artifacts._insurance_refusal, Artifacts._buy_insurance),
}
check_handlers(RESOURCE_RULES, [r.name for r in RESOURCES], "resources (data.RESOURCES)")
RESOURCE_RULE = tuple(RESOURCE_RULES[r.name] for r in RESOURCES)  # by resource id
RESOURCE_COST = tuple(r.cost for r in RESOURCES)


class WindowOption(NamedTuple):
    """An option of the round window, for seat s and the index k of the action in its block: why s
    may not take it ("" when it may: the mask and the illegal-action reason read this one function)
    and taking it."""

    refusal: Callable[[Artifacts, int, int], str]
    take: Callable[[Artifacts, int, int], None]


# The round window's options, by action block
WINDOW_OPTIONS: dict[str, WindowOption] = {
    "pass": WindowOption(Artifacts._may_pass, Artifacts._pass),
    "use": WindowOption(Artifacts._ability_refusal, Artifacts._use_ability_now),
    "resource": WindowOption(Artifacts.suggestion_refusal, Artifacts._suggest),
    "call": WindowOption(Artifacts._call_refusal, Artifacts._call),
}
