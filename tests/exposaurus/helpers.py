"""Set up Exposaurus situations for rule tests: museums, display, markers, camps, whose move."""

from __future__ import annotations

import numpy as np

from envs.core.flow import TurnFlow
from envs.exposaurus.data import KINDS, NUM_TILES, TILE_KIND
from envs.exposaurus.rules import (
    CELLS,
    CENTRE,
    DIE,
    DISC_ON_TILE,
    END_MOVE,
    EXPEDITION,
    M_DISC,
    M_NONE,
    M_SCIENTIST,
    OFFER_RECRUITMENT,
    SIDE,
    Exposaurus,
)


def cell(r: int, c: int) -> int:
    """Museum cell by row/column offset from the starting tile (which is at 0, 0)."""
    return CENTRE + r * SIDE + c


def tiles_of_kind(kind: str) -> list[int]:
    return [t for t in range(NUM_TILES) if KINDS[TILE_KIND[t]] == kind]


def new_game(num_players: int = 2, die: bool = False, seed: int = 0, **options) -> Exposaurus:
    return Exposaurus(rng=np.random.default_rng(seed), num_players=num_players, die=die, **options)


def arrange(
    game: Exposaurus,
    museums: dict[int, list[tuple[int, int, int]]] | None = None,
    display: list[int] = (),
    markers: dict[int, tuple[int, int]] | None = None,
    player: int = 0,
) -> Exposaurus:
    """Lay out the table: museums {seat: [(tile, cell, rotation), ...]} (the first tile of each is
    placed first), display tiles, markers {tile: (M_SCIENTIST or M_DISC, owner)}; every other tile
    goes back to the stock (in id order, top = last). Scientists on tiles come out of the camps.
    Seats not given keep no tiles at all unless listed; then it is `player`'s expedition."""
    n = game.num_players
    museums = museums or {}
    markers = markers or {}
    grid = [[-1] * CELLS for _ in range(n)]
    rotation = [[0] * CELLS for _ in range(n)]
    tiles_of = [[] for _ in range(n)]
    game.marker = [M_NONE] * NUM_TILES
    game.marker_owner = [-1] * NUM_TILES
    game.pending = -1
    used = set()
    for p, placed in museums.items():
        for t, c, rot in placed:
            assert t not in used
            used.add(t)
            grid[p][c] = t
            rotation[p][c] = rot
            tiles_of[p].append(c)
    game.grid = [tuple(row) for row in grid]
    game.rotation = [tuple(row) for row in rotation]
    game.tiles_of = [tuple(cells) for cells in tiles_of]
    game.display = list(display)
    for t in display:
        assert t not in used
        used.add(t)
    game.stock = [t for t in range(NUM_TILES) if t not in used]
    for p in range(n):
        game.field_sci[p] = 0
        if game.disc[p] == DISC_ON_TILE:
            game.disc[p] = 0
    for t, (kind, owner) in markers.items():
        game.marker[t] = kind
        game.marker_owner[t] = owner
        if kind == M_SCIENTIST:
            game.field_sci[owner] += 1
        elif kind == M_DISC:
            game.disc[owner] = DISC_ON_TILE
    for p in range(n):
        game.camp[p] = 10 - game.museum_sci[p] - game.field_sci[p] - game.national[p]
    game.player = player
    game.flow = TurnFlow([END_MOVE, game._decisions[player][EXPEDITION]])
    game.discoveries = 0
    game.acted = False
    game.yellow = 0
    return sync(game)


def sync(game: Exposaurus) -> Exposaurus:
    """After editing the engine's fields: the camp holds the scientists not placed elsewhere; rebuild
    the caches the state determines (the game's DERIVED), check everything."""
    for p in range(game.num_players):
        game.camp[p] = 10 - game.museum_sci[p] - game.field_sci[p] - game.national[p]
    game._rebuild()  # where each tile is, museum boxes, groups, unseen tiles, the public vector
    game._mask_cache = None
    game.check_invariants()
    return game


def start_move(game: Exposaurus) -> Exposaurus:
    """The current player's move starts afresh (die roll, recruitment offer), up to its first decision."""
    game.flow.clear()
    game._start_move()
    game.flow.run(game)
    return sync(game)


def waiting(game: Exposaurus, kind: int) -> Exposaurus:
    """The current player's decision of this kind waits on top of the flow (after a die decision,
    the recruitment offer follows as in a move)."""
    if kind == DIE:
        game.flow.frames.append(OFFER_RECRUITMENT)
    game.flow.frames.append(game._decisions[game.player][kind])
    return sync(game)


def legal(game: Exposaurus) -> set[int]:
    return {int(a) for a in np.flatnonzero(game.legal_action_mask())}
