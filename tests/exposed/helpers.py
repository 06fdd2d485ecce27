"""Set-up helpers for Exposed tests: build a game, then arrange tiles, identities and Marks."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import numpy as np

from envs.exposed.data import GUEST_INDEX
from envs.exposed.rules import ACTION, Exposed


def new_game(n: int = 6, seed: int = 0, **options) -> Exposed:
    return Exposed(rng=np.random.default_rng(seed), num_players=n, **options)


def gid(name: str) -> int:
    return GUEST_INDEX[name]


def cell_of(g: Exposed, name: str) -> int:
    return int(g.cell_of_guest[gid(name)])


def at(g: Exposed, r: int, c: int) -> int:
    return r * g.side + c


def put(g: Exposed, name: str, cell: int) -> None:
    """Move the tile of Guest `name` to `cell` (swapping with whatever is there)."""
    g._swap_cells(cell_of(g, name), cell)
    g._mask_cache = None
    g.touch()  # what players know may have changed


def _where(g: Exposed, x: int):
    for where in (g.ident, g.deck, g.marks, g.discard):
        if x in where:
            return where, where.index(x)
    raise AssertionError(x)


def swap_cards(g: Exposed, x: int, y: int) -> None:
    """Exchange the places of cards x and y (identity / deck / Marks / discard), keeping flags right."""
    if x == y:
        return
    (px, ix), (py, iy) = _where(g, x), _where(g, y)
    px[ix], py[iy] = y, x
    for card in (x, y):
        g.is_mark[card] = False
        g.is_discarded[card] = False
    for card, place in ((y, px), (x, py)):
        if place is g.marks:
            g.is_mark[card] = True
        elif place is g.discard:
            g.is_discarded[card] = True
    holder = [-1] * g.num_tiles
    for q, card in enumerate(g.ident):
        holder[card] = q
    g.holder_of = tuple(holder)
    g.player_exposed = tuple(bool(g.tile_exposed[g.cell_of_guest[card]]) for card in g.ident)
    g.n_unexposed = g.num_players - sum(g.player_exposed)
    g._mask_cache = None
    g.touch()  # what players know may have changed


def set_identity(g: Exposed, p: int, name: str) -> None:
    """Give player p the Identity card `name` (swapping it with wherever that card is)."""
    swap_cards(g, g.ident[p], gid(name))


_MADE_MARKS: WeakKeyDictionary = WeakKeyDictionary()  # the Marks each game's test made (not its state)


def make_mark(g: Exposed, name: str) -> None:
    """Make `name` a Mark in play (it trades places with a Mark this test did not make)."""
    x = gid(name)
    made = _MADE_MARKS.setdefault(g, [])
    if x not in g.marks:
        swap_cards(g, x, next(m for m in g.marks if m not in made))
    made.append(x)


def board(g: Exposed, players: dict[int, tuple[str, int]], marks=()) -> None:
    """Arrange: players {seat: (Guest, cell)} and Marks (names), at the current player's ACTION."""
    for p, (name, _cell) in players.items():
        set_identity(g, p, name)
    for name in marks:
        make_mark(g, name)
    for _p, (name, cell) in players.items():
        put(g, name, cell)


def do(g: Exposed, action: int) -> None:
    g.apply_action(int(action))


def steal_mark(g: Exposed, name: str, use: bool = True) -> int:
    """The current player (at ACTION) steals from Mark `name` placed next to their tile; returns p."""
    p = g.current_player()
    assert g.decision_kind == ACTION
    make_mark(g, name)
    own = g._guest_cell(p)
    if cell_of(g, name) not in np.flatnonzero(g.surround[own]):
        target = int(np.flatnonzero(g.surround[own])[0])
        put(g, name, target)
    c = cell_of(g, name)
    if g.wallets_on[c] == 0:
        g.wallets_on[c] = 1
        g.created += 1  # Wallets put on the table by hand
    do(g, g.OFF_STEAL + c)
    if use is not None:
        do(g, g.A_USE if use else g.A_PASS)
    return p


def seat_action(g: Exposed, p: int, q: int) -> int:
    """The 'choose player' action of decider p for absolute seat q."""
    return g.OFF_SEAT + (q - p) % g.num_players


def legal_cells(g: Exposed) -> set[int]:
    m = g.legal_action_mask()
    return {int(c) for c in np.flatnonzero(m[g.OFF_CELL : g.OFF_CELL + g.num_tiles])}


def rebalance(g: Exposed) -> None:
    """After Wallets were put on the table or taken off by hand: count the difference as created (the
    set-up's Wallets are the definition's), so that the conservation law holds."""
    g.created = int(g.wallets_on.sum()) + sum(g.stash) + g.lost_found - g.initial_wallets


def wallets_total(g: Exposed) -> int:
    return int(g.wallets_on.sum()) + sum(g.stash) + g.lost_found - g.created


def start(n: int = 6, seed: int = 0, me: str = "Mayor", **options):
    """A game at the current player's ACTION, that player holding `me` at cell (1, 1)."""
    g = new_game(n, seed, **options)
    p = g.current_player()
    set_identity(g, p, me)
    put(g, me, at(g, 1, 1))
    return g, p


def plain(g: Exposed, cell: int) -> None:
    """Make the tile at `cell` a plain one: no player's Guest, no Mark, unexposed."""
    x = int(g.guest_on[cell])
    if g.holder_of[x] < 0 and not g.is_mark[x] and not g.tile_exposed[cell]:
        return
    for y in g.deck:
        if not g.tile_exposed[g.cell_of_guest[y]]:
            g._swap_cells(cell, int(g.cell_of_guest[y]))
            g._mask_cache = None
            g.touch()  # what players know may have changed
            return
    raise AssertionError("no plain tile left")


def flat_obs(g: Exposed, player: int) -> dict[str, np.ndarray]:
    """`observation_dict(player)` with every grid (rows x columns) piece flattened to cells."""
    out = {}
    for piece, view in zip(g.observation_layout, g.observation_dict(player).values()):
        if piece.axes[-2:] == ("row", "col"):
            view = view.reshape(view.shape[:-2] + (g.num_tiles,))
        out[piece.name] = view
    return out
