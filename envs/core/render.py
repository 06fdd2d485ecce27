"""Drawing helpers shared by every game's rgb_array picture (Pillow)."""

from __future__ import annotations

from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

BACKGROUND = (28, 92, 60)  # table felt
INK = (240, 240, 240)


class Canvas:
    """A Pillow image with the few primitives the games' pictures need."""

    def __init__(self, width: int, height: int, background=BACKGROUND):
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.font = ImageFont.load_default()

    def box(self, x: int, y: int, w: int, h: int, fill, outline=(20, 20, 20), width: int = 1):
        self.draw.rectangle([x, y, x + w - 1, y + h - 1], fill=fill, outline=outline, width=width)

    def text(self, x: int, y: int, text: str, fill=INK):
        self.draw.text((x, y), text, fill=fill, font=self.font)

    def circle(self, x: int, y: int, r: int, fill, outline=None):
        self.draw.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=outline)

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


@cache
def font(size: int):
    """Pillow's built-in font at `size` (pictures look the same without system fonts)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: the one small bitmap font
        return ImageFont.load_default()


def view_title(player: int | None) -> str:
    """The line every picture and text view starts with: whose view it is."""
    if player is None:
        return "Whole table (every hidden card and role shown)"
    return f"Player {player}'s view (only what player {player} may see)"


def check_view(view, num_players: int) -> None:
    """A face's `render_view`: "table", "current" (the player to move) or a seat number."""
    if view in ("table", "current"):
        return
    if isinstance(view, bool) or not isinstance(view, (int, np.integer)) or not 0 <= view < num_players:
        raise ValueError(
            f"render_view must be 'table', 'current' or a seat 0..{num_players - 1}, got {view!r}"
        )


def view_player(view, game) -> int | None:
    """The seat whose view `view` means now (None: the whole table)."""
    if view == "table":
        return None
    if view == "current":
        player = game.current_player()
        return None if player < 0 else player
    return int(view)


def text_picture(text: str, line_height: int = 12, char_width: int = 6) -> np.ndarray:
    """The text rendering drawn as a picture (a fallback for games without their own)."""
    lines = text.splitlines() or [""]
    width = 16 + char_width * max(len(line) for line in lines)
    canvas = Canvas(width, 16 + line_height * len(lines))
    for i, line in enumerate(lines):
        canvas.text(8, 8 + i * line_height, line)
    return canvas.to_array()


def show(picture: np.ndarray, title: str = "tabletop") -> None:
    """Show a picture in a window ("human" render mode); needs matplotlib and a display."""
    import matplotlib.pyplot as plt

    plt.figure(title)
    plt.clf()
    plt.imshow(picture)
    plt.axis("off")
    plt.pause(0.001)
