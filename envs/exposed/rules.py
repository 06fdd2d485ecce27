"""Exposed, the hidden-identity game of Guests on a grid, as a pure engine.

The rule text's order: set-up (grid, Wallets, Identity cards, Marks); on your turn one of four actions
(Move, Steal, Expose, Snitch), a stolen Mark offering its item; being exposed; clean-up (empty Marks
discarded, new Marks drawn); the game ends at once when one player is left unexposed or a player holds
7 Wallets. Readings of what the text leaves open are marked "Reading" and listed in RULES.md.

Every choice inside an action (the second swap of a Move, the Snitch's tile, a Mark's item offer, each
step of an item, the Dentist target's answer, the Pilot/Soldier turn-start options) is its own decision
of the player who must choose, on one flat action space per configuration (see `action_groups`).

The turn runs on one `envs.core.flow.TurnFlow` (`self.flow`), a stack of frames naming methods of
`Exposed`: a turn pushes `Do(_end_action)` (the clean-up) under `Decide(ACTION)`, and each choice
pushes what follows it. The decision kinds (what the observation's `decision` piece shows) are
ACTION, MOVE1, MOVE2, SNITCH_FLIP, OFFER, PICK (an item step, described by an `ItemStep`), DENTIST and
PILOT; their first argument is always the deciding seat. `_advance` plays the `Do` steps, checks the
end of the game between steps, and ends an item step whose choices an earlier step took away.
Items are items.py's `ITEM_EFFECTS` (item name -> effect) and `ITEM_CAN_ACT` (whether an item has a
possible first step), both checked at import against the item names of data.py.

What a player count fixes is one `Definition` (geometry, action offsets, layouts, the common frames,
the observation's index tables), shared by reference by every game and copy; `clone` copies only the
mutable state. Bookkeeping apart from the rules: `_stamp` counts the steps that may change what a
player knows (every step but a swap, a pass or a clean-up that changed nothing; `touch` after
editing a state by hand), so an observation writes a seat's knowledge again only when the stamp
moved since it last wrote that seat's (each seat's is kept), and `_undoable_swaps` is computed once
per position for the masks and the observation.

The rules are written by family, each a mixin class of `Exposed` in its own module (every method
is still `Exposed._name`, as frames and tables name them): table.py (Wallets, tiles, exposure, Marks),
movement.py (Move, no reversal, the Pilot's swap), actions.py (Steal, Expose, Snitch), choices.py and
items.py (the items), hidden.py (the Dentist; what `resample_hidden` redraws), ending.py (the end),
observe.py (the observation's writing), describe.py (words, invariants); decisions.py holds the
decision kinds. Here: the set-up, the turn (`_start_turn`, `_advance`, `_end_action`), the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import prod

import numpy as np

from envs.core import Game, GameType, Layout, PieceSpec
from envs.core.config import require_choice, require_range
from envs.core.flow import Decide, Do, TurnFlow
from envs.core.game import copy_state

from .actions import ActionRules
from .choices import ChoiceRules
from .data import (
    COPS_MAX,
    CORNER_EXTRA,
    EMPTY_MARK_RULES,
    EXPOSURE_REWARDS,
    ITEM_CHOICES,
    ITEM_GUEST,
    MAX_DECISIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOST_REPEATS,
    START_WALLETS,
    WALLET_SCALE,
    WIN_WALLETS,
    grid_side,
    marks_in_play,
)
from .decisions import ACTION, KIND_NAMES, MOVE2, NUM_DECISIONS, PICK, PILOT, ItemStep

# the names importers take from here that live in the family modules now (re-exported)
from .decisions import B_GUEST as B_GUEST
from .decisions import B_STEAL as B_STEAL
from .decisions import DENTIST as DENTIST
from .decisions import MOVE1 as MOVE1
from .decisions import OFFER as OFFER
from .decisions import SNITCH_FLIP as SNITCH_FLIP
from .describe import DescribeRules
from .ending import EndRules
from .hidden import HiddenRules, _draw_distinct
from .items import ITEM_CAN_ACT as ITEM_CAN_ACT
from .items import ITEM_EFFECTS as ITEM_EFFECTS
from .items import ItemRules
from .movement import MovementRules
from .observe import _KEPT_SCALE, ObservationRules, _ObsPlan, _ObsSource, _scale_table
from .observe import wallet_scale as wallet_scale
from .table import TableRules


@dataclass(frozen=True)
class ExposedConfig:
    num_players: int = 4
    # reward for exposing a player: 1 (rule text) or 2 (printed rulebook)
    exposure_reward: int = 1
    # a newly drawn Mark whose tile has no Wallet: "discard" it, expose its tile and draw again (rule
    # text) or put 1 "wallet" from the Lost & Found on it (printed rulebook)
    empty_new_mark: str = "discard"
    # the faces truncate a game still going after this many decisions (RULES.md, "Maximum length")
    max_decisions: int = MAX_DECISIONS

    def validate(self) -> None:
        require_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        require_choice("exposure_reward", self.exposure_reward, EXPOSURE_REWARDS)
        require_choice("empty_new_mark", self.empty_new_mark, EMPTY_MARK_RULES)
        require_range("max_decisions", self.max_decisions, 1, 10**9)


class Definition:
    """What a player count fixes, built once and shared by every game of that count and by every
    copy (a game holds these attributes by reference; `clone` copies only the mutable state): the
    grid's geometry, the flat action space's offsets, the observation and state layouts, the packed
    boolean tables' layout, the frames of the common decisions and the observation's index tables."""

    def __init__(self, n: int):
        self.num_players = n
        s = self.side = grid_side(n)
        t = self.num_tiles = s * s
        self.num_marks = marks_in_play(n)
        self._geometry()
        self._layouts()
        self._common_frames()
        e = self.num_edges
        # ----- the flat action space -----
        self.OFF_SWAP = 0
        self.OFF_STEAL = e
        self.OFF_EXPOSE = e + t
        self.OFF_SNITCH = e + 2 * t
        self.OFF_CELL = self.OFF_SNITCH + n
        self.OFF_LINE = self.OFF_CELL + t
        self.OFF_SEAT = self.OFF_LINE + 2 * s
        self.OFF_GUEST = self.OFF_SEAT + n
        self.A_USE = self.OFF_GUEST + t
        self.A_PASS = self.A_USE + 1
        self.num_actions = self.A_PASS + 1
        self._block_offset = (self.OFF_STEAL, self.OFF_CELL, self.OFF_LINE, self.OFF_SEAT, self.OFF_GUEST)
        self._obs_plan = _ObsPlan(self)

    def _geometry(self) -> None:
        s, t = self.side, self.side * self.side
        self.edges = [(r * s + c, r * s + c + 1) for r in range(s) for c in range(s - 1)]
        self.edges += [(r * s + c, (r + 1) * s + c) for r in range(s - 1) for c in range(s)]
        self.num_edges = len(self.edges)
        self.edge_of = {}
        for i, (a, b) in enumerate(self.edges):
            self.edge_of[(a, b)] = self.edge_of[(b, a)] = i
        rows = np.arange(t) // s
        cols = np.arange(t) % s
        dr = np.abs(rows[:, None] - rows[None, :])
        dc = np.abs(cols[:, None] - cols[None, :])
        self.surround = np.maximum(dr, dc) == 1  # [cell, cell] 8-neighbours, not itself
        self.near = np.maximum(dr, dc) <= 1  # surrounding or the cell itself
        self.rowcol = ((dr == 0) | (dc == 0)) & ~np.eye(t, dtype=bool)  # same row/col, not itself
        self.line_cells = [list(range(r * s, r * s + s)) for r in range(s)]
        self.line_cells += [list(range(c, t, s)) for c in range(s)]
        self.line_mask = np.zeros((2 * s, t), dtype=bool)
        for i, cells in enumerate(self.line_cells):
            self.line_mask[i, cells] = True
        self.corners = [0, s - 1, t - s, t - 1]
        self._arange_t = np.arange(t)
        for table in (self.surround, self.near, self.rowcol, self.line_mask, self._arange_t):
            table.flags.writeable = False  # shared by every game of this size

    def _common_frames(self) -> None:
        """The decisions made on almost every turn, built once per configuration (frames never
        change, so games share them): each seat's ACTION, each seat's second swap after each first."""
        n, edges = self.num_players, range(self.num_edges)
        self._action_frames = tuple(
            Decide(ACTION, p, Exposed._action_mask, Exposed._action, (p,)) for p in range(n)
        )
        self._second_swap_frames = tuple(
            tuple(Decide(MOVE2, p, Exposed._swaps_mask, Exposed._second_swap, (p, e)) for e in edges)
            for p in range(n)
        )

    def _layouts(self) -> None:
        n, t, e, s = self.num_players, self.num_tiles, self.num_edges, self.side
        cells, seat_cells = (s, s), (n, s, s)  # cell pieces are grids: rows x columns
        grid_axes, seat_grid_axes = ("row", "col"), ("seat", "row", "col")
        flag_layout, off = [], 0
        for name, shape in self._flag_shapes():
            flag_layout.append((name, off, off + prod(shape), shape))
            off += prod(shape)
        self._flag_layout = tuple(flag_layout)
        wallets = f"w Wallets as w / (w + {WALLET_SCALE}), exact, 0.5 at the {WIN_WALLETS} that win"
        # every piece lies in [0, 1]: flags, one-hots, and counts scaled (see `wallet_scale`)
        self.observation_layout = Layout(
            [
                PieceSpec("grid", (s, s, t), "one-hot Guest on each cell", 0, 1, ("row", "col", "tile")),
                PieceSpec("exposed_tiles", cells, "1 where the tile shows its exposed side", 0, 1, grid_axes),
                PieceSpec("tile_wallets", cells, f"Wallets on each tile ({wallets})", 0, 1, grid_axes),
                PieceSpec("marks", cells, "1 where the tile's Guest is a Mark in play", 0, 1, grid_axes),
                PieceSpec(
                    "discarded",
                    cells,
                    "1 where the tile's Guest card is in the discard pile",
                    0,
                    1,
                    grid_axes,
                ),
                PieceSpec(
                    "seen_in_deck",
                    cells,
                    "1 where I have seen that Guest's card in the Identity deck (Astronaut/Mayor): nobody's identity",
                    0,
                    1,
                    grid_axes,
                ),
                PieceSpec(
                    "identity",
                    seat_cells,
                    "cell of each player's Guest where I know it (mine, exposed, shown to me, game over)",
                    0,
                    1,
                    seat_grid_axes,
                ),
                PieceSpec(
                    "candidates",
                    seat_cells,
                    "cells that can still hold each player's Guest, from all I know",
                    0,
                    1,
                    seat_grid_axes,
                ),
                PieceSpec(
                    "dentist_told",
                    seat_cells,
                    "cells of the lines I told each player with the Dentist (what they know of me)",
                    0,
                    1,
                    seat_grid_axes,
                ),
                PieceSpec("stashes", (n,), f"Wallets in each player's Stash ({wallets})", 0, 1, ("seat",)),
                PieceSpec("exposed_players", (n,), "1 for each exposed player", 0, 1, ("seat",)),
                PieceSpec(
                    "own_total",
                    (1,),
                    f"my Wallets, Stash plus my Guest tile ({wallets}); only mine: another's would point at the tile",
                    0,
                    1,
                ),
                PieceSpec(
                    "knows",
                    (n, n),
                    "[a, b] = 1 if a has been shown b's Identity card (Snitch)",
                    0,
                    1,
                    ("seat", "seat"),
                ),
                PieceSpec(
                    "kept_items",
                    (n, 3),
                    f"Pilot kept, Soldier kept (0/1); Cops under each player's card / {COPS_MAX}",
                    0,
                    1,
                    ("seat", "feature"),
                ),
                PieceSpec(
                    "blocked_swaps",
                    (n, e),
                    "swaps (action order) that would undo each player's latest Move (forbidden to others)",
                    0,
                    1,
                    ("seat", "feature"),
                ),
                PieceSpec(
                    "counts",
                    (3,),
                    f"cards in the Identity deck / {t}; Wallets in the Lost & Found as w / (w + {WALLET_SCALE}); game over",
                    0,
                    1,
                ),
                PieceSpec(
                    "last_kinds",
                    (n, len(KIND_NAMES)),
                    "what each player did on their latest turn (move, steal, expose, snitch, item)",
                    0,
                    1,
                    ("seat", "feature"),
                ),
                PieceSpec(
                    "last_cells",
                    seat_cells,
                    "cells (current places of the tiles) each player's latest turn touched in public",
                    0,
                    1,
                    seat_grid_axes,
                ),
                PieceSpec(
                    "last_seats",
                    (n, n),
                    "players each player's latest turn targeted (Snitch shown to, item targets)",
                    0,
                    1,
                    ("seat", "seat"),
                ),
                PieceSpec(
                    "last_items",
                    (n, t),
                    "items (by Guest) each player used on their latest turn",
                    0,
                    1,
                    ("seat", "item"),
                ),
                PieceSpec("turn", (n,), "whose turn it is (relative seat)", 0, 1, ("seat",)),
                PieceSpec(
                    "decision", (NUM_DECISIONS,), "what the current decision is (see DECISION_NAMES)", 0, 1
                ),
                PieceSpec(
                    "decision_item",
                    (t,),
                    "the item (by Guest) being offered, or in use now (its steps, and a Move or a Dentist answer it asks for)",
                    0,
                    1,
                    ("item",),
                ),
                PieceSpec(
                    "decision_cells", cells, "cells already chosen in the current item", 0, 1, grid_axes
                ),
                PieceSpec(
                    "decision_seats",
                    (n,),
                    "players already chosen in the current item (relative)",
                    0,
                    1,
                    ("seat",),
                ),
                *self._item_choice_pieces(cells, grid_axes),
            ]
        )
        # state seat axes count absolute seats (an auxiliary target rotates them from the decider)
        SF, SS = ("seat", "feature"), ("seat", "seat")
        last = [
            PieceSpec("last_kinds", (n, len(KIND_NAMES)), "each player's latest turn: kinds", axes=SF),
            PieceSpec("last_cells", (n, t), "each player's latest turn: cells touched", axes=SF),
            PieceSpec("last_seats", (n, n), "each player's latest turn: players targeted", axes=SS),
            PieceSpec("last_items", (n, t), "each player's latest turn: items used (by Guest)", axes=SF),
        ]
        phase = [
            PieceSpec("turn", (n,), "whose turn it is", axes=("seat",)),
            ("decision", (NUM_DECISIONS,), "the current decision"),
            ("decision_item", (t,), "the item being offered or used now"),
            ("decision_cells", (t,), "cells already chosen in the current item"),
            PieceSpec("decision_seats", (n,), "players already chosen in the current item", axes=("seat",)),
            *self._item_choice_pieces((t,), ("feature",)),
        ]
        self.state_layout = Layout(
            [
                ("grid", (t, t), "one-hot Guest on each cell"),
                ("exposed_tiles", (t,), "exposed side up"),
                ("tile_wallets", (t,), "Wallets on each tile"),
                ("marks", (t,), "Mark in play (by cell)"),
                ("discarded", (t,), "card discarded (by cell)"),
                PieceSpec("identity", (n, t), "each player's Guest cell (absolute seats)", axes=SF),
                ("deck", (t, t), "one-hot Guest of each Identity deck slot from the top"),
                PieceSpec(
                    "deck_seen",
                    (t, n),
                    "which players have seen each deck slot's card",
                    axes=("feature", "seat"),
                ),
                PieceSpec("knows", (n, n), "who has been shown whose identity", axes=SS),
                PieceSpec(
                    "public_candidates",
                    (n, t),
                    "Guests each player can hold given public actions (by Guest)",
                    axes=SF,
                ),
                PieceSpec(
                    "dentist_candidates",
                    (n, n, t),
                    "[asker, target] Guests the target's Dentist answers allow",
                    axes=("seat", "seat", "feature"),
                ),
                PieceSpec("stashes", (n,), "Stash of each player", axes=("seat",)),
                PieceSpec("exposed_players", (n,), "exposed players", axes=("seat",)),
                PieceSpec("kept_items", (n, 3), "Pilot, Soldier, Cops", axes=SF),
                PieceSpec("blocked_swaps", (n, e), "latest Move records still undoable", axes=SF),
                ("counts", (5,), "deck size, Lost & Found, Wallets created, game over, winners count"),
                *last,
                *phase,
                PieceSpec("decider", (n,), "who decides now (absolute)", axes=("seat",)),
                ("frames", (8,), "stack depth and the top frame's fields"),
            ]
        )

    def _item_choice_pieces(self, cells: tuple, cell_axes: tuple) -> list[PieceSpec]:
        """What the seat making an item step knows of it (all zero at any other decision): the
        observation's and the state's, cells as `cells` (a grid in the observation)."""
        n, s = self.num_players, self.side
        return [
            PieceSpec(
                "item_choice",
                (len(ITEM_CHOICES),),
                "which choice of which item is being made (one-hot, data.py ITEM_CHOICES: RULES.md's item table)",
                0,
                1,
            ),
            PieceSpec(
                "item_choice_line",
                (2 * s,),
                "the line the item works on (rows, then columns): the Firefighter's",
                0,
                1,
            ),
            PieceSpec(
                "item_choice_tile",
                cells,
                "the tile the choice goes with: the Accountant's destination, the Teacher's source, a "
                "Physicist or Nurse swap's first tile, the Firefighter's place being filled",
                0,
                1,
                cell_axes,
            ),
            PieceSpec(
                "item_choice_player",
                (n,),
                "the player the choice goes with: the Captain's player being paid, the Realtor's source, "
                "the Clown's first player",
                0,
                1,
                ("seat",),
            ),
            PieceSpec(
                "item_choice_left",
                (1,),
                f"choices of this kind the item still allows, this one included, / {MOST_REPEATS} "
                "(Accountant, Locksmith, Teacher, Undertaker: Wallets or tiles; Nurse: swaps); 0 if unbounded",
                0,
                1,
            ),
        ]

    def _flag_shapes(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The boolean tables packed (in this order) in `_flags`; `_ObsPlan` mirrors the order."""
        n, t = self.num_players, self.num_tiles
        return (
            ("tile_exposed", (t,)),  # exposed side up, by cell
            ("knows", (n, n)),  # [a, b]: a has been shown b's Identity card
            ("last_kind", (n, len(KIND_NAMES))),
            ("last_seats", (n, n)),
            ("last_items", (n, t)),
            ("is_mark", (t,)),  # Mark in play, by Guest
            ("is_discarded", (t,)),  # card discarded, by Guest
            ("last_guests", (n, t)),  # tiles touched (shown at their current cells)
        )


@cache
def definition(n: int) -> Definition:
    """The shared definition of the n-player game (everything else in the configuration changes
    only the rules' choices, read from `config`)."""
    return Definition(n)


class Exposed(
    TableRules,
    MovementRules,
    ActionRules,
    ChoiceRules,
    ItemRules,
    HiddenRules,
    EndRules,
    ObservationRules,
    DescribeRules,
    Game,
):
    """One game of Exposed; seats 0..n-1, play proceeds clockwise (seat + 1)."""

    name = "exposed"
    config_class = ExposedConfig

    def __init__(
        self, config: ExposedConfig | None = None, rng: np.random.Generator | None = None, **options
    ):
        super().__init__(config, rng, **options)
        self.adopt(definition(self.config.num_players))
        self._setup()

    # ================================================================ set-up
    def _setup(self) -> None:
        n, t, rng = self.num_players, self.num_tiles, self.rng
        # the boolean tables live in one array (tile_exposed, knows, last_*, is_mark, is_discarded are views of it),
        # so an observation copies them all at once
        self._flags = np.zeros(self._flag_layout[-1][2], dtype=bool)
        self._bind_flags()
        # 1. tiles: the first t Guests (the marker filter keeps exactly those), in a random grid
        order = rng.permutation(t)
        self.guest_on = order.astype(np.int64)  # guest on each cell
        self.cell_of_guest = np.empty(t, dtype=np.int64)
        self.cell_of_guest[self.guest_on] = np.arange(t)
        # 2. Wallets: 1 on each tile, a second on corners
        self.wallets_on = np.full(t, START_WALLETS, dtype=np.int64)
        self.wallets_on[self.corners] += CORNER_EXTRA
        self.initial_wallets = int(self.wallets_on.sum())
        self.lost_found = (
            0  # Reading: the box's spare Wallets start in the Lost & Found as 0; more are made as needed
        )
        self.created = 0  # Wallets taken from an empty Lost & Found (FAQ: unlimited)
        self.stash = [0] * n
        # 3. Identity cards: shuffle, deal one each (top of the deck = index 0)
        deck = [int(g) for g in rng.permutation(t)]
        self.ident = deck[:n]
        self.deck = deck[n:]
        self.deck_seen = [0] * len(self.deck)  # bitmask of players who have seen each slot's card
        self.holder_of = [-1] * t
        for p, g in enumerate(self.ident):
            self.holder_of[g] = p
        self.player_exposed = [False] * n
        self.known_by = [0] * n  # bitmask of players shown p's identity (Snitch)
        self.epoch = [0] * n  # bumps when a player's identity card changes (Wrestler, Clown)
        # what public actions imply about each player's Guest (bool per Guest)
        self.public_candidates = np.ones((n, t), dtype=bool)
        self.dentist_candidates = np.ones((n, n, t), dtype=bool)  # [asker, target]
        self.dentist_records = []  # (asker, target, epoch, line, cell_guest snapshot)
        self.flow = TurnFlow()  # what happens next (empty until the first turn starts)
        # 4. Marks
        self.marks: list[int] = []
        self.stolen: list[int] = []  # Marks stolen this action: no longer Marks, discarded after the item
        self.discard: list[int] = []
        for _ in range(self.num_marks):
            self._draw_mark()
        # kept items and move records
        self.kept = np.zeros((n, 3), dtype=np.int64)  # Pilot, Soldier, Cops under the card
        self.latest_move = [[] for _ in range(n)]  # (edge, guest now at a, guest now at b) of the latest Move
        self.n_unexposed = n
        # fast-path flags for observations: pieces that stay all zero until first used
        self.kept_any = self.items_any = False
        self.item_cells: list[int] = []
        self.item_seats: list[int] = []
        self.item_in_use = -1
        self.winners: list[int] = []
        self.over = False
        # bumped by every step that may change what a player knows (see `touch`)
        self._stamp = 0
        self._end_unchecked = False  # a hand edit (`touch`) makes the next clean-up check the end
        self._undoable: tuple = (None, [])  # (position, `_undoable_swaps` there)
        self.turn = int(rng.integers(n))  # Reading: the first player is random
        # every chance of the game is drawn: the grid, the deck order, the first player. The engine
        # keeps no generator, so a clone has none to copy and a resampled world no hidden chance left
        # but the deck order, which `resample_hidden` redraws
        self.rng = None
        self._start_turn(self.turn)

    def _bind_flags(self) -> None:
        flags = self._flags
        d = self.__dict__
        for name, start, end, shape in self._flag_layout:
            d[name] = flags[start:end].reshape(shape)

    _FLAG_NAMES = frozenset(
        (
            "tile_exposed",
            "knows",
            "last_kind",
            "last_seats",
            "last_items",
            "is_mark",
            "is_discarded",
            "last_guests",
        )
    )

    # the mutable state, by how `clone` copies it; everything else a game holds is fixed for its
    # configuration (geometry, layouts, action offsets: shared) or an immutable value
    _STATE_ARRAYS = (
        "_flags",
        "guest_on",
        "cell_of_guest",
        "wallets_on",
        "public_candidates",
        "dentist_candidates",
        "kept",
    )
    _STATE_LISTS = (  # lists of immutable items (Dentist records are never changed in place)
        "stash",
        "ident",
        "deck",
        "deck_seen",
        "holder_of",
        "player_exposed",
        "known_by",
        "epoch",
        "marks",
        "stolen",
        "discard",
        "item_cells",
        "item_seats",
        "winners",
        "dentist_records",
    )
    _SCRATCH = ("_obs_src", "_obs_cache")  # per-game observation buffers, made again on first use

    def clone(self) -> Exposed:
        """An independent copy: the mutable state copied, the rest shared (the legal mask cache
        too: it is read-only and the state is the same)."""
        new = copy_state(self, self._STATE_LISTS, self._STATE_ARRAYS, ("latest_move",), self._SCRATCH)
        new.flow = self.flow.copy()  # frames are immutable: a new list of the same frames
        new._bind_flags()
        return new

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_obs_cache", None)  # views into a scratch buffer: rebuilt on demand
        state.pop("_obs_src", None)
        for name in self._FLAG_NAMES:
            state.pop(name, None)  # views of _flags: bound again on unpickling
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_flags()

    # ================================================================ turn structure
    def _start_turn(self, p: int) -> None:
        """A turn: the Pilot's and the Soldier's options (kept items, before the action), the action,
        then the clean-up (`_end_action`)."""
        self.turn = p
        self.latest_move[p] = []  # the no-reversal restriction on p's last Move ends with p's new turn
        self.last_kind[p].fill(False)
        self.last_guests[p].fill(False)
        if self.items_any:  # (all zero until a Snitch or an item)
            self.last_seats[p].fill(False)
            self.last_items[p].fill(False)
        frames = self.flow.frames  # (`flow.do`, `flow.decide` of shared frames: once per turn)
        frames.append(_END_ACTION)
        frames.append(self._action_frames[p])
        if self.kept_any:
            if self.kept[p, 1]:
                self._decide_move(p, optional=True)  # the Soldier's free Move: optional (Reading)
            if self.kept[p, 0]:
                self.flow.decide(PILOT, p, Exposed._pilot_mask, Exposed._pilot_swap, p, ITEM_GUEST["pilot"])

    def _end_action(self) -> None:
        """Clean-up: empty Marks discarded, new Marks drawn; then the next player clockwise.

        The end of the game is checked again only if the clean-up changed the table (or the state
        was edited by hand: `touch`): every other step is checked right after it (`_advance`) but
        a swap or a pass, which changes nothing the check reads, so otherwise the last check still
        stands (as after a turn of two swaps). The set-up (2 Wallets a tile at most, empty Stashes)
        needs none."""
        changed = False
        for g in list(self.marks):
            if self.wallets_on[self.cell_of_guest[g]] == 0:
                self._discard_mark(g)
                changed = True
        while len(self.marks) < self.num_marks and self.deck:
            self._draw_mark()
            changed = True
        if changed or self._end_unchecked:
            self._stamp += 1  # what players know may have changed (starting a turn changes none of it)
            if self._check_end():
                return
        self._start_turn((self.turn + 1) % self.num_players)

    # ================================================================ the engine contract
    def current_player(self) -> int:
        return -1 if self.over else self.flow.frames[-1].player

    @property
    def decision(self) -> Decide | None:
        """The decision waiting for its player (None once the game is over)."""
        return self.flow.decision

    @property
    def decision_kind(self) -> int:
        """ACTION, MOVE1, ... of the waiting decision (-1 once the game is over)."""
        return -1 if self.over else self.flow.frames[-1].kind

    def is_terminal(self) -> bool:
        return self.over

    def game_type(self) -> GameType:
        """Every seat for itself; +1 to each winner, -1 to the others (0 to all if truncated). Tied
        winners share the win (+1 each), so the sum of the returns varies: general-sum, at every
        player count (a 2-player game can end in a shared win too)."""
        return GameType("general_sum", "none", -1.0, 1.0, self.config.max_decisions)

    def returns(self) -> np.ndarray:
        out = np.zeros(self.num_players)
        if self.over:
            out[:] = -1.0
            out[self.winners] = 1.0
        return out

    # `flow.fill_mask` and `flow.choose`, inlined (a decision always waits while the game goes on)
    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        decision = self.flow.frames[-1]
        decision.legal(self, mask, *decision.args)
        return mask

    def _apply(self, action: int) -> None:
        decision = self.flow.frames.pop()
        decision.then(self, action, *decision.args)
        # a swap (or a pass) cannot end the game: a tile moves with its Wallets, so no Stash + Guest
        # total, no tile's count and no 7-Wallet deduction changes; the check before it stands. Nor
        # does it change what anyone knows (all of it is by Guest or by player, never by cell)
        quiet = decision.then in _SWAPS_ONLY and action < self.OFF_STEAL or action == self.A_PASS
        if not quiet:
            self._stamp += 1
        self._advance(not quiet)

    def _advance(self, check: bool = True) -> None:
        """Play the rules' own steps (`Do` frames) until someone must decide, checking the end of
        the game before each step and before a decision waits (`check` False: the state is still
        as the last check saw it)."""
        frames = self.flow.frames
        while True:
            if check and self._check_end():
                return
            top = frames[-1]
            if type(top) is Decide:
                if top.kind != PICK:
                    return
                step: ItemStep = top.args[1]
                # an item step whose choices vanished (an earlier step of the same item took them)
                # ends it, as a pass would
                if step.optional or step.allowed(self, *step.allowed_args).any():
                    return
                frames.pop()
                step.then(self, *step.then_args, None)
                check = True
                continue
            frames.pop()
            end_of_turn = top == _END_ACTION  # (equal after unpickling too)
            if not end_of_turn:  # (the clean-up says itself whether it changed anything)
                self._stamp += 1
            top.run(self, *top.args)
            # the clean-up ends by checking the end itself, and starting the next turn changes
            # nothing that check reads: no second check
            check = not end_of_turn or self.over

    # ================================================================ observations
    def observation(self, player: int) -> np.ndarray:
        """Written into a source vector in absolute seats (see `_ObsPlan`), then one gather. Pieces
        that are all zero most of the time are cleared by position (those written last call), and the
        numbers only when they changed. The few ones of the one-hot pieces are written one scalar at a
        time: cheaper than one fancy-index write from a list, whose conversion alone costs more."""
        src = self.__dict__.get("_obs_src")
        if src is None:
            src = self._obs_src = _ObsSource(self)
        S, at = src.buf, src.at
        cg = self.guest_on
        over = self.over
        # (`fill` and `[...] =` below: a little cheaper than slice assignments, on every call)
        src.blocked_zero.fill(0.0)  # blocked swaps and the one-hot decision pieces
        if src.dcells_set:  # (in the per-Guest block: cleared only when written)
            src.dcells.fill(0.0)
            src.dcells_set = False
        # ----- the table (public) -----
        # tile_exposed, knows, last_kind, last_seats, last_items, is_mark, is_discarded, last_guests in one copy
        src.flags[...] = self._flags
        scale = _scale_table(self.initial_wallets + self.created)  # no tile holds more
        scale.take(self.wallets_on, 0, src.cwal, "clip")  # wallet_scale, by table
        self._write_numbers(src, player)
        if self.kept_any:
            src.kept[:] = self.kept * _KEPT_SCALE
        blocked, e = at["blocked"], self.num_edges
        for q, i in self._undoable_swaps():
            S[blocked + q * e + i] = 1.0
        if not over:
            self._write_decision(src)
        # ----- what the observer knows (unchanged since the last call for the same observer
        # and the same knowledge stamp: no need to write it again) -----
        if src.known != (player, self._stamp):
            src.known = (player, self._stamp)
            self._recall_knowledge(src, player)
        # ----- per-Guest pieces to cells, the grid, and the gather -----
        # (every index is in range, so mode "wrap" wraps nothing: numpy's fastest take loop, and
        # unlike the default it never buffers an `out`)
        src.guest_block.take(cg, 1, src.cells, "wrap")
        src.plan.eye.take(cg, 0, src.grid, "wrap")
        return S.take(src.plan.index[player], 0, None, "wrap")

    def state_tensor(self) -> np.ndarray:
        buf, v = self._scratch("state")
        buf[:] = 0.0
        self._fill_public(v)
        n = self.num_players
        for q in range(n):
            v["identity"][q, self.cell_of_guest[self.ident[q]]] = 1.0
            for r in range(n):
                if self.known_by[q] >> r & 1:
                    v["knows"][r, q] = 1.0
        for i, (g, flags) in enumerate(zip(self.deck, self.deck_seen)):
            v["deck"][i, g] = 1.0
            v["deck_seen"][i] = [(flags >> q) & 1 for q in range(n)]
        v["public_candidates"][:] = self.public_candidates
        v["dentist_candidates"][:] = self.dentist_candidates
        v["counts"][:] = (len(self.deck), self.lost_found, self.created, self.over, len(self.winners))
        if not self.over:
            decision = self.flow.frames[-1]
            v["decider"][decision.player] = 1.0
            _decider, *details = decision.args
            if decision.kind == PICK:
                details = [details[0].block, details[0].optional]
            fields = [len(self.flow), decision.kind, *details]
            v["frames"][: min(8, len(fields))] = fields[:8]
        return buf.copy()

    # ================================================================ resampling hidden information
    def resample_hidden(self, player: int, rng: np.random.Generator) -> Exposed:
        """A copy where what `player` cannot know is redrawn: the Guests of unexposed players whose
        card `player` has not been shown, the order of the deck cards `player` has not seen, and the
        lines told in Dentist answers `player` is not part of. A function of `player`'s information
        and `rng` alone: the redrawn cards are drawn from their sorted pool, never from where they
        truly are. Constraints kept: a player's Guest is unexposed, inside every public deduction
        (steal/expose neighbourhoods, Senator, Accountant, the 7-Wallet threshold) and every Dentist
        answer given to `player`. Reading: sequential random choice that keeps a consistent
        assignment possible for the players still to draw, not an exact posterior."""
        g = self.clone()
        g._mask_cache = None  # the current decider may be one whose card is redrawn
        g.touch()  # (a clone writes its observations afresh anyway)
        bit = 1 << player
        unknown = [] if self.over else self._unknown_players(player)
        free_slots = [i for i, seen in enumerate(self.deck_seen) if not seen & bit]
        pool = sorted([self.ident[q] for q in unknown] + [self.deck[i] for i in free_slots])
        options = {q: [x for x in pool if ok[x]] for q, ok in self._could_hold(player, unknown).items()}
        choice = _draw_distinct(rng.permutation(unknown).tolist(), options, rng)
        taken = set(choice.values())
        rest = [x for x in pool if x not in taken]
        for i, j in zip(free_slots, rng.permutation(len(rest)).tolist()):
            g.deck[i] = rest[j]
        for q, x in choice.items():
            g.ident[q] = x
        g.holder_of = [-1] * self.num_tiles
        for q, x in enumerate(g.ident):
            g.holder_of[x] = q
        g._redraw_dentist_answers(player, rng)
        return g


_END_ACTION = Do(Exposed._end_action)  # the clean-up closing every turn (one shared frame)
# decisions whose actions below OFF_STEAL are swaps (and whose other actions are passes or not swaps)
_SWAPS_ONLY = frozenset((Exposed._action, Exposed._first_swap, Exposed._second_swap))
