"""The ansi text and the rgb_array picture: a seat's view shows only what that seat may see, says whose
view it is, explains its marks and cuts no name short.

`python -m tests.artifacts.test_render` writes docs/pictures/artifacts-seat0.png (a mid-game table
from seat 0's view)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.artifacts import data as D
from envs.artifacts import render as V
from envs.artifacts.rules import PH_KEEP, Artifacts
from envs.core.render import view_title

from ..core.helpers import rects_overlap, seat_views_under_resampling
from .util import SEVEN, kill, table


def mid_game(site: str = "none", n: int = 7) -> Artifacts:
    """The first random game (by seed) that reaches round 4 in the middle of a keep-or-sell vote, with
    a Revealed player and a private side check, another seat to vote."""
    for seed in range(200):
        g = Artifacts(rng=np.random.default_rng(seed), num_players=n, site=site)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            if (
                g.round >= 4
                and g.phase == PH_KEEP
                and sum(g.ballots[s] >= 0 for s in g.voting) >= 2
                and g.last_vote_kind >= 0
                and g.peeks
                and any(g.revealed)
                and g.current_player() != 0
            ):
                return g
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
    raise AssertionError("no mid-game table found")


@pytest.mark.parametrize("site", ["none", "spain", "greece"])
def test_seat_views_do_not_change_when_hidden_things_are_redrawn(site):
    g = mid_game(site, n=10 if site == "greece" else 7)
    table_texts = seat_views_under_resampling(g, np.random.default_rng(1))
    assert len(table_texts) > 1, "the whole table shows roles and the draw pile's order"


def test_a_secret_role_is_absent_from_another_view_until_revealed():
    g = table(7, SEVEN, top=["Quiet Day"])  # seat 5 is the Mafia Boss, seat 1 the Shaman
    swapped = table(7, SEVEN[:5] + ["Smuggler", "Mafia Boss"], top=["Quiet Day"])
    assert "Mafia Boss" not in g.to_string(1)
    assert "Mafia Boss" in g.to_string()
    assert np.array_equal(g.render_rgb(1), swapped.render_rgb(1))
    assert not np.array_equal(g.render_rgb(), swapped.render_rgb())
    g._reveal(5)
    swapped._reveal(5)
    assert "player 5         Mafia Boss" in g.to_string(1)
    assert not np.array_equal(g.render_rgb(1), swapped.render_rgb(1))


def test_awareness_and_private_checks_show_only_in_the_aware_players_view():
    g = table(7, SEVEN, top=["Quiet Day"])  # the Possessed (seat 0) is aware of the Tomb Raider
    g.peeks += ((3, 6),)  # the Detective checked the Smuggler
    assert "Tomb Raider   Looters (you are aware)" in g.to_string(0)
    assert "Tomb Raider" not in g.to_string(2)
    assert "you saw player 6 as Looters" in g.to_string(3)
    assert "looks Looters (your check)" in g.to_string(3)
    assert "player 6" in g.to_string(2) and "saw player 6" not in g.to_string(2)


def test_spain_hides_the_face_down_piles_from_every_seat():
    one = table(7, SEVEN, site="spain", sold=(2, 0, 0, 0, 0), top=["Quiet Day"])
    other = table(7, SEVEN, site="spain", sold=(0, 1, 0, 1, 0), top=["Quiet Day"])
    for p in range(7):
        assert one.to_string(p) == other.to_string(p)
        assert np.array_equal(one.render_rgb(p), other.render_rgb(p))
    assert "Sold 2 (face down)" in one.to_string(0) and "0-2" in one.to_string(0)
    assert one.to_string() != other.to_string()


def test_the_draw_pile_order_is_only_in_the_whole_table():
    g = table(7, SEVEN, top=["Quiet Day", "Amnesty"])
    assert "next (top first): Amnesty" in g.to_string()
    assert all("Amnesty" not in g.to_string(p) for p in range(7))


def test_every_view_starts_with_whose_view_it_is_and_carries_a_legend():
    g = mid_game()
    for p in (None, 0, 3):
        text = g.to_string(p)
        assert text.splitlines()[0] == view_title(p)
        assert "Legend:" in text
        _, pen = V.render_with_layout(g, p)
        drawn = [s for _box, s in pen.texts]
        assert drawn[0] == view_title(p)
        for label in ("Academics", "Looters", "side unknown to this view", "to act", "drawer of the round"):
            assert label in drawn


def test_names_are_whole_and_texts_neither_overlap_nor_leave_the_picture():
    g = table(10, None, preference="full", top=["Curse of the Pharaoh"], storage=(1, 1, 1, 1, 1))
    for s in range(1, 10, 2):
        g._reveal(s)
    picture, pen = V.render_with_layout(g, None)
    height, width, _ = picture.shape
    drawn = [s for _box, s in pen.texts]
    for name in D.ARTIFACTS + tuple(D.ROLE_NAMES[int(r)] for r in g.roles):
        assert name in drawn
    assert any("Curse of the Pharaoh" in s for s in drawn)
    boxes = [box for box, _s in pen.texts]
    for i, box in enumerate(boxes):
        assert 0 <= box[0] and box[2] <= width and 0 <= box[1] and box[3] <= height, pen.texts[i]
        for j in range(i):
            assert not rects_overlap(box, boxes[j]), (pen.texts[i][1], pen.texts[j][1])


def test_a_dead_players_row_and_the_player_to_act_are_marked():
    g = table(7, SEVEN, top=["Quiet Day"])
    kill(g, 2)
    assert "dead, Revealed" in g.to_string(0)
    assert g.to_string(0).count(">") == 2  # the player to act, and the legend's explanation


def write_sample(path: str = "docs/pictures/artifacts-seat0.png") -> None:
    from PIL import Image

    Image.fromarray(mid_game("none").render_rgb(0)).save(path)


if __name__ == "__main__":
    write_sample()
