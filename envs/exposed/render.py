"""The rgb_array picture of an Exposed table: the grid of Guest tiles (blue unexposed, red exposed),
Wallets on each tile, Marks outlined in gold, and a side panel with Stashes, Marks and the deck."""

from __future__ import annotations

import numpy as np

from envs.core.render import Canvas

from .data import GUESTS

CELL = 64
UNEXPOSED = (52, 96, 170)
EXPOSED = (176, 64, 56)
WALLET = (235, 200, 70)
MARK = (255, 215, 0)
PANEL = 220


def render_table(game) -> np.ndarray:
    s = game.side
    width, height = 16 + s * CELL + PANEL, max(16 + s * CELL, 40 + 14 * (game.num_players + 6))
    canvas = Canvas(width, height)
    for c in range(game.num_tiles):
        g = int(game.c_guest[c])
        x, y = 8 + (c % s) * CELL, 8 + (c // s) * CELL
        mark = bool(game.g_mark[g])
        canvas.box(
            x,
            y,
            CELL - 4,
            CELL - 4,
            EXPOSED if game.c_exp[c] else UNEXPOSED,
            outline=MARK if mark else (20, 20, 20),
            width=3 if mark else 1,
        )
        canvas.text(x + 4, y + 4, GUESTS[g].name[:9])
        owner = game.g_owner[g]
        if game.c_exp[c] and owner >= 0:
            canvas.text(x + 4, y + 18, f"P{owner}")
        for w in range(min(int(game.c_wal[c]), 10)):
            canvas.circle(x + 8 + (w % 5) * 10, y + 38 + (w // 5) * 10, 4, WALLET)
    px = 16 + s * CELL
    lines = [f"turn: P{game.turn}" if not game.over else f"winners: {game.winners}"]
    for q in range(game.num_players):
        state = "exposed" if game.p_exp[q] else "hidden"
        lines.append(f"P{q}: stash {game.stash[q]} ({state})")
    lines.append("Marks: " + ", ".join(GUESTS[g].name for g in game.marks))
    lines.append(f"deck {len(game.deck)}  discard {len(game.discard)}")
    lines.append(f"Lost & Found {game.lost_found}")
    for i, line in enumerate(lines):
        canvas.text(px, 10 + 14 * i, line[:34])
    return canvas.to_array()
