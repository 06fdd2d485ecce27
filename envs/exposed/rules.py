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
Items are `ITEM_EFFECTS` (item name -> effect) and `ITEM_CAN_ACT` (whether an item has a possible
first step), both checked at import against the item names of data.py.

What a player count fixes is one `Definition` (geometry, action offsets, layouts, the common frames,
the observation's index tables), shared by reference by every game and copy; `clone` copies only the
mutable state. Bookkeeping apart from the rules: `_stamp` counts the steps that may change what a
player knows (every step but a swap, a pass or a clean-up that changed nothing; `touch` after
editing a state by hand), so an observation writes a seat's knowledge again only when the stamp
moved since it last wrote that seat's (each seat's is kept), and `_undoable_swaps` is computed once
per position for the masks and the observation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from math import prod
from typing import NamedTuple

import numpy as np

from envs.core import ActionGroup, Game, GameType, Layout, PieceSpec
from envs.core.config import require_choice, require_range
from envs.core.flow import Decide, Do, TurnFlow, check_handlers
from envs.core.game import copy_state
from envs.core.observer import seat_gathers

from .data import (
    ACCOUNTANT_MOVES,
    ASTRONAUT_LOOK,
    ASTRONAUT_OTHERS_LOOK,
    BANKER_GAIN,
    COPS_MAX,
    CORNER_EXTRA,
    EMPTY_MARK_RULES,
    EXPOSURE_REWARDS,
    GUESTS,
    ITEM_CHOICES,
    ITEM_GUEST,
    LOCKSMITH_TAKES,
    MAX_DECISIONS,
    MAX_PLAYERS,
    MAYOR_LOOK,
    MIN_PLAYERS,
    MOST_REPEATS,
    NURSE_SWAPS,
    REALTOR_MOVES,
    START_WALLETS,
    TEACHER_MOVES,
    UNDERTAKER_TILES,
    WALLET_SCALE,
    WIN_WALLETS,
    grid_side,
    marks_in_play,
)


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


_KEPT_SCALE = np.array([1.0, 1.0, 1.0 / COPS_MAX])  # Pilot, Soldier flags; Cops / COPS_MAX


def wallet_scale(w: float) -> float:
    """A count of w Wallets as the observations show it: w / (w + WALLET_SCALE), in [0, 1)."""
    return w / (w + WALLET_SCALE)


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


class _ObsPlan:
    """Index tables for `Exposed.observation`, one per player count (in its `Definition`).

    A game's source vector holds the table in absolute seats: first the packed boolean tables
    (`Exposed._flags`, same order), then the other per-Guest pieces, then numbers and one-hot
    pieces; each call rewrites it, turns the per-Guest block into a per-cell block with one take
    along the current cell -> Guest map, writes the one-hot grid, and the observation of player p
    is then a single gather `source[index[p]]`: `seat_gathers` rotates every axis the observation
    layout declares "seat" so that seats are relative to p.
    """

    def __init__(self, game: Definition) -> None:
        n, t, e = game.num_players, game.num_tiles, game.num_edges
        flag_regions = [
            ("cexp", (t,)),
            ("knows", (n, n)),
            ("lkind", (n, len(KIND_NAMES))),
            ("lseat", (n, n)),
            ("litem", (n, t)),
            ("gmark", (t,)),  # the per-Guest block starts here ...
            ("gdisc", (t,)),
            ("lguest", (n, t)),
        ]
        assert [s for _, s in flag_regions] == [s for _, s in game._flag_shapes()]
        regions = flag_regions + [
            ("dcells", (t,)),
            ("seen", (t,)),  # what the observer knows: from here ...
            ("ident", (n, t)),
            ("told", (n, t)),
            ("cand", (n, t)),  # ... to here; the per-Guest block ends here
            ("cwal", (t,)),
            ("nums", (2 * n + 4,)),  # stashes, exposed players, counts (3), own total
            ("kept", (n, 3)),
            ("blocked", (n, e)),
            ("turn", (n,)),
            ("decision", (NUM_DECISIONS,)),
            ("ditem", (t,)),
            ("dseat", (n,)),
            ("ichoice", (len(ITEM_CHOICES),)),
            ("iline", (2 * game.side,)),
            ("itile", (t,)),
            ("iplayer", (n,)),
            ("ileft", (1,)),
        ]
        off = 0
        self.regions: dict[str, tuple[int, tuple[int, ...]]] = {}
        for name, shape in regions:
            self.regions[name] = (off, shape)
            off += int(np.prod(shape))
        r = {name: reg[0] for name, reg in self.regions.items()}
        self.flags = (0, r["dcells"])
        self.zero = (r["seen"], r["cand"])  # what the observer knows, but candidates (rewritten)
        self.knowledge = (r["seen"], r["cwal"])  # what the observer knows, candidates included
        self.dcells = (r["dcells"], r["seen"])
        self.blocked_zero = (r["blocked"], off)  # blocked swaps and the decision pieces
        self.guest_block = (r["gmark"], r["cwal"])
        rows = (r["cwal"] - r["gmark"]) // t
        self.cells = off  # the per-cell copy of the per-Guest block
        self.grid = self.cells + rows * t
        self.size = self.grid + t * t
        self.eye = np.eye(t, dtype=np.float32)
        self.eye.flags.writeable = False
        self.at = {name: off for name, (off, _shape) in self.regions.items()}
        self.nums = slice(r["nums"], r["nums"] + 2 * n + 3)  # all but the observer's own total
        self.own = r["nums"] + 2 * n + 3

        def cell_region(name: str) -> int:  # where the per-cell copy of a per-Guest region starts
            return self.cells + r[name] - r["gmark"]

        nums = r["nums"]
        # observation piece -> where its absolute-seat copy starts in the source
        pieces = {
            "grid": self.grid,
            "exposed_tiles": r["cexp"],
            "tile_wallets": r["cwal"],
            "marks": cell_region("gmark"),
            "discarded": cell_region("gdisc"),
            "seen_in_deck": cell_region("seen"),
            "identity": cell_region("ident"),
            "candidates": cell_region("cand"),
            "dentist_told": cell_region("told"),
            "stashes": nums,
            "exposed_players": nums + n,
            "own_total": nums + 2 * n + 3,
            "knows": r["knows"],
            "kept_items": r["kept"],
            "blocked_swaps": r["blocked"],
            "counts": nums + 2 * n,
            "last_kinds": r["lkind"],
            "last_cells": cell_region("lguest"),
            "last_seats": r["lseat"],
            "last_items": r["litem"],
            "turn": r["turn"],
            "decision": r["decision"],
            "decision_item": r["ditem"],
            "decision_cells": cell_region("dcells"),
            "decision_seats": r["dseat"],
            "item_choice": r["ichoice"],
            "item_choice_line": r["iline"],
            "item_choice_tile": r["itile"],
            "item_choice_player": r["iplayer"],
            "item_choice_left": r["ileft"],
        }
        layout = game.observation_layout
        assert [p.name for p in layout] == list(pieces), "observation layout and plan disagree"
        # every seat axis the layout declares is rotated to the observer (envs.core.observer)
        self.index = seat_gathers(layout, n, starts=pieces)
        self.starts = pieces


class _ObsSource:
    """One game's source vector and the views `Exposed.observation` writes through (made on first
    use, never copied)."""

    def __init__(self, game: Exposed) -> None:
        n, t = game.num_players, game.num_tiles
        plan = self.plan = game._obs_plan
        self.at = plan.at
        buf = self.buf = np.zeros(plan.size, dtype=np.float32)

        def view(name: str) -> np.ndarray:
            off, shape = plan.regions[name]
            return buf[off : off + prod(shape)].reshape(shape)

        self.cwal = view("cwal")
        self.kept = view("kept")
        self.told = view("told")
        self.cand_f = view("cand")
        self.flags = buf[slice(*plan.flags)]
        self.guest_block = buf[slice(*plan.guest_block)].reshape(-1, t)
        self.cells = buf[plan.cells : plan.grid].reshape(-1, t)
        self.grid = buf[plan.grid :].reshape(t, t)
        self.cand = np.empty((n, t), dtype=bool)
        self.public = np.empty(t, dtype=bool)
        self.nums = plan.nums
        self.own = plan.own
        self.nums_key: tuple | None = None  # what the numbers were written from
        self.zero = buf[slice(*plan.zero)]
        self.dcells = buf[slice(*plan.dcells)]
        self.blocked_zero = buf[slice(*plan.blocked_zero)]
        self.dcells_set = False  # whether decision cells are written
        self.known: tuple[int, int] | None = None  # (observer, knowledge stamp) the knowledge is written for
        # each observer's knowledge as last written, and the stamp it was written at: in a round of
        # plain Moves the stamp stays, and each seat's knowledge is copied back instead of rewritten
        self.knowledge = buf[slice(*plan.knowledge)]
        self.kept_knowledge = np.empty((n, self.knowledge.size), dtype=np.float32)
        self.kept_at: list[int | None] = [None] * n


_SCALE = [np.zeros(0, dtype=np.float32)]  # wallet_scale(w) for w = 0, 1, ... (float32), grown on demand


def _scale_table(most: int) -> np.ndarray:
    """wallet_scale as a table covering 0..most Wallets (the same float32 values as the formula)."""
    table = _SCALE[0]
    if len(table) <= most:
        w = np.arange(max(2 * most, 64))
        table = _SCALE[0] = (w / (w + WALLET_SCALE)).astype(np.float32)
        table.flags.writeable = False
    return table


def _draw_distinct(players: list[int], options: dict[int, list[int]], rng: np.random.Generator) -> dict:
    """Each player, in the given order, a distinct Guest drawn at random among their options, keeping
    at every step a distinct choice possible for the players still to draw (so it never fails when
    one assignment exists, and never needs the true one)."""
    chosen: dict[int, int] = {}
    for i, q in enumerate(players):
        later = players[i + 1 :]
        left = [x for x in options[q] if x not in chosen.values()]
        while True:
            x = left.pop(int(rng.integers(len(left))))
            if not later or _matchable(later, options, {*chosen.values(), x}):
                break
        chosen[q] = x
    return chosen


def _matchable(players: list[int], options: dict[int, list[int]], used: set[int]) -> bool:
    """Whether the players can hold distinct Guests from their options outside `used` (a bipartite
    matching by augmenting paths; at most 5 players)."""
    holder: dict[int, int] = {}

    def place(q: int, visited: set[int]) -> bool:
        for x in options[q]:
            if x in used or x in visited:
                continue
            visited.add(x)
            if x not in holder or place(holder[x], visited):
                holder[x] = q
                return True
        return False

    return all(place(q, set()) for q in players)


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


class Exposed(Game):
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

    # ================================================================ small helpers
    def touch(self) -> None:
        """Say that what players know may have changed (every rule step but a swap or a pass says
        it; call it after changing the state by hand, as tests do): the observation then writes
        the observer's knowledge again instead of reusing it, and the next clean-up checks the end
        of the game even if it changes nothing (see `_end_action`)."""
        self._stamp += 1
        self._end_unchecked = True

    @property
    def pilot(self) -> np.ndarray:
        return self.kept[:, 0]

    @property
    def soldier(self) -> np.ndarray:
        return self.kept[:, 1]

    @property
    def cop(self) -> np.ndarray:
        return self.kept[:, 2]

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

    def _from_lost_found(self, k: int) -> int:
        """Take k Wallets from the Lost & Found (unlimited: the shortfall is created)."""
        if self.lost_found >= k:
            self.lost_found -= k
        else:
            self.created += k - self.lost_found
            self.lost_found = 0
        return k

    def _has_wallet(self) -> np.ndarray:
        """By cell: whether the tile holds a Wallet. (Counts are never negative, so this is their
        truth value: numpy converts to bool faster than it compares with a Python 0.)"""
        return self.wallets_on.astype(bool)

    def _guest_cell(self, p: int) -> int:
        return self.cell_of_guest.item(self.ident[p])  # (`item`: a Python int, no numpy scalar)

    def _give(self, p: int, k: int) -> None:
        """Wallets given to a player: their Stash if unexposed, else their Guest tile (Reminders)."""
        if k <= 0:
            return
        if self.player_exposed[p]:
            self.wallets_on[self._guest_cell(p)] += k
        else:
            self.stash[p] += k

    def _take_from_player(self, p: int, k: int) -> int:
        """Up to k Wallets out of p's Stash (an exposed player's Stash is their Guest tile)."""
        if self.player_exposed[p]:
            c = self._guest_cell(p)
            got = min(k, int(self.wallets_on[c]))
            self.wallets_on[c] -= got
        else:
            got = min(k, self.stash[p])
            self.stash[p] -= got
        return got

    def _total(self, p: int) -> int:
        return self.stash[p] + int(self.wallets_on[self._guest_cell(p)])

    def _swap_cells(self, a: int, b: int) -> None:
        """Swap two tiles (with their Wallets and sides)."""
        if a == b:
            return
        cg, cw, ce = self.guest_on, self.wallets_on, self.tile_exposed
        ga, gb = cg[a], cg[b]
        cg[a], cg[b] = gb, ga
        cw[a], cw[b] = cw[b], cw[a]
        ce[a], ce[b] = ce[b], ce[a]
        self.cell_of_guest[ga], self.cell_of_guest[gb] = b, a

    def _touch(self, cell: int) -> None:
        self.last_guests[self.turn, self.guest_on[cell]] = True

    def _guests_where(self, cell_mask: np.ndarray) -> np.ndarray:
        return cell_mask[self.cell_of_guest]  # Guest g is where its cell is

    def _constrain(self, p: int, guest_mask: np.ndarray) -> None:
        """Public deduction: p's Guest is among guest_mask (kept for resampling and observations)."""
        if not self.player_exposed[p]:
            self.public_candidates[p] &= guest_mask

    # ================================================================ exposure and discards
    def _flip(self, cell: int, actor: int) -> None:
        """Flip a tile to its exposed side; a player holding that Guest is exposed."""
        if self.tile_exposed[cell]:
            return
        self.tile_exposed[cell] = True
        owner = self.holder_of[self.guest_on[cell]]
        if owner >= 0:
            self._exposed(owner, actor)

    def _exposed(self, p: int, actor: int) -> None:
        """If You Are Exposed: card face-up, reward to the exposer, Stash onto the Guest, half lost."""
        self.player_exposed[p] = True
        self.n_unexposed -= 1
        if actor >= 0 and actor != p:  # Reading: no reward for exposing yourself
            self._give(actor, self._from_lost_found(self.config.exposure_reward))
        c = self._guest_cell(p)
        self.wallets_on[c] += self.stash[p]
        self.stash[p] = 0
        half = int(self.wallets_on[c]) // 2
        self.wallets_on[c] -= half
        self.lost_found += half

    def _discard_card(self, g: int, actor: int) -> None:
        """A card to the discard pile; its Guest tile is exposed (Reminders)."""
        self.discard.append(g)
        self.is_discarded[g] = True
        self._flip(int(self.cell_of_guest[g]), actor)

    def _discard_mark(self, g: int) -> None:
        if self.is_mark[g]:
            self._unmark(g)
            self._discard_card(g, self.turn)

    def _unmark(self, g: int) -> None:
        self.marks.remove(g)
        self.is_mark[g] = False

    def _discard_stolen(self, g: int) -> None:
        """The stolen Mark's card goes to the discard pile once its item is over (Steal, step 3): no
        item is in use any more (an item stolen inside another, by the Mechanic, is that item's last
        step)."""
        self.item_in_use = -1
        self.stolen.remove(g)
        self._discard_card(g, self.turn)

    def _draw_mark(self) -> None:
        """Draw one Mark; an empty one is discarded and exposed and another drawn (or gets a Wallet)."""
        while self.deck:
            g = self.deck.pop(0)
            self.deck_seen.pop(0)
            c = int(self.cell_of_guest[g])
            if self.wallets_on[c] == 0:
                if self.config.empty_new_mark == "discard":
                    # (a deck card is nobody's identity: its flip exposes no player, whoever acts)
                    self._discard_card(g, self.turn if self.flow.frames else -1)
                    continue
                self.wallets_on[c] += self._from_lost_found(1)
            self.marks.append(g)
            self.is_mark[g] = True
            return

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

    def _check_end(self) -> bool:
        """Both ways to win, after every step. Returns True when the game is over."""
        if self.over:
            return True
        self._end_unchecked = False
        stash = self.stash
        wal = self.wallets_on.tolist()
        top = max(wal)
        if self.n_unexposed > 1 and max(stash) + top < WIN_WALLETS:
            return False  # nobody can hold 7 (and no deduction follows): the common case, fast
        n = self.num_players
        player_exposed = self.player_exposed
        unexposed = [p for p in range(n) if not player_exposed[p]]
        if len(unexposed) == 1:
            self.winners = unexposed
        else:
            cell = self.cell_of_guest.tolist()
            totals = [stash[p] + wal[cell[g]] for p, g in enumerate(self.ident)]
            rich = [p for p in range(n) if totals[p] >= WIN_WALLETS]
            if not unexposed:  # cannot happen (one exposure per step); most Wallets then
                rich = list(range(n))
            if not rich:
                self._wallet_deductions(unexposed, top)
                return False
            best = max(totals[p] for p in rich)
            self.winners = [p for p in rich if totals[p] == best]  # ties share the win
        self.over = True
        self.flow.clear()
        return True

    def _wallet_deductions(self, unexposed: list[int], top: int) -> None:
        """The game goes on, so no unexposed player's Stash + tile reaches 7: a public deduction
        (`top`: the most Wallets on a tile)."""
        stash = self.stash
        deducing = [p for p in unexposed if top >= WIN_WALLETS - stash[p]]  # (others: nothing to learn)
        if deducing:
            on_guest = self.wallets_on[self.cell_of_guest]  # Wallets on each Guest's tile
            for p in deducing:  # (row by row: cheaper than one broadcast over every player)
                row = self.public_candidates[p]
                np.logical_and(row, on_guest < WIN_WALLETS - stash[p], out=row)

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

    # ================================================================ the four actions
    def _action_mask(self, mask: np.ndarray, p: int) -> None:
        """ACTION: a swap (Move), a Steal, an Expose or (unexposed) a Snitch."""
        t = self.num_tiles
        self._swaps_mask(mask, p)
        self._steal_targets(p, out=mask[self.OFF_STEAL : self.OFF_EXPOSE])
        c = self._guest_cell(p)
        off = self.OFF_EXPOSE
        np.greater(self.rowcol[c], self.tile_exposed, out=mask[off : off + t])  # in line and unexposed
        player_exposed = self.player_exposed
        if not player_exposed[p]:
            n = self.num_players
            off = self.OFF_SNITCH
            for k in range(1, n):
                if not player_exposed[(p + k) % n]:
                    mask[off + k] = True

    def _action(self, a: int, p: int) -> None:
        if a < self.OFF_STEAL:
            self._move_first(p, a)
        elif a < self.OFF_EXPOSE:
            self.last_kind[p, K_STEAL] = True
            self._steal(p, a - self.OFF_STEAL)
        elif a < self.OFF_SNITCH:
            self._expose(p, a - self.OFF_EXPOSE)
        else:
            self._snitch(p, (p + a - self.OFF_SNITCH) % self.num_players)

    # --- MOVE: two swaps (also the Soldier's, the Magician's and the Server target's Move)
    def _decide_move(self, p: int, optional: bool) -> None:
        """p's first swap of a Move (`optional`: p may pass instead)."""
        self.flow.decide(MOVE1, p, Exposed._first_swap_mask, Exposed._first_swap, p, optional)

    def _first_swap_mask(self, mask: np.ndarray, p: int, optional: bool) -> None:
        self._swaps_mask(mask, p)
        mask[self.A_PASS] = optional

    def _first_swap(self, action: int, p: int, optional: bool) -> None:
        if action != self.A_PASS:
            self._move_first(p, action)

    def _move_first(self, p: int, e: int) -> None:
        """MOVE: a new Move action replaces p's record; then the first of two swaps."""
        self.last_kind[self.turn, K_MOVE] = True
        self.latest_move[p] = []
        self._swap(p, e)
        self.flow.frames.append(self._second_swap_frames[p][e])  # MOVE2, args (p, e)

    def _second_swap(self, e: int, p: int, first: int) -> None:
        self._swap(p, e)

    def _swap(self, p: int, e: int) -> None:
        a, b = self.edges[e]
        self._swap_cells(a, b)
        cg = self.guest_on
        ga, gb = cg.item(a), cg.item(b)
        self.latest_move[p].append((e, ga, gb))
        touched = self.last_guests[self.turn]  # both tiles touched (`_touch`)
        touched[ga] = touched[gb] = True

    def _swaps_mask(self, mask: np.ndarray, p: int, first: int | None = None) -> None:
        """Every swap (mask[:num_edges]) except one that exactly undoes a swap of another player's
        latest Move (or, on the second swap, your own `first`): also the MOVE2 decision's mask."""
        mask[: self.num_edges] = True
        for q, e in self._undoable_swaps():
            if q != p:
                mask[e] = False
        if first is not None:
            mask[first] = False  # swapping the same two cells again undoes the first swap

    def _undoable_swaps(self) -> list[tuple[int, int]]:
        """(player, edge) of every swap of a player's latest Move whose two tiles are still where it
        put them (swapping them again would undo it). Read by the masks and the observation: kept
        for the position it was computed in (the decision count and `touch` stamp)."""
        position = (self.num_decisions, self._stamp)
        if self._undoable[0] == position:
            return self._undoable[1]
        found = []
        if any(self.latest_move):
            cg = self.guest_on.tolist()
            edges = self.edges
            for q, recs in enumerate(self.latest_move):
                for e, ga, gb in recs:
                    a, b = edges[e]
                    if cg[a] == ga and cg[b] == gb:
                        found.append((q, e))
        self._undoable = (position, found)  # (a new tuple: a clone may share the old one)
        return found

    # --- STEAL
    def _steal_conditions(self, p: int) -> tuple[tuple[np.ndarray, str], tuple[np.ndarray, str]]:
        """STEAL (the action and the Mechanic's extra Steal), written once: by tile, each condition
        with why a tile failing it may not be robbed. The legal mask is every condition met
        (`_steal_targets`); an illegal Steal's reason is the first one failed (`_steal_refusal`)."""
        c = self._guest_cell(p)
        # the tiles surrounding your Guest, and your Guest itself only while you are unexposed (FAQ;
        # printed rulebook)
        reach = self.surround[c] if self.player_exposed[p] else self.near[c]
        return (
            (reach, "you may steal only from a tile surrounding your Guest, or your own while unexposed"),
            (self._has_wallet(), "that tile has no Wallet to steal"),
        )

    def _steal_targets(self, p: int, out: np.ndarray | None = None) -> np.ndarray:
        """The tiles p may steal from (the Steal block of the mask, as tile booleans; into `out`
        if given)."""
        (reach, _), (wallets, _) = self._steal_conditions(p)
        return np.logical_and(reach, wallets, out=out)

    def _steal_refusal(self, p: int, cell: int) -> str:
        return next((why for allowed, why in self._steal_conditions(p) if not allowed[cell]), "it is allowed")

    def _steal(self, p: int, cell: int) -> None:
        """STEAL: a Wallet from a tile within reach (`_steal_conditions`)."""
        self._touch(cell)
        # what the reach tells the table: the thief's Guest is the robbed tile or surrounds it
        # (`near` is the rule's reach, and symmetric)
        self._constrain(p, self._guests_where(self.near[cell]))
        self.wallets_on[cell] -= 1
        self._give(p, 1)
        g = int(self.guest_on[cell])
        if self.is_mark[g]:
            # a Mark stops being a Mark at its first theft (another Steal from its tile during its own
            # item, by the Mechanic, triggers nothing); its card is discarded once the item is over
            self._unmark(g)
            self.stolen.append(g)
            self._flip(cell, p)
            self.flow.do(Exposed._discard_stolen, g)
            # Reading: the item is always offered; one with no possible first step does nothing
            # (whether it could act is then public: the offer tells nothing about the thief's Guest)
            self.flow.decide(OFFER, p, Exposed._offer_mask, Exposed._offer, p, g)

    # --- the stolen Mark's item offer (OFFER)
    def _offer_mask(self, mask: np.ndarray, p: int, g: int) -> None:
        mask[self.A_USE] = mask[self.A_PASS] = True

    def _offer(self, action: int, p: int, g: int) -> None:
        if action == self.A_USE:
            self.last_kind[self.turn, K_ITEM] = True
            self._use_item(p, g)

    # --- EXPOSE
    def _expose(self, p: int, cell: int) -> None:
        """EXPOSE: a tile in your row or column; a Cop under your card costs a Wallet first."""
        self.last_kind[p, K_EXPOSE] = True
        self._touch(cell)
        if self.cop[p]:
            self.lost_found += self._take_from_player(p, self.cop[p])
        self._constrain(p, self._guests_where(self.rowcol[cell]))
        self._flip(cell, p)

    # --- SNITCH
    def _snitch(self, p: int, q: int) -> None:
        """SNITCH: show your Identity card to q, then flip any unexposed tile (not your own)."""
        self.last_kind[p, K_SNITCH] = True
        self.last_seats[p, q] = True
        self.known_by[p] |= 1 << q
        self.knows[q, p] = True
        self.items_any = True
        self.flow.decide(SNITCH_FLIP, p, Exposed._snitch_flip_mask, Exposed._snitch_flip, p)

    def _snitch_flip_mask(self, mask: np.ndarray, p: int) -> None:
        off = self.OFF_CELL
        m = mask[off : off + self.num_tiles]
        np.logical_not(self.tile_exposed, out=m)
        m[self._guest_cell(p)] = False

    def _snitch_flip(self, action: int, p: int) -> None:
        self._touch(action - self.OFF_CELL)
        self._flip(action - self.OFF_CELL, p)

    # --- the Pilot's turn-start swap (PILOT)
    def _pilot_mask(self, mask: np.ndarray, p: int, pilot: int) -> None:
        off = self.OFF_CELL
        mask[off : off + self.num_tiles] = True
        mask[off + self.cell_of_guest[pilot]] = False
        mask[self.A_PASS] = True

    def _pilot_swap(self, action: int, p: int, pilot: int) -> None:
        if action != self.A_PASS:
            self._swap_cells(int(self.cell_of_guest[pilot]), action - self.OFF_CELL)
            self._touch(action - self.OFF_CELL)

    # ================================================================ item steps (PICK)
    def _item_step(
        self,
        p: int,
        block: int,
        allowed: Callable[..., np.ndarray],
        allowed_args: tuple,
        then: Callable[..., None],
        then_args: tuple,
        optional: bool = False,
        *,
        line: int = -1,
        tile: int = -1,
        player: int = -1,
        left: int = 0,
    ) -> None:
        """p chooses in `block` one of what `allowed` marks; `line`, `tile`, `player`, `left`: what p
        knows of the choice (see `ItemStep`)."""
        kind = _ITEM_CHOICE_OF[then]
        step = ItemStep(
            block, allowed, allowed_args, then, then_args, optional, kind, line, tile, player, left
        )
        self.flow.decide(PICK, p, Exposed._item_step_mask, Exposed._item_step_chosen, p, step)

    def _item_step_mask(self, mask: np.ndarray, p: int, step: ItemStep) -> None:
        allowed = step.allowed(self, *step.allowed_args)
        off = self._block_offset[step.block]
        if step.block == B_SEAT:
            allowed = np.roll(allowed, -p)  # relative seats: index k is seat p + k
        mask[off : off + len(allowed)] = allowed
        mask[self.A_PASS] = step.optional

    def _item_step_chosen(self, action: int, p: int, step: ItemStep) -> None:
        choice = None
        if action != self.A_PASS:
            choice = action - self._block_offset[step.block]
            if step.block == B_SEAT:
                choice = (p + choice) % self.num_players
        step.then(self, *step.then_args, choice)

    # ================================================================ items
    def _use_item(self, p: int, g: int) -> None:
        """Use the item of Guest g (a stolen Mark's, or a discarded card's through the Actor)."""
        self.item_in_use = g
        self.item_cells = []
        self.item_seats = []
        self.last_items[self.turn, g] = True
        self.items_any = True
        item = GUESTS[g].item
        can_act = ITEM_CAN_ACT.get(item)
        # Reading: an item with no possible first step does nothing. Every can-act check reads only
        # the public table, so whether an item acts never tells anything about its user's Guest
        if can_act is None or can_act(self, p, g):
            ITEM_EFFECTS[item](self, p, g)

    # --- what an item step may choose: booleans over cells, lines, seats (absolute) or Guests
    def _except(self, cells: np.ndarray, guests: tuple[int, ...] | list[int]) -> np.ndarray:
        for x in guests:  # the current cells of these Guests are excluded
            cells[self.cell_of_guest[x]] = False
        return cells

    def _any_cell_except(self, *guests: int) -> np.ndarray:
        return self._except(np.ones(self.num_tiles, dtype=bool), guests)

    def _wallet_cells_except(self, *guests: int) -> np.ndarray:
        return self._except(self._has_wallet(), guests)

    def _unexposed_cells(self) -> np.ndarray:
        return ~self.tile_exposed

    def _exposed_wallet_cells_except(self, *guests: int) -> np.ndarray:
        return self._except(self._has_wallet() & self.tile_exposed, guests)

    def _cells_surrounding(self, g: int) -> np.ndarray:
        return self.surround[int(self.cell_of_guest[g])].copy()

    def _line_from(self, line: int, i: int) -> np.ndarray:
        """The cells of a line from its i-th on."""
        cells = np.zeros(self.num_tiles, dtype=bool)
        cells[self.line_cells[line][i:]] = True
        return cells

    def _cells_but_own(self, p: int) -> np.ndarray:
        cells = np.ones(self.num_tiles, dtype=bool)
        cells[self._guest_cell(p)] = False
        return cells

    def _cells_not_chosen(self) -> np.ndarray:
        """Any cell but those already chosen in this item."""
        return self._except(np.ones(self.num_tiles, dtype=bool), self.item_cells)

    def _exposed_wallet_cells_not_chosen(self, g: int) -> np.ndarray:
        return self._except(self._exposed_wallet_cells_except(g), self.item_cells)

    def _any_line(self) -> np.ndarray:
        return np.ones(2 * self.side, dtype=bool)

    def _other_seats(self, p: int) -> np.ndarray:
        seats = np.ones(self.num_players, dtype=bool)
        seats[p] = False
        return seats

    def _neighbour_seats(self, p: int) -> np.ndarray:
        n = self.num_players
        seats = np.zeros(n, dtype=bool)
        seats[(p + 1) % n] = seats[(p - 1) % n] = True
        return seats

    def _exposed_seats_except(self, *exclude: int) -> np.ndarray:
        seats = np.array(self.player_exposed, dtype=bool)
        seats[list(exclude)] = False
        return seats

    def _player_wallets(self, q: int) -> int:
        return int(self.wallets_on[self._guest_cell(q)]) if self.player_exposed[q] else self.stash[q]

    def _marks_except(self, g: int) -> np.ndarray:
        guests = np.zeros(self.num_tiles, dtype=bool)
        guests[self.marks] = True
        guests[g] = False
        return guests

    def _actor_cards(self) -> np.ndarray:
        """Any discarded card but an Actor (an Actor through the Actor would do nothing)."""
        guests = np.zeros(self.num_tiles, dtype=bool)
        for g in self.discard:
            if GUESTS[g].item != "actor":
                guests[g] = True
        return guests

    def _ctx_cell(self, cell: int) -> None:
        self.item_cells.append(int(self.guest_on[cell]))
        self._touch(cell)

    def _ctx_seat(self, q: int) -> None:
        self.item_seats.append(q)
        self.last_seats[self.turn, q] = True
        self.items_any = True

    def _any_wallet(self, p: int, g: int) -> bool:
        """Whether some tile holds a Wallet (the can-act check of items that take one from a tile)."""
        return bool(self._has_wallet().any())

    # --- no marker ---
    def _item_accountant(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._cells_but_own, (p,), Exposed._accountant_dest, (p,))

    def _accountant_dest(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        if not self.player_exposed[p]:  # a public deduction: the destination is not the user's own Guest
            self.public_candidates[p, self.guest_on[cell]] = False
        self._accountant_more(p, int(self.guest_on[cell]), ACCOUNTANT_MOVES)

    def _accountant_more(self, p: int, dest: int, left: int) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                Exposed._wallet_cells_except,
                (dest,),
                Exposed._accountant_take,
                (p, dest, left),
                optional=True,
                tile=int(self.cell_of_guest[dest]),
                left=left,
            )

    def _accountant_take(self, p: int, dest: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[dest]] += 1
        self._accountant_more(p, dest, left - 1)

    def _item_architect(self, p: int, g: int) -> None:
        for c in self.corners:
            self.wallets_on[c] += self._from_lost_found(1)

    def _look(self, p: int, k: int) -> None:
        """Look at the top k Identity cards and put them at the bottom (in the same order)."""
        k = min(k, len(self.deck))
        for _ in range(k):
            self.deck.append(self.deck.pop(0))
            self.deck_seen.append(self.deck_seen.pop(0) | (1 << p))

    def _item_astronaut(self, p: int, g: int) -> None:
        self._look(p, ASTRONAUT_LOOK)
        for k in range(1, self.num_players):
            self._look((p + k) % self.num_players, ASTRONAUT_OTHERS_LOOK)

    def _item_mayor(self, p: int, g: int) -> None:
        self._look(p, MAYOR_LOOK)

    def _item_dentist(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, Exposed._other_seats, (p,), Exposed._dentist_target, (p,))

    def _dentist_target(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        if not self.player_exposed[q]:  # an exposed player has nothing to tell
            self.flow.decide(DENTIST, q, Exposed._dentist_mask, Exposed._dentist_told, q, p)

    def _dentist_mask(self, mask: np.ndarray, q: int, asker: int) -> None:
        """The target's two lines: the row and the column of their Guest."""
        c = self._guest_cell(q)
        mask[self.OFF_LINE + c // self.side] = True
        mask[self.OFF_LINE + self.side + c % self.side] = True

    def _dentist_told(self, action: int, q: int, asker: int) -> None:
        self._dentist_answer(q, asker, action - self.OFF_LINE)

    def _dentist_answer(self, q: int, asker: int, line: int) -> None:
        """The target privately tells the asker one line holding their Guest (not public)."""
        self.dentist_records.append((asker, q, self.epoch[q], line, self.guest_on.copy()))
        self.dentist_candidates[asker, q] &= self._guests_where(self.line_mask[line])

    def _item_engineer(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._unexposed_cells, (), Exposed._engineer_flip, (p,))

    def _engineer_flip(self, p: int, cell: int) -> None:
        self._touch(cell)
        self._flip(cell, p)

    def _item_firefighter(self, p: int, g: int) -> None:
        self._item_step(p, B_LINE, Exposed._any_line, (), Exposed._firefighter_line, (p,))

    def _firefighter_line(self, p: int, line: int, i: int = 0) -> None:
        if i < self.side - 1:
            place = self.line_cells[line][i]
            self._item_step(
                p,
                B_CELL,
                Exposed._line_from,
                (line, i),
                Exposed._firefighter_place,
                (p, line, i),
                line=line,
                tile=place,
            )

    def _firefighter_place(self, p: int, line: int, i: int, cell: int) -> None:
        target = self.line_cells[line][i]
        self._swap_cells(target, cell)
        self._touch(target)
        self._firefighter_line(p, line, i + 1)

    def _item_lawyer(self, p: int, g: int) -> None:
        for c in np.flatnonzero(self.tile_exposed):
            self.wallets_on[c] += self._from_lost_found(1)

    def _can_locksmith(self, p: int, g: int) -> bool:
        return bool(self._wallet_cells_except(g).any())

    def _item_locksmith(self, p: int, g: int, left: int = LOCKSMITH_TAKES) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                Exposed._wallet_cells_except,
                (g,),
                Exposed._locksmith_take,
                (p, g, left),
                left=left,
            )

    def _locksmith_take(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:  # no Wallet left anywhere else
            return
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[g]] += 1
        self._item_locksmith(p, g, left - 1)

    def _item_magician(self, p: int, g: int) -> None:
        self._decide_move(p, optional=False)

    def _item_mechanic(self, p: int, g: int) -> None:
        # Reading: the extra Steal may be passed, so a thief with nothing to steal from (where the
        # tiles around their secret Guest are empty) looks exactly like one who chooses not to steal
        self._item_step(
            p, B_STEAL, Exposed._steal_targets, (p,), Exposed._mechanic_steal, (p,), optional=True
        )

    def _mechanic_steal(self, p: int, cell: int | None) -> None:
        if cell is not None:
            self._steal(p, cell)

    def _item_paramedic(self, p: int, g: int) -> None:
        self._item_step(p, B_LINE, Exposed._any_line, (), Exposed._paramedic_line, (p,))

    def _paramedic_line(self, p: int, line: int) -> None:
        for c in self.line_cells[line]:
            self.wallets_on[c] += self._from_lost_found(1)
            self._touch(c)

    def _item_physicist(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._any_cell_except, (), Exposed._physicist_first, (p,))

    def _physicist_first(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        first = int(self.guest_on[cell])
        self._item_step(
            p, B_CELL, Exposed._any_cell_except, (first,), Exposed._physicist_second, (p, first), tile=cell
        )

    def _physicist_second(self, p: int, first: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[first]), cell)

    def _item_surgeon(self, p: int, g: int) -> None:
        self._give(p, self._from_lost_found(1))

    def _item_teacher(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._wallet_cells_except, (), Exposed._teacher_source, (p,))

    def _teacher_source(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        self._teacher_more(p, int(self.guest_on[cell]), TEACHER_MOVES)

    def _teacher_more(self, p: int, src: int, left: int) -> None:
        source = int(self.cell_of_guest[src])
        if left and self.wallets_on[source] > 0:
            self._item_step(
                p,
                B_CELL,
                Exposed._cells_not_chosen,
                (),
                Exposed._teacher_give,
                (p, src, left),
                optional=True,
                tile=source,
                left=left,
            )

    def _teacher_give(self, p: int, src: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[self.cell_of_guest[src]] -= 1
        self.wallets_on[cell] += 1
        self._teacher_more(p, src, left - 1)

    def _item_undertaker(self, p: int, g: int, left: int = UNDERTAKER_TILES) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                Exposed._cells_not_chosen,
                (),
                Exposed._undertaker_give,
                (p, g, left),
                optional=True,
                left=left,
            )

    def _undertaker_give(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[cell] += self._from_lost_found(1)
        self._item_undertaker(p, g, left - 1)

    # --- "3+" ---
    def _can_actor(self, p: int, g: int) -> bool:
        return bool(self._actor_cards().any())

    def _item_actor(self, p: int, g: int) -> None:
        self._item_step(p, B_GUEST, Exposed._actor_cards, (), Exposed._use_item, (p,))

    def _item_farmer(self, p: int, g: int) -> None:
        c = int(self.cell_of_guest[g])
        for x in [c, *np.flatnonzero(self.surround[c])]:
            self.wallets_on[x] += self._from_lost_found(1)

    def _can_janitor(self, p: int, g: int) -> bool:
        return bool(self._exposed_wallet_cells_except(g).any())

    def _item_janitor(self, p: int, g: int) -> None:
        self._item_step(
            p,
            B_CELL,
            Exposed._exposed_wallet_cells_not_chosen,
            (g,),
            Exposed._janitor_take,
            (p, g),
            optional=True,
        )

    def _janitor_take(self, p: int, g: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[g]] += 1
        self._item_janitor(p, g)

    def _item_nanny(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._wallet_cells_except, (), Exposed._nanny_take, (p,))

    def _nanny_take(self, p: int, cell: int) -> None:
        self._touch(cell)
        w = int(self.wallets_on[cell])
        self.wallets_on[cell] = 0
        self.lost_found += w - 1
        self._give(p, 1)

    def _item_nurse(self, p: int, g: int, left: int = NURSE_SWAPS) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                Exposed._cells_surrounding,
                (g,),
                Exposed._nurse_first,
                (p, g, left),
                optional=True,
                left=left,
            )

    def _nurse_first(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._touch(cell)
        first = int(self.guest_on[cell])
        self._item_step(
            p,
            B_CELL,
            Exposed._any_cell_except,
            (first,),
            Exposed._nurse_second,
            (p, g, left, first),
            tile=cell,
            left=left,
        )

    def _nurse_second(self, p: int, g: int, left: int, first: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[first]), cell)
        self._item_nurse(p, g, left - 1)

    def _item_pilot(self, p: int, g: int) -> None:
        self.pilot[p] = 1
        self.kept_any = True

    def _item_senator(self, p: int, g: int) -> None:
        near = self.surround[int(self.cell_of_guest[g])]
        guests = self._guests_where(near)
        for q in range(self.num_players):
            if near[self._guest_cell(q)]:
                self._give(q, self._from_lost_found(1))
                self._constrain(q, guests)
            else:
                self._constrain(q, ~guests)

    def _item_server(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, Exposed._other_seats, (p,), Exposed._server_target, (p,))

    def _server_target(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self.flow.do(Exposed._server_take, p, q)
        self._decide_move(q, optional=False)  # the target's own Move (its swaps are the target's steps)

    def _server_take(self, p: int, q: int) -> None:
        self._give(p, self._take_from_player(q, 1))

    def _item_veterinarian(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, Exposed._neighbour_seats, (p,), Exposed._veterinarian_take, (p,))

    def _veterinarian_take(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self._give(p, self._take_from_player(q, 1))

    # --- "5+" ---
    def _can_artist(self, p: int, g: int) -> bool:
        return bool(self._wallet_cells_except(g).any())

    def _item_artist(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._wallet_cells_except, (g,), Exposed._artist_take, (p, g))

    def _artist_take(self, p: int, g: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[self.cell_of_guest[g]] += self.wallets_on[cell]
        self.wallets_on[cell] = 0

    def _item_banker(self, p: int, g: int) -> None:
        self.wallets_on[self.cell_of_guest[g]] += self._from_lost_found(BANKER_GAIN)
        self._item_step(p, B_CELL, Exposed._any_cell_except, (g,), Exposed._banker_swap, (p, g))

    def _banker_swap(self, p: int, g: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[g]), cell)

    def _can_captain(self, p: int, g: int) -> bool:
        return any(self.player_exposed) and bool(self._has_wallet().any())

    def _captain_targets(self, p: int) -> np.ndarray:
        """Exposed players not yet paid by this Captain (none once no tile holds a Wallet)."""
        seats = np.array(self.player_exposed, dtype=bool)
        seats[self.item_seats] = False
        if not self._has_wallet().any():
            seats[:] = False
        return seats

    def _item_captain(self, p: int, g: int) -> None:
        self._item_step(
            p, B_SEAT, Exposed._captain_targets, (p,), Exposed._captain_player, (p, g), optional=True
        )

    def _captain_player(self, p: int, g: int, q: int | None) -> None:
        if q is None:
            return
        self._ctx_seat(q)
        self.flow.do(Exposed._item_captain, p, g)  # then the next player, until the user stops
        self._item_step(p, B_CELL, Exposed._wallet_cells_except, (), Exposed._captain_give, (q,), player=q)

    def _captain_give(self, q: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self._give(q, 1)

    def _can_clown(self, p: int, g: int) -> bool:
        return sum(self.player_exposed) >= 2

    def _item_clown(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, Exposed._exposed_seats_except, (), Exposed._clown_first, (p,))

    def _clown_first(self, p: int, a: int) -> None:
        self._ctx_seat(a)
        self._item_step(
            p, B_SEAT, Exposed._exposed_seats_except, (a,), Exposed._clown_second, (p, a), player=a
        )

    def _clown_second(self, p: int, a: int, b: int) -> None:
        self._ctx_seat(b)
        ga, gb = self.ident[a], self.ident[b]
        self.ident[a], self.ident[b] = gb, ga
        self.holder_of[ga], self.holder_of[gb] = b, a
        for q in (a, b):
            self._new_identity(q)

    def _new_identity(self, q: int) -> None:
        """q holds another card: what was known about the old one no longer applies."""
        self.epoch[q] += 1
        self.public_candidates[q] = True
        self.dentist_candidates[:, q] = True
        self.dentist_records = [r for r in self.dentist_records if r[1] != q]

    def _item_cop(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, Exposed._other_seats, (p,), Exposed._cop_place, (p,))

    def _cop_place(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self.cop[q] += 1
        self.kept_any = True

    def _can_judge(self, p: int, g: int) -> bool:
        return bool(self._marks_except(g).any())

    def _item_judge(self, p: int, g: int) -> None:
        self._item_step(
            p, B_GUEST, Exposed._marks_except, (g,), Exposed._judge_discard, (p, g), optional=True
        )

    def _judge_discard(self, p: int, g: int, mark: int | None) -> None:
        if mark is None:
            return
        self._touch(int(self.cell_of_guest[mark]))
        self._discard_mark(mark)
        self._item_judge(p, g)

    def _item_panhandler(self, p: int, g: int) -> None:
        for k in range(1, self.num_players):
            q = (p + k) % self.num_players
            self.wallets_on[self.cell_of_guest[g]] += self._take_from_player(q, 1)

    def _item_puppeteer(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, Exposed._wallet_cells_except, (), Exposed._puppeteer_take, (p,))

    def _puppeteer_take(self, p: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self._give(p, 1)

    def _realtor_sources(self, p: int) -> np.ndarray:
        """Players with Wallets to move (with 2 players only the user: the destination must differ
        from the source and from the user)."""
        n = self.num_players
        seats = np.array([self._player_wallets(q) > 0 for q in range(n)], dtype=bool)
        if n == 2:
            seats[1 - p] = False
        return seats

    def _realtor_destinations(self, p: int, source: int) -> np.ndarray:
        seats = np.ones(self.num_players, dtype=bool)
        seats[p] = seats[source] = False
        return seats

    def _can_realtor(self, p: int, g: int) -> bool:
        return bool(self._realtor_sources(p).any())

    def _item_realtor(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, Exposed._realtor_sources, (p,), Exposed._realtor_source, (p,))

    def _realtor_source(self, p: int, a: int) -> None:
        self._ctx_seat(a)
        self._item_step(
            p, B_SEAT, Exposed._realtor_destinations, (p, a), Exposed._realtor_dest, (p, a), player=a
        )

    def _realtor_dest(self, p: int, a: int, b: int) -> None:
        self._ctx_seat(b)
        self._give(b, self._take_from_player(a, REALTOR_MOVES))

    def _item_soldier(self, p: int, g: int) -> None:
        self.soldier[p] = 1
        self.kept_any = True

    def _can_wrestler(self, p: int, g: int) -> bool:
        return len(self.deck) > 0

    def _item_wrestler(self, p: int, g: int) -> None:
        """Discard your card (its tile is exposed) and draw until you hold an unexposed Guest.
        Reading: if the deck runs out first, you keep the last card drawn (exposed: you are exposed)."""
        old = self.ident[p]
        self.holder_of[old] = -1
        was_exposed = self.player_exposed[p]
        self._discard_card(old, p)
        while True:
            g2 = self.deck.pop(0)
            seen = self.deck_seen.pop(0)
            cell = int(self.cell_of_guest[g2])
            if not self.tile_exposed[cell] or not self.deck:
                break
            self._discard_card(g2, p)
        self.ident[p] = g2
        self.holder_of[g2] = p
        self._new_identity(p)
        self.known_by[p] = seen & ~(1 << p)  # whoever saw that card knows who holds it now
        self.knows[:, p] = [bool(self.known_by[p] >> r & 1) for r in range(self.num_players)]
        if was_exposed:
            self.n_unexposed += 1
        self.player_exposed[p] = False
        if self.tile_exposed[cell]:
            self._exposed(p, p)
        # else: an exposed player who wrestles is unexposed again (their Stash is empty)

    # ================================================================ observations
    def _scratch(self, which: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """A scratch buffer with its piece views, made once per game (not copied by clone)."""
        cache = self.__dict__.get("_obs_cache")
        if cache is None:
            cache = self._obs_cache = {}
        if which not in cache:
            layout = self.observation_layout if which == "obs" else self.state_layout
            buf = np.zeros(layout.size, dtype=np.float32)
            cache[which] = (buf, layout.views(buf))
        return cache[which]

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

    def _write_numbers(self, src: _ObsSource, player: int) -> None:
        """Stashes, exposed players and the counts (rewritten only when they changed), and the
        observer's own total."""
        S, stash, player_exposed = src.buf, self.stash, self.player_exposed
        key = (*stash, *player_exposed, len(self.deck), self.lost_found, self.over)
        if key != src.nums_key:
            src.nums_key = key
            S[src.nums] = [
                *[w / (w + WALLET_SCALE) for w in stash],  # wallet_scale, inlined
                *player_exposed,
                len(self.deck) / self.num_tiles,
                wallet_scale(self.lost_found),
                self.over,
            ]
        S[src.own] = wallet_scale(self._total(player))

    def _write_decision(self, src: _ObsSource) -> None:
        """Whose turn it is and what is being decided (the one-hot pieces, absolute seats): the item
        offered or in use, the Dentist's asker, an item step's choices so far and its kind."""
        S, at = src.buf, src.at
        S[at["turn"] + self.turn] = 1.0
        decision = self.flow.frames[-1]
        kind = decision.kind
        S[at["decision"] + kind] = 1.0
        if kind == OFFER:  # the item offered: args (thief, Guest)
            S[at["ditem"] + decision.args[1]] = 1.0
        elif self.item_in_use >= 0:  # its steps, or a Move or a Dentist answer it asks for
            S[at["ditem"] + self.item_in_use] = 1.0
        if kind == DENTIST:  # who asked: args (target, asker)
            S[at["dseat"] + decision.args[1]] = 1.0
        elif kind == PICK:
            step: ItemStep = decision.args[1]
            for q in self.item_seats:
                S[at["dseat"] + q] = 1.0
            starts = src.plan.starts
            for piece, i in self._item_choice_hot(step):
                S[starts[piece] + i] = 1.0
            S[at["ileft"]] = step.left / MOST_REPEATS
            for g in self.item_cells:
                S[at["dcells"] + g] = 1.0
            if self.item_cells:
                src.dcells_set = True

    @staticmethod
    def _item_choice_hot(step: ItemStep) -> list[tuple[str, int]]:
        """(piece, index) of each 1 in an item step's one-hot `item_choice` pieces (absolute seats)."""
        entries = (
            ("item_choice", step.kind),
            ("item_choice_line", step.line),
            ("item_choice_tile", step.tile),
            ("item_choice_player", step.player),
        )
        return [(piece, i) for piece, i in entries if i >= 0]

    def _recall_knowledge(self, src: _ObsSource, player: int) -> None:
        """The observer's knowledge into the source: copied back from the last time it was written
        if the knowledge stamp has not moved since (nothing anyone knows changed), else written."""
        if src.kept_at[player] == self._stamp:
            src.knowledge[...] = src.kept_knowledge[player]
            return
        self._write_knowledge(src, player)
        src.kept_knowledge[player] = src.knowledge
        src.kept_at[player] = self._stamp

    def _write_knowledge(self, src: _ObsSource, player: int) -> None:
        """Identities, candidates, cards seen in the deck and Dentist answers, as `player` knows
        them, into the source (per Guest)."""
        S, at, t = src.buf, src.at, self.num_tiles
        src.zero.fill(0.0)
        ident = self.ident
        known = self._known_players(player)
        # Guests that cannot be anyone's unknown card: Marks, discards, exposed tiles, known cards
        public = src.public
        self.tile_exposed.take(self.cell_of_guest, 0, public, "wrap")
        public |= self.is_mark
        public |= self.is_discarded
        at_ident, at_cand = at["ident"], at["cand"]
        for q in known:
            g = ident[q]
            public[g] = True
            S[at_ident + q * t + g] = 1.0
        if any(self.deck_seen):  # cards I have seen in the deck (Astronaut / Mayor)
            bit, at_seen = 1 << player, at["seen"]
            for g, flags in zip(self.deck, self.deck_seen):
                if flags & bit:
                    public[g] = True
                    S[at_seen + g] = 1.0
        # candidates: what the public deductions and the Dentist answers given to `player` allow,
        # less the public Guests, written as 0/1 straight into the source
        allowed = self.public_candidates
        if self.dentist_records:  # (with none, every Dentist candidate is still True)
            allowed = np.logical_and(allowed, self.dentist_candidates[player], out=src.cand)
        cand = src.cand_f
        np.greater(allowed, public, out=cand)
        for q in known:  # a known card is its holder's only candidate
            cand[q].fill(0.0)
            S[at_cand + q * t + ident[q]] = 1.0
        if self.dentist_records:
            told = src.told
            epoch = self.epoch[player]
            for asker, target, ep, _line, _snap in self.dentist_records:
                if target == player and ep == epoch:
                    told[asker] = self.dentist_candidates[asker, player]

    def _known_players(self, player: int) -> list[int]:
        """The players whose card `player` knows: their own, the exposed, those shown by a Snitch;
        every one once the game is over."""
        if self.over:
            return list(range(self.num_players))
        player_exposed = self.player_exposed
        krow = self.knows[player].tolist()
        return [q for q, shown in enumerate(krow) if q == player or player_exposed[q] or shown]

    def _fill_public(self, v: dict) -> None:
        """Everything on the table, in absolute seats (the state tensor's public part)."""
        cg = self.guest_on
        v["grid"][self._arange_t, cg] = 1.0
        v["exposed_tiles"][:] = self.tile_exposed
        v["tile_wallets"][:] = self.wallets_on
        v["marks"][:] = self.is_mark[cg]
        v["discarded"][:] = self.is_discarded[cg]
        v["stashes"][:] = self.stash
        v["exposed_players"][:] = self.player_exposed
        v["knows"][:] = self.knows
        v["kept_items"][:] = self.kept
        for q, e in self._undoable_swaps():
            v["blocked_swaps"][q, e] = 1.0
        v["last_kinds"][:] = self.last_kind
        v["last_cells"][:] = self.last_guests[:, cg]
        v["last_seats"][:] = self.last_seats
        v["last_items"][:] = self.last_items
        v["counts"][:3] = (len(self.deck), self.lost_found, self.over)
        if not self.over:
            v["turn"][self.turn] = 1.0
            decision = self.flow.frames[-1]
            kind = decision.kind
            v["decision"][kind] = 1.0
            if kind == OFFER:
                v["decision_item"][decision.args[1]] = 1.0
            elif self.item_in_use >= 0:
                v["decision_item"][self.item_in_use] = 1.0
            if kind == DENTIST:
                v["decision_seats"][decision.args[1]] = 1.0
            elif kind == PICK:
                step: ItemStep = decision.args[1]
                for g in self.item_cells:
                    v["decision_cells"][self.cell_of_guest[g]] = 1.0
                for q in self.item_seats:
                    v["decision_seats"][q] = 1.0
                for piece, i in self._item_choice_hot(step):
                    v[piece][i] = 1.0
                v["item_choice_left"][0] = step.left / MOST_REPEATS

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

    def _unknown_players(self, player: int) -> list[int]:
        """Players whose card `player` does not know: not `player`, unexposed, never shown it."""
        bit = 1 << player
        n = self.num_players
        return [
            q for q in range(n) if q != player and not self.player_exposed[q] and not self.known_by[q] & bit
        ]

    def _could_hold(self, player: int, unknown: list[int]) -> dict[int, list[bool]]:
        """For each unknown player q, by Guest: whether, as far as `player` knows, q can hold it: its
        tile unexposed, every public deduction and every Dentist answer q gave `player` allow it,
        and q would not hold 7 Wallets with it (the game goes on)."""
        if not unknown:
            return {}
        cells = self.cell_of_guest
        room = WIN_WALLETS - np.array([self.stash[q] for q in unknown])
        ok = self.public_candidates[unknown] & self.dentist_candidates[player, unknown]
        ok &= ~self.tile_exposed[cells]
        ok &= self.wallets_on[cells] < room[:, None]
        return dict(zip(unknown, ok.tolist()))

    def _redraw_dentist_answers(self, player: int, rng: np.random.Generator) -> None:
        """The line of every Dentist answer `player` neither gave nor received is redrawn (the row
        or the column of the target's Guest, as it stood), and what the answers allow rebuilt."""
        if not self.dentist_records:
            return
        s = self.side
        records = []
        for asker, target, epoch, line, snap in self.dentist_records:
            if player not in (asker, target):
                where = int(np.flatnonzero(snap == self.ident[target])[0])
                line = where // s if rng.random() < 0.5 else s + where % s
            records.append((asker, target, epoch, line, snap))
        self.dentist_records = records
        cand = self.dentist_candidates
        cand[:] = True
        for asker, target, _epoch, line, snap in records:
            cand[asker, target, snap[~self.line_mask[line]]] = False

    # ================================================================ invariants and text
    def check_invariants(self) -> None:
        t, n = self.num_tiles, self.num_players
        total = int(self.wallets_on.sum()) + sum(self.stash) + self.lost_found
        assert total == self.initial_wallets + self.created, "Wallets created or lost"
        assert (self.wallets_on >= 0).all() and min(self.stash) >= 0 and self.lost_found >= 0
        assert (np.sort(self.guest_on) == self._arange_t).all()
        assert (self.cell_of_guest[self.guest_on] == self._arange_t).all()
        cards = self.ident + self.deck + self.marks + self.stolen + self.discard
        assert sorted(cards) == list(range(t)), "every Identity card is in exactly one place"
        assert len(self.deck) == len(self.deck_seen)
        assert len(self.marks) <= self.num_marks
        assert self.tile_exposed[self.cell_of_guest[self.discard]].all(), "a discarded card's tile is exposed"
        assert self.n_unexposed == n - sum(self.player_exposed)
        assert self.kept_any or not self.kept.any()
        assert self.cop.sum() <= COPS_MAX, "one Cop card: a Mark once, and once more by the Actor"
        assert self.items_any or not (self.last_seats.any() or self.last_items.any())
        for q in range(n):
            assert self.holder_of[self.ident[q]] == q
            assert self.player_exposed[q] == bool(self.tile_exposed[self._guest_cell(q)])
            if self.player_exposed[q]:
                assert self.stash[q] == 0, "an exposed player's Wallets are on their Guest"
            else:
                assert self.public_candidates[q, self.ident[q]], "a public deduction excludes the true Guest"
        for asker, target, epoch, _line, _snap in self.dentist_records:
            if epoch == self.epoch[target]:
                assert self.dentist_candidates[asker, target, self.ident[target]]
        if not self.over:
            assert self.flow.decision is not None, "a game going on waits for a decision"
            assert self.legal_action_mask().any()

    def guest_name(self, g: int) -> str:
        return GUESTS[g].name

    def _cell_name(self, c: int) -> str:
        return f"r{c // self.side}c{c % self.side}({GUESTS[self.guest_on[c]].name})"

    def action_to_string(self, action: int) -> str:
        a = int(action)
        _t, _n = self.num_tiles, self.num_players
        if a < self.OFF_STEAL:
            x, y = self.edges[a]
            return f"swap {self._cell_name(x)}<->{self._cell_name(y)}"
        if a < self.OFF_EXPOSE:
            return f"steal from {self._cell_name(a - self.OFF_STEAL)}"
        if a < self.OFF_SNITCH:
            return f"expose {self._cell_name(a - self.OFF_EXPOSE)}"
        if a < self.OFF_CELL:
            return f"snitch to seat +{a - self.OFF_SNITCH}"
        if a < self.OFF_LINE:
            return f"choose tile {self._cell_name(a - self.OFF_CELL)}"
        if a < self.OFF_SEAT:
            i = a - self.OFF_LINE
            return f"choose row {i}" if i < self.side else f"choose column {i - self.side}"
        if a < self.OFF_GUEST:
            return f"choose player seat +{a - self.OFF_SEAT}"
        if a < self.A_USE:
            return f"choose card {GUESTS[a - self.OFF_GUEST].name}"
        if a == self.A_USE:
            return "use the item"
        if a == self.A_PASS:
            return "pass / stop"
        return f"action {a} (out of range 0..{self.num_actions - 1})"

    def illegal_reason(self, action: int) -> str:
        decision = self.flow.decision
        if decision is None:
            return super().illegal_reason(action)
        kind, p = decision.kind, decision.player
        where = f"the current decision is '{DECISION_NAMES[kind]}'"
        a = int(action)
        if kind in (ACTION, MOVE1, MOVE2) and a < self.OFF_STEAL:
            return f"{where}; that swap would undo a swap of a player's latest Move (FAQ: no reversal)"
        steal = kind == ACTION or (kind == PICK and decision.args[1].block == B_STEAL)
        if steal and self.OFF_STEAL <= a < self.OFF_EXPOSE:
            return f"{where}; {self._steal_refusal(p, a - self.OFF_STEAL)}"
        if kind == ACTION and a < self.OFF_SNITCH:
            return f"{where}; you may expose only an unexposed tile in your row or column, not your own"
        if kind == ACTION and a < self.OFF_CELL:
            if self.player_exposed[p]:
                return f"{where}; only unexposed players may Snitch"
            return f"{where}; you may Snitch only to another unexposed player"
        if a == self.A_PASS:
            return f"{where}; this step is not optional"
        return f"{where}; this choice is not among the allowed ones for it"

    def action_groups(self) -> list[tuple | ActionGroup]:
        t, n, s = self.num_tiles, self.num_players, self.side
        return [
            (
                "swap",
                0,
                self.num_edges,
                "swap two orthogonally adjacent tiles (Move action, Soldier/Magician/Server moves)",
            ),
            ("steal", self.OFF_STEAL, t, "Steal action (or the Mechanic's steal) from a cell"),
            ("expose", self.OFF_EXPOSE, t, "Expose action on a cell"),
            ActionGroup(
                "snitch",
                self.OFF_SNITCH,
                n,
                "Snitch: show your card to the player at relative seat k (k >= 1)",
                seats=True,
            ),
            ("tile", self.OFF_CELL, t, "choose a cell (Snitch flip, item steps, Pilot swap)"),
            ("line", self.OFF_LINE, 2 * s, "choose a row (first) or a column (item steps, Dentist answer)"),
            ActionGroup(
                "player", self.OFF_SEAT, n, "choose the player at relative seat k (item steps)", seats=True
            ),
            ("card", self.OFF_GUEST, t, "choose a card by Guest (Actor: a discarded card; Judge: a Mark)"),
            ("use", self.A_USE, 1, "use the stolen Mark's item"),
            ("pass", self.A_PASS, 1, "decline the item / stop an 'up to' item / skip Pilot or Soldier"),
        ]

    def to_string(self, player: int | None = None) -> str:
        """The table as text: with `player`, only what that player may see (render.table_view)."""
        from .render import table_text

        return table_text(self, player)

    def render_rgb(self, player: int | None = None) -> np.ndarray:
        """The table as a picture, from the same view as `to_string(player)`."""
        from .render import table_picture

        return table_picture(self, player)


_END_ACTION = Do(Exposed._end_action)  # the clean-up closing every turn (one shared frame)
# decisions whose actions below OFF_STEAL are swaps (and whose other actions are passes or not swaps)
_SWAPS_ONLY = frozenset((Exposed._action, Exposed._first_swap, Exposed._second_swap))

# ================================================================ items, by name (data.py `Guest.item`)
# item -> its effect, effect(game, user, Guest): RULES.md's item table names these
ITEM_EFFECTS: dict[str, Callable[[Exposed, int, int], None]] = {
    # no marker
    "accountant": Exposed._item_accountant,
    "architect": Exposed._item_architect,
    "astronaut": Exposed._item_astronaut,
    "dentist": Exposed._item_dentist,
    "engineer": Exposed._item_engineer,
    "firefighter": Exposed._item_firefighter,
    "lawyer": Exposed._item_lawyer,
    "locksmith": Exposed._item_locksmith,
    "magician": Exposed._item_magician,
    "mayor": Exposed._item_mayor,
    "mechanic": Exposed._item_mechanic,
    "paramedic": Exposed._item_paramedic,
    "physicist": Exposed._item_physicist,
    "surgeon": Exposed._item_surgeon,
    "teacher": Exposed._item_teacher,
    "undertaker": Exposed._item_undertaker,
    # 3+
    "actor": Exposed._item_actor,
    "farmer": Exposed._item_farmer,
    "janitor": Exposed._item_janitor,
    "nanny": Exposed._item_nanny,
    "nurse": Exposed._item_nurse,
    "pilot": Exposed._item_pilot,
    "senator": Exposed._item_senator,
    "server": Exposed._item_server,
    "veterinarian": Exposed._item_veterinarian,
    # 5+
    "artist": Exposed._item_artist,
    "banker": Exposed._item_banker,
    "captain": Exposed._item_captain,
    "clown": Exposed._item_clown,
    "cop": Exposed._item_cop,
    "judge": Exposed._item_judge,
    "panhandler": Exposed._item_panhandler,
    "puppeteer": Exposed._item_puppeteer,
    "realtor": Exposed._item_realtor,
    "soldier": Exposed._item_soldier,
    "wrestler": Exposed._item_wrestler,
}
check_handlers(ITEM_EFFECTS, [guest.item for guest in GUESTS], "Exposed items")

# items that can lack a possible first step -> whether they have one, can_act(game, user, Guest); the
# others always act. Reading: an item that cannot act does nothing
ITEM_CAN_ACT: dict[str, Callable[[Exposed, int, int], bool]] = {
    "actor": Exposed._can_actor,
    "artist": Exposed._can_artist,
    "captain": Exposed._can_captain,
    "clown": Exposed._can_clown,
    "janitor": Exposed._can_janitor,
    "judge": Exposed._can_judge,
    "locksmith": Exposed._can_locksmith,
    "nanny": Exposed._any_wallet,
    "puppeteer": Exposed._any_wallet,
    "realtor": Exposed._can_realtor,
    "teacher": Exposed._any_wallet,
    "wrestler": Exposed._can_wrestler,
}
if ITEM_CAN_ACT.keys() - ITEM_EFFECTS.keys() or not all(map(callable, ITEM_CAN_ACT.values())):
    raise ValueError(f"Exposed item checks: unknown items or not functions in {ITEM_CAN_ACT}")

# the kinds of choice inside items (data.py ITEM_CHOICES, by (item, name)) -> the rule carrying each out
# (`ItemStep.then`): an item step finds its kind (the observation's `item_choice`) by its rule
ITEM_CHOICE_RULES: dict[tuple[str, str], Callable[..., None]] = {
    ("accountant", "destination"): Exposed._accountant_dest,
    ("accountant", "source"): Exposed._accountant_take,
    ("dentist", "player"): Exposed._dentist_target,
    ("engineer", "tile"): Exposed._engineer_flip,
    ("firefighter", "line"): Exposed._firefighter_line,
    ("firefighter", "place"): Exposed._firefighter_place,
    ("locksmith", "source"): Exposed._locksmith_take,
    ("mechanic", "steal"): Exposed._mechanic_steal,
    ("paramedic", "line"): Exposed._paramedic_line,
    ("physicist", "first"): Exposed._physicist_first,
    ("physicist", "second"): Exposed._physicist_second,
    ("teacher", "source"): Exposed._teacher_source,
    ("teacher", "destination"): Exposed._teacher_give,
    ("undertaker", "tile"): Exposed._undertaker_give,
    ("actor", "card"): Exposed._use_item,
    ("janitor", "tile"): Exposed._janitor_take,
    ("nanny", "tile"): Exposed._nanny_take,
    ("nurse", "first"): Exposed._nurse_first,
    ("nurse", "second"): Exposed._nurse_second,
    ("server", "player"): Exposed._server_target,
    ("veterinarian", "player"): Exposed._veterinarian_take,
    ("artist", "tile"): Exposed._artist_take,
    ("banker", "tile"): Exposed._banker_swap,
    ("captain", "player"): Exposed._captain_player,
    ("captain", "source"): Exposed._captain_give,
    ("clown", "first"): Exposed._clown_first,
    ("clown", "second"): Exposed._clown_second,
    ("cop", "player"): Exposed._cop_place,
    ("judge", "mark"): Exposed._judge_discard,
    ("puppeteer", "tile"): Exposed._puppeteer_take,
    ("realtor", "source"): Exposed._realtor_source,
    ("realtor", "destination"): Exposed._realtor_dest,
}
check_handlers(ITEM_CHOICE_RULES, [(c.item, c.name) for c in ITEM_CHOICES], "Exposed item choices")
_ITEM_CHOICE_OF = {ITEM_CHOICE_RULES[(c.item, c.name)]: i for i, c in enumerate(ITEM_CHOICES)}
if len(_ITEM_CHOICE_OF) != len(ITEM_CHOICES) or {c.item for c in ITEM_CHOICES} - ITEM_EFFECTS.keys():
    raise ValueError("Exposed item choices: two kinds of choice share one rule, or an item is unknown")
