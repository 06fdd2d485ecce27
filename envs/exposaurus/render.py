"""What an Exposaurus table looks like to a person: the `ansi` text and the rgb_array picture.

Everything on an Exposaurus table is open but the face-down stock, so a seat's view shows the whole
public table: the display (with scientists and claim discs), every museum, scientists, gems, the
paleontologist and the claim disc. Only the whole-table view also lists the stock's order (the next
tiles to be turned up), which no player may see.
"""

from __future__ import annotations

import numpy as np

from envs.core.render import Canvas, font, view_title

from .data import (
    DIE,
    EDGE_COLOURS,
    EDGE_NAMES,
    FOSSIL_COST,
    KINDS,
    M_DISC,
    M_NONE,
    M_SCIENTIST,
    OVER,
    PHASE_NAMES,
    SIDE,
    TILE_COST,
    TILE_EDGES,
    TILE_KIND,
    TILE_START,
    YELLOW_GEM_TILE,
    tile_name,
)

TILE = 64
GAP = 14
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
KIND_LABEL = ("egg", "skull", "skeleton", "bone", "claw", "footprint", "gem tile", "yellow gem")
EDGE_FILL = (None, (210, 40, 40), (40, 160, 60), (50, 90, 210), (240, 200, 20))
SEAT_FILL = ((235, 110, 40), (60, 170, 240), (190, 100, 220), (245, 245, 245))
SEAT_NAMES = ("orange", "light blue", "purple", "white")
INK = (20, 20, 20)
WHITE = (245, 245, 245)
DIM = (190, 205, 195)
HIGHLIGHT = (255, 230, 90)
PANEL = (36, 84, 60)
DISC_TEXT = ("unused", "on a display tile", "spent")
EDGES_HELP = "Edges [N E S W]: R red, G green, B blue, Y yellow semicircle, - none."


def _you(p: int, player: int | None) -> str:
    return f"player {p}" + (" (you)" if p == player else "")


def _status(game, player: int | None) -> str:

    if game.phase == OVER:
        scores = ", ".join(f"player {p} {s}" for p, s in enumerate(game.scores()))
        return f"Game over. Winners: {', '.join(_you(p, player) for p in game.winners)} (scores {scores})"
    line = f"To move: {_you(game.player, player)}, {PHASE_NAMES[game.phase]}"
    if game.phase == DIE:
        line += f" (the die shows {game.die_value})"
    if game.yellow:
        line += f" ({game.yellow} gem(s) of choice to take)"
    return line


def _header(game) -> str:
    s = game.supply
    return (
        f"Exposaurus: {game.num_players} players, die variant {'on' if game.die_variant else 'off'}; "
        f"stock {len(game.stock)} tiles face down; gem supply red {s[0]}, green {s[1]}, blue {s[2]}"
    )


def _notes(game, player: int | None) -> list[str]:
    lines = []
    if game.pending >= 0:
        lines.append(f"Being placed: {tile_name(game.pending)} (cost {TILE_COST[game.pending]})")
    if game.end_triggered and game.final_left > 0:
        lines.append(f"Final round: {game.final_left} move(s) left")
    if player is None and game.stock:
        lines.append(
            "Stock, next tiles first (hidden from the players): "
            + ", ".join(tile_name(t) for t in game.stock[::-1][:8])
        )
    return lines


def _marker_text(game, t: int) -> str:

    if game.marker[t] == M_NONE:
        return ""
    what = "claim disc" if game.marker[t] == M_DISC else "scientist"
    return f"{what} of player {game.marker_owner[t]}"


def _seat_lines(game, p: int, player: int | None) -> list[str]:
    g = game.gems[p]
    return [
        f"scientists: base camp {game.camp[p]}, on the museum tile {game.museum_sci[p]}, "
        f"on display tiles {game.field_sci[p]}, national museum {game.national[p]}",
        f"gems: red {g[0]}, green {g[1]}, blue {g[2]}; paleontologist {'unused' if game.paleo[p] else 'used'}; "
        f"claim disc {DISC_TEXT[game.disc[p]]}",
        f"{len(game.tiles_of[p])} museum tiles; score {game.score(p)} if the game ended now",
    ]


# ===== the ansi text ================================================================================
def text(game, player: int | None) -> str:
    lines = [view_title(player), _header(game), _status(game, player)] + _notes(game, player)
    lines.append(f"Display ({len(game.display)} tiles):" if game.display else "Display: empty")
    for t in game.display:
        on = _marker_text(game, t)
        lines.append(f"  {tile_name(t)} cost {TILE_COST[t]}" + (f", {on} on it" if on else ""))
    for p in range(game.num_players):
        lines.append(f"{_you(p, player)}:")
        lines += ["  " + line for line in _seat_lines(game, p, player)]
        lines += museum_lines(game, p)
    lines.append("Legend: " + EDGES_HELP + " #n: starting tile n; t<id>: the tile's number in actions.")
    return "\n".join(lines)


def museum_lines(game, p: int) -> list[str]:
    """The museum as a grid of cells `kind NESW` with row and column numbers (the place actions')."""

    rmin, rmax, cmin, cmax = game.box[p]
    width = 16
    cols = "".join(f"{'col ' + str(c):<{width}}" for c in range(cmin, cmax + 1))
    out = [("  museum  " + cols).rstrip()]
    for r in range(rmin, rmax + 1):
        row = []
        for c in range(cmin, cmax + 1):
            cell = r * SIDE + c
            t = game.grid[p][cell]
            if t < 0:
                row.append("." + " " * (width - 1))
            else:
                edges = "".join(EDGE_COLOURS[x] for x in game.edges_at(p, cell))
                row.append(f"{KINDS[TILE_KIND[t]]} {edges}".ljust(width))
        out.append(f"  row {r}   " + "".join(row).rstrip())
    return out


# ===== the picture ==================================================================================


class _Pen:
    """Text in a few sizes; it keeps every text's box and every tile's box (the layout tests read them)."""

    def __init__(self, canvas: Canvas, record: bool = False):
        self.c = canvas
        self.record = record
        self.fonts = {k: font(k) for k in (11, 12, 14, 17)}
        self.texts: list[tuple[tuple[int, int, int, int], str, int]] = []  # box, text, tile it labels
        self.tiles: list[tuple[int, int, int, int]] = []
        self.on_tile = -1  # the tile whose label is being written (-1: none)

    def text(self, x, y, s: str, fill=WHITE, size: int = 12, anchor: str = "la") -> None:
        font = self.fonts[size]
        self.c.draw.text((x, y), s, fill=fill, font=font, anchor=anchor)
        if self.record:
            self.texts.append((self.c.draw.textbbox((x, y), s, font=font, anchor=anchor), s, self.on_tile))

    def width(self, s: str, size: int = 12) -> int:
        return int(self.fonts[size].getlength(s))


def _semicircle(canvas: Canvas, x: int, y: int, side: int, colour: int) -> None:
    """A half disc on the inside of the tile's side (N E S W), so the label in the middle stays clear."""
    r, half = 10, TILE // 2
    centre = ((x + half, y), (x + TILE - 1, y + half), (x + half, y + TILE - 1), (x, y + half))[side]
    start = (0, 90, 180, 270)[side]  # degrees clockwise from east: the half facing inwards
    cx, cy = centre
    canvas.draw.pieslice(
        [cx - r, cy - r, cx + r, cy + r], start, start + 180, fill=EDGE_FILL[colour], outline=INK
    )


def _tile(canvas: Canvas, pen: _Pen, x: int, y: int, t: int, edges) -> None:
    kind = TILE_KIND[t]
    canvas.box(x, y, TILE, TILE, KIND_FILL[kind], outline=INK)
    pen.tiles.append((x, y, x + TILE - 1, y + TILE - 1))
    pen.on_tile = len(pen.tiles) - 1
    for side, colour in enumerate(edges):
        if colour:
            _semicircle(canvas, x, y, side, colour)
    if kind == YELLOW_GEM_TILE:
        canvas.circle(x + TILE // 2, y + 50, 6, EDGE_FILL[4], outline=INK)
    pen.text(x + TILE // 2, y + 14, KIND_LABEL[kind], fill=INK, size=11, anchor="ma")
    cost = f"{TILE_COST[t]}" + (f"  #{TILE_START[t]}" if TILE_START[t] else "")
    pen.text(x + TILE // 2, y + 29, cost, fill=INK, size=12, anchor="ma")
    pen.on_tile = -1


def _marker(canvas: Canvas, game, x: int, y: int, t: int) -> None:

    if game.marker[t] == M_SCIENTIST:
        canvas.box(x, y, 12, 12, SEAT_FILL[game.marker_owner[t]], outline=INK)
    elif game.marker[t] == M_DISC:
        canvas.circle(x + 6, y + 6, 7, SEAT_FILL[game.marker_owner[t]], outline=INK)


MUSEUM_W = 4 * (TILE + 2) + 40
PANEL_H = 4 * (TILE + 2) + 40 + 7 * 16


def draw(game, player: int | None = None) -> np.ndarray:
    return draw_with_layout(game, player, record=False)[0]


def draw_with_layout(game, player: int | None = None, record: bool = True) -> tuple[np.ndarray, _Pen]:
    """The picture and the pen that drew it (its text and tile boxes)."""

    n = game.num_players
    width = max(n * (MUSEUM_W + 12) + 12, 900)
    per_row = (width - 24) // (TILE + GAP)
    display = list(game.display)
    disp_rows = max(2, -(-len(display) // per_row))  # room kept: the size rarely changes in a game
    notes = _notes(game, player)
    top = 70 + 16 * 3  # room for every note (being placed, final round, the stock)
    museum_top = top + 22 + disp_rows * (TILE + 40) + 8
    height = museum_top + PANEL_H + 96
    canvas = Canvas(width, height)
    pen = _Pen(canvas, record)
    pen.text(12, 8, view_title(player), fill=HIGHLIGHT, size=17)
    pen.text(12, 32, _header(game), size=14)
    pen.text(12, 50, _status(game, player), fill=HIGHLIGHT, size=14)
    for i, line in enumerate(notes):
        pen.text(12, 70 + 16 * i, line, fill=DIM, size=12)
    if game.pending >= 0:  # the tile being placed, beside its note
        _tile(canvas, pen, width - TILE - 16, 8, game.pending, _edges(game.pending))
    pen.text(
        12,
        top,
        f"Display ({len(display)} tiles; below each: its id, and whose scientist or claim disc lies on it)",
        size=14,
    )
    for i, t in enumerate(display):
        x = 12 + (i % per_row) * (TILE + GAP)
        y = top + 22 + (i // per_row) * (TILE + 40)
        _tile(canvas, pen, x, y, t, _edges(t))
        pen.text(x, y + TILE + 3, f"t{t}", size=12)
        if game.marker[t]:
            _marker(canvas, game, x, y + TILE + 20, t)
            pen.text(x + 17, y + TILE + 19, f"player {game.marker_owner[t]}", size=11)
    for p in range(n):
        _museum(canvas, pen, game, p, 12 + p * (MUSEUM_W + 12), museum_top, player, SIDE, OVER)
    _legend(canvas, pen, height - 90)
    return canvas.to_array(), pen


def _museum(canvas, pen, game, p, ox, oy, player, SIDE, OVER) -> None:
    moving = game.phase != OVER and game.player == p
    canvas.box(
        ox,
        oy,
        MUSEUM_W,
        PANEL_H,
        PANEL,
        outline=HIGHLIGHT if moving else SEAT_FILL[p],
        width=3 if moving else 2,
    )
    canvas.box(ox + 8, oy + 7, 12, 12, SEAT_FILL[p], outline=INK)
    title = f"{_you(p, player)}: museum, {len(game.tiles_of[p])} tiles"
    pen.text(ox + 26, oy + 5, title, size=14)
    rmin, rmax, cmin, cmax = game.box[p]
    gx, gy = ox + 34, oy + 40
    for c in range(cmin, cmax + 1):
        pen.text(
            gx + (c - cmin) * (TILE + 2) + TILE // 2, gy - 14, f"col {c}", fill=DIM, size=11, anchor="ma"
        )
    for r in range(rmin, rmax + 1):
        pen.text(gx - 4, gy + (r - rmin) * (TILE + 2) + TILE // 2, f"r{r}", fill=DIM, size=11, anchor="rm")
    for cell in game.tiles_of[p]:
        r, c = divmod(cell, SIDE)
        _tile(
            canvas,
            pen,
            gx + (c - cmin) * (TILE + 2),
            gy + (r - rmin) * (TILE + 2),
            game.grid[p][cell],
            game.edges_at(p, cell),
        )
    y = gy + 4 * (TILE + 2) + 4
    g = game.gems[p]
    x = ox + 10
    for colour in range(3):
        canvas.circle(x + 6, y + 7, 6, EDGE_FILL[colour + 1], outline=INK)
        pen.text(x + 16, y, f"{EDGE_NAMES[colour + 1]} {g[colour]}", size=12)
        x += 80
    y += 18
    lines = (
        f"base camp {game.camp[p]}   museum tile {game.museum_sci[p]}",
        f"on display tiles {game.field_sci[p]}   national museum {game.national[p]}",
        f"paleontologist {'unused' if game.paleo[p] else 'used'}",
        f"claim disc {DISC_TEXT[game.disc[p]]}",
        f"score {game.score(p)} if the game ended now",
    )
    for i, line in enumerate(lines):
        pen.text(ox + 10, y + 16 * i, line, size=12)


def _legend(canvas, pen, y: int) -> None:
    canvas.box(0, y - 6, canvas.image.width, 96, fill=(20, 60, 40), outline=None)
    x = 12
    for colour in (1, 2, 3, 4):
        canvas.draw.pieslice([x, y - 2, x + 20, y + 18], 180, 360, fill=EDGE_FILL[colour], outline=INK)
        label = f"{EDGE_NAMES[colour]} semicircle" + (" (gem of choice)" if colour == 4 else "")
        pen.text(x + 26, y, label, size=12)
        x += 40 + pen.width(label)
    pen.text(x, y, "two halves of one colour joined: a gem", fill=DIM, size=12)
    y += 22
    x = 12
    canvas.box(x, y, 12, 12, WHITE, outline=INK)
    pen.text(x + 18, y, "scientist (owner's colour)", size=12)
    x += 40 + pen.width("scientist (owner's colour)")
    canvas.circle(x + 6, y + 6, 7, WHITE, outline=INK)
    pen.text(x + 18, y, "claim disc", size=12)
    x += 40 + pen.width("claim disc")
    for p, colour in enumerate(SEAT_FILL):
        canvas.box(x, y, 12, 12, colour, outline=INK)
        pen.text(x + 18, y, f"player {p}", size=12)
        x += 30 + pen.width(f"player {p}")
    canvas.box(x, y, 12, 12, PANEL, outline=HIGHLIGHT, width=2)
    pen.text(x + 18, y, "to move", size=12)
    y += 22
    costs = ", ".join(f"{kind} {cost}" for kind, cost in FOSSIL_COST.items())
    pen.text(
        12,
        y,
        f"Tile: fossil, then its cost in scientists ({costs}; gem tile 2, yellow gem 3); #n: starting tile n",
        size=12,
    )
    pen.text(12, y + 18, "Museum cells: row r / col c as the place actions number them.", fill=DIM, size=12)


def _edges(t: int):
    return TILE_EDGES[t]
