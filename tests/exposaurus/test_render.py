"""The ansi text and the rgb_array picture: a seat's view hides the stock's order, says whose view it
is, explains its marks, cuts no name short and puts no label under a tile.

`python -m tests.exposaurus.test_render` writes docs/pictures/exposaurus-seat0.png (a mid-game
table from seat 0's view)."""

from __future__ import annotations

import numpy as np

from envs.core.render import view_title
from envs.exposaurus import render as V
from envs.exposaurus.data import KINDS, NUM_TILES, TILE_KIND
from envs.exposaurus.rules import CENTRE, M_DISC, M_SCIENTIST, SIDE, Exposaurus

from ..core.helpers import rects_overlap, seat_views_under_resampling
from .helpers import arrange, new_game


def mid_game(n: int = 4) -> Exposaurus:
    """The first random game (by seed) with 6 tiles in every museum, 4 on display, a marker and gems."""
    for seed in range(100):
        g = Exposaurus(rng=np.random.default_rng(seed), num_players=n)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            if (
                min(len(t) for t in g.tiles_of) >= 6
                and len(g.display) >= 4
                and any(g.marker)
                and sum(map(sum, g.gems)) >= 3
            ):
                return g
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
    raise AssertionError("no mid-game table found")


def test_seat_views_do_not_change_when_the_stock_is_reshuffled():
    g = mid_game()
    table_texts = seat_views_under_resampling(g, np.random.default_rng(0))
    assert all("Stock, next tiles first" in text for text in table_texts)
    assert len(table_texts) > 1, "the whole table shows the stock's order"


def test_the_stock_order_is_only_in_the_whole_table():
    g = new_game(2)
    top = g.stock[-1]
    assert f"Stock, next tiles first (hidden from the players): t{top}:" in g.to_string()
    assert "Stock, next" not in g.to_string(0) and "Stock, next" not in g.to_string(1)


def test_every_view_says_whose_it_is_and_carries_a_legend():
    g = mid_game()
    for p in (None, 0, 2):
        text = g.to_string(p)
        assert text.splitlines()[0] == view_title(p)
        assert "Legend:" in text
        _, pen = V.draw_with_layout(g, p)
        drawn = [s for _box, s, _t in pen.texts]
        assert drawn[0] == view_title(p)
        for label in (
            "red semicircle",
            "yellow semicircle (gem of choice)",
            "scientist (owner's colour)",
            "claim disc",
            "to move",
            "player 3",
        ):
            assert label in drawn
    assert "player 2 (you): museum" in " ".join(s for _b, s, _t in V.draw_with_layout(g, 2)[1].texts)


def test_fossil_names_are_whole_in_text_and_picture():
    tiles = [t for t in range(NUM_TILES) if KINDS[TILE_KIND[t]] in ("skeleton", "footprint")][:2]
    g = arrange(
        new_game(2),
        museums={
            0: [(16, CENTRE, 0), (tiles[0], CENTRE + 1, 0)],
            1: [(17, CENTRE, 0), (tiles[1], CENTRE + SIDE, 0)],
        },
        display=[0, 59],
        markers={59: (M_DISC, 1), 0: (M_SCIENTIST, 0)},
    )
    text = g.to_string(0)
    assert "skeleton" in text and "footprint" in text and "skele " not in text and "footp " not in text
    _, pen = V.draw_with_layout(g, 0)
    drawn = [s for _box, s, _t in pen.texts]
    assert "skeleton" in drawn and "footprint" in drawn
    assert "claim disc of player 1 on it" in text and "scientist of player 0 on it" in text


def test_no_label_lies_under_a_tile_and_no_texts_overlap():
    g = mid_game()
    picture, pen = V.draw_with_layout(g, 0)
    height, width, _ = picture.shape
    for box, s, tile in pen.texts:
        assert 0 <= box[0] and box[2] <= width and 0 <= box[1] and box[3] <= height, s
        for k, rect in enumerate(pen.tiles):
            if k == tile:  # a tile's own label lies inside it
                assert (
                    rect[0] <= box[0]
                    and box[2] <= rect[2] + 1
                    and rect[1] <= box[1]
                    and box[3] <= rect[3] + 1
                ), s
            else:
                assert not rects_overlap(box, rect), f"{s!r} is under a tile"
    boxes = [(box, s) for box, s, _t in pen.texts]
    for i, (box, s) in enumerate(boxes):
        for other, t in boxes[:i]:
            assert not rects_overlap(box, other), (s, t)


def write_sample(path: str = "docs/pictures/exposaurus-seat0.png") -> None:
    from PIL import Image

    Image.fromarray(mid_game().render_rgb(0)).save(path)


if __name__ == "__main__":
    write_sample()
