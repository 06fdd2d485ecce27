"""The rgb_array picture of an Expressions table: hands, Suggestions, Harmony, Agony, the timer."""

from __future__ import annotations

import numpy as np

from envs.core.render import Canvas

from .data import NUM_CARDS, SUGGESTIONS, color_of, number_of

CARD_COLORS = [(205, 60, 60), (225, 200, 60), (70, 170, 80), (70, 110, 210), (150, 80, 180)]
CARD_W, CARD_H, GAP = 22, 30, 3
KIND_MARK = {"highest": "^", "lowest": "v", "last": "x", "more": "#"}


def _card(canvas: Canvas, x: int, y: int, card: int, mark: str = "") -> None:
    canvas.box(x, y, CARD_W, CARD_H, fill=CARD_COLORS[color_of(card)])
    canvas.text(x + 3, y + 3, str(number_of(card)), fill=(0, 0, 0))
    if mark:
        canvas.text(x + 10, y + 16, mark, fill=(0, 0, 0))


def _row(canvas: Canvas, x: int, y: int, cards, marks=None) -> None:
    for i, card in enumerate(cards):
        _card(canvas, x + i * (CARD_W + GAP), y, card, marks[i] if marks else "")


def draw_table(game) -> np.ndarray:
    n = game.num_players
    row_h = CARD_H + 24
    width = 110 + 20 * (CARD_W + GAP)
    height = 30 + row_h * (n + 2) + 20
    canvas = Canvas(width, height)
    canvas.text(8, 6, f"Expressions - timer {len(game.timer)} left - mode {game.config.mode}")
    for p in range(n):
        y = 28 + p * row_h
        label = f"{'>' if p == game.player else ' '} P{p}"
        canvas.text(8, y + 10, label)
        hand = [c for c in range(NUM_CARDS) if (game.hands[p] >> c) & 1]
        _row(canvas, 50, y, hand)
        sugg = sorted((c, kind) for c, (owner, kind) in game.suggestions.items() if owner == p)
        x = 50 + max(len(hand), 1) * (CARD_W + GAP) + 14
        _row(canvas, x, y, [c for c, _ in sugg], [KIND_MARK[SUGGESTIONS[k]] for _, k in sugg])
    y = 28 + n * row_h
    canvas.text(8, y + 10, f"Harm {len(game.harmony)}")
    _row(canvas, 70, y, game.harmony[-18:])
    canvas.text(8, y + row_h + 10, f"Agony {len(game.agony)}")
    _row(canvas, 70, y + row_h, game.agony[-18:])
    return canvas.to_array()
