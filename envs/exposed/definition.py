"""Exposed: what a player count fixes, built once and shared by every game of that count and by every
copy (`envs.core.Definition`, frozen): the grid's geometry, the Wallets the set-up lays out, the flat
action space's offsets, the observation and state layouts, the packed boolean tables' layout, the
frames of the common decisions and the observation's index tables (`observe._ObsPlan`).

`Exposed.definition(config)` is `definition(config.num_players)`: everything else in the configuration
changes only the rules' choices, read from `config`.
"""

from __future__ import annotations

from functools import cache
from math import prod

import numpy as np

from envs.core import Definition, Layout, PieceSpec
from envs.core.flow import Decide

from .actions import ActionRules
from .data import (
    COPS_MAX,
    CORNER_EXTRA,
    ITEM_CHOICES,
    MOST_REPEATS,
    START_WALLETS,
    WALLET_SCALE,
    WIN_WALLETS,
    grid_side,
    marks_in_play,
)
from .decisions import ACTION, KIND_NAMES, MOVE2, NUM_DECISIONS
from .movement import MovementRules
from .observe import _ObsPlan

# the boolean tables a game packs in one array, `_flags` (an observation copies them at once), each a
# view of it by this name: the table of exposed tiles, then the public record of each player's latest
# turn, Marks and discarded cards (`ExposedDefinition._flag_shapes`)
FLAG_TABLES = (
    "tile_exposed",
    "knows",
    "last_kind",
    "last_seats",
    "last_items",
    "is_mark",
    "is_discarded",
    "last_guests",
)


class ExposedDefinition(Definition):
    """What a player count fixes (see the module's docstring): `Game.__init__` installs these
    attributes on every game of that count, a copy shares them, a position leaves them out."""

    def __init__(self, n: int):
        self.num_players = n
        s = self.side = grid_side(n)
        t = self.num_tiles = s * s
        self.num_marks = marks_in_play(n)
        self._geometry()
        # the set-up's Wallets: 1 on each tile, a second on corners (`created` counts any made later)
        self.start_wallets = np.full(t, START_WALLETS, dtype=np.int64)
        self.start_wallets[self.corners] += CORNER_EXTRA
        self.initial_wallets = int(self.start_wallets.sum())
        # the tables a game starts with and replaces whole when they change (read-only: copies share
        # them): no item kept, no Dentist answer (everything allowed)
        self.no_kept = np.zeros((n, 3), dtype=np.int64)
        self.no_answers = np.ones((n, n, t), dtype=bool)
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
        self.freeze()

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

    def _common_frames(self) -> None:
        """The decisions made on almost every turn, built once per configuration (frames never
        change, so games share them): each seat's ACTION, each seat's second swap after each first."""
        n, edges = self.num_players, range(self.num_edges)
        self._action_frames = tuple(
            Decide(ACTION, p, ActionRules._action_mask, ActionRules._action, (p,)) for p in range(n)
        )
        self._second_swap_frames = tuple(
            tuple(
                Decide(MOVE2, p, MovementRules._swaps_mask, MovementRules._second_swap, (p, e)) for e in edges
            )
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
        self._flag_layout = tuple(flag_layout)  # (name, start, end, shape) of each packed table
        # how a game binds each table to its `_flags`: (name, its slice, the shape of a 2-D table or None)
        self._flag_views = tuple(
            (name, slice(start, end), shape if len(shape) > 1 else None)
            for name, start, end, shape in flag_layout
        )
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
        """The boolean tables packed (in FLAG_TABLES' order) in `_flags`; `_ObsPlan` mirrors the order."""
        n, t = self.num_players, self.num_tiles
        shapes = {
            "tile_exposed": (t,),  # exposed side up, by cell
            "knows": (n, n),  # [a, b]: a has been shown b's Identity card
            "last_kind": (n, len(KIND_NAMES)),
            "last_seats": (n, n),
            "last_items": (n, t),
            "is_mark": (t,),  # Mark in play, by Guest
            "is_discarded": (t,),  # card discarded, by Guest
            "last_guests": (n, t),  # tiles touched (shown at their current cells)
        }
        return tuple((name, shapes[name]) for name in FLAG_TABLES)


@cache
def definition(n: int) -> ExposedDefinition:
    """The shared definition of the n-player game (everything else in the configuration changes
    only the rules' choices, read from `config`)."""
    return ExposedDefinition(n)
