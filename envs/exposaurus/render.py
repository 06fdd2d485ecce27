"""The rgb_array picture of Exposaurus: the display (with scientists and claim discs) and every museum."""

from __future__ import annotations

import numpy as np

from envs.core.render import Canvas

from .data import KINDS, TILE_COST, TILE_KIND, TILE_START

TILE = 44
GAP = 4
KIND_FILL = (
    (236, 226, 198),  # egg
    (214, 200, 170),  # skull
    (196, 180, 150),  # skeleton
    (176, 160, 130),  # bone
    (156, 140, 112),  # claw
    (136, 120, 96),  # footprint
    (210, 210, 230),  # gem tile
    (240, 236, 170),  # yellow gem tile
)
EDGE_FILL = (None, (210, 40, 40), (40, 160, 60), (50, 90, 210), (240, 200, 20))
GEM_FILL = EDGE_FILL[1:4]
SEAT_FILL = ((230, 90, 40), (60, 140, 230), (150, 70, 190), (240, 240, 240))
INK = (20, 20, 20)


def _tile(canvas: Canvas, x: int, y: int, t: int, edges) -> None:
    canvas.box(x, y, TILE, TILE, KIND_FILL[TILE_KIND[t]], outline=INK)
    half, r = TILE // 2, 7
    spots = ((x + half, y), (x + TILE - 1, y + half), (x + half, y + TILE - 1), (x, y + half))
    for (cx, cy), colour in zip(spots, edges):
        if colour:
            canvas.draw.pieslice([cx - r, cy - r, cx + r, cy + r], 0, 360, fill=EDGE_FILL[colour])
    if TILE_KIND[t] == 7:
        canvas.circle(x + half, y + half, 10, EDGE_FILL[4], outline=INK)
    label = KINDS[TILE_KIND[t]][:4]
    canvas.text(x + 6, y + 10, label, fill=INK)
    canvas.text(x + 6, y + 24, f"{TILE_COST[t]}" + (f" #{TILE_START[t]}" if TILE_START[t] else ""), fill=INK)


def draw(game) -> np.ndarray:
    from .rules import DISC_UNUSED, M_DISC, M_SCIENTIST, PHASE_NAMES, SIDE

    n = game.num_players
    display = list(game.display) + ([game.pending] if game.pending >= 0 else [])
    per_row = 12
    disp_rows = max(1, (len(display) + per_row - 1) // per_row)
    museum_w = 4 * (TILE + 2) + 16
    width = max(per_row * (TILE + GAP) + 24, n * (museum_w + 8) + 16)
    museum_top = 40 + disp_rows * (TILE + GAP) + 16
    height = museum_top + 4 * (TILE + 2) + 124
    canvas = Canvas(width, height)
    phase = PHASE_NAMES[game.phase]
    head = (
        f"Exposaurus  stock {len(game.stock)}  gems R{game.supply[0]} G{game.supply[1]} B{game.supply[2]}  "
    )
    head += f"player {game.player}: {phase}" if game.phase < 5 else f"over: winners {game.winners}"
    if game.phase == 0:
        head += f" (rolled {game.die_value})"
    canvas.text(8, 6, head)
    canvas.text(8, 22, "display:" + ("  (last: being placed)" if game.pending >= 0 else ""))
    for i, t in enumerate(display):
        x = 12 + (i % per_row) * (TILE + GAP)
        y = 36 + (i // per_row) * (TILE + GAP)
        _tile(canvas, x, y, t, [e for e in _edges(t)])
        if game.marker[t] == M_SCIENTIST:
            canvas.box(x + TILE - 14, y + TILE - 14, 10, 10, SEAT_FILL[game.marker_owner[t]], outline=INK)
        elif game.marker[t] == M_DISC:
            canvas.circle(x + TILE - 10, y + TILE - 10, 7, SEAT_FILL[game.marker_owner[t]], outline=INK)
    for p in range(n):
        ox = 12 + p * (museum_w + 8)
        canvas.box(
            ox - 4, museum_top - 18, museum_w, 4 * (TILE + 2) + 104, (40, 110, 76), outline=SEAT_FILL[p]
        )
        canvas.text(ox, museum_top - 14, f"P{p} museum ({len(game.tiles_of[p])} tiles)")
        rmin, _rmax, cmin, _cmax = game.box[p]
        for cell in game.tiles_of[p]:
            r, c = divmod(cell, SIDE)
            x = ox + (c - cmin) * (TILE + 2)
            y = museum_top + (r - rmin) * (TILE + 2)
            _tile(canvas, x, y, game.grid[p][cell], game.cell_edges[p][cell])
        y = museum_top + 4 * (TILE + 2) + 6
        for c in range(3):
            for k in range(game.gems[p][c]):
                canvas.circle(ox + 6 + k * 9, y + 6 + 14 * c, 4, GEM_FILL[c], outline=INK)
        y += 44
        canvas.text(ox, y, f"camp {game.camp[p]}  museum {game.museum_sci[p]}  out {game.field_sci[p]}")
        canvas.text(ox, y + 14, f"national {game.national[p]}  score {game.score(p)}")
        tools = ("paleo " if game.paleo[p] else "") + ("disc" if game.disc[p] == DISC_UNUSED else "")
        canvas.text(ox, y + 28, tools or "-")
    return canvas.to_array()


def _edges(t: int):
    from .data import TILE_EDGES

    return TILE_EDGES[t]
