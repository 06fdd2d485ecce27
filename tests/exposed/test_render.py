"""What Exposed's text and picture show: a seat sees the public table, its own Guest and what it was
shown; the whole table shows every Guest and the deck; both say which view they are, name every
Guest in full, explain their marks and word the decision being taken.

`python -m tests.exposed.test_render` writes docs/pictures/exposed-seat0.png (a mid-game table from seat
0's view)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.render import view_title
from envs.exposed import render
from envs.exposed.baseline import ScriptedExposedPolicy
from envs.exposed.data import GUESTS
from envs.exposed.render import CELL, PAD
from envs.exposed.rules import MOVE2, OFFER, Exposed, ExposedConfig

from ..core import helpers
from .helpers import gid, new_game, put


def example_table(seed: int = 7, decisions: int = 14) -> Exposed:
    """A mid-game table for the docs: the scripted baseline plays every seat for `decisions` steps."""
    config = ExposedConfig()
    game = Exposed(config, np.random.default_rng(seed))
    policy = ScriptedExposedPolicy(config, seed=seed)
    for _ in range(decisions):
        if game.is_terminal():
            break
        p = game.current_player()
        game.apply_action(policy(game.observation(p), game.legal_action_mask()))
    return game


def drawn_texts(monkeypatch, game, player) -> list[str]:
    """Every string the picture draws."""
    return helpers.drawn_texts(monkeypatch, render._Picture, game, player)


def owner_tags(text: str) -> set[str]:
    """The 'Pn' tags of the grid's tag lines (the lines under the Guest names)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("col 0"))
    side = len(lines[start].split()) // 2
    grid = lines[start + 1 : start + 1 + 2 * side]
    return {word for line in grid[1::2] for word in line.split() if word.startswith("P")}


@pytest.mark.parametrize("n", [2, 4, 6])
def test_seat_view_shows_own_guest_only_and_the_whole_table_every_guest_and_the_deck(n):
    g = new_game(n, seed=n)
    for p in range(n):
        text = g.to_string(p)
        assert text.splitlines()[0] == view_title(p)
        assert owner_tags(text) == {f"P{p}"}  # only the viewer's own Guest is labelled
        assert f"player {p} (you): Guest {GUESTS[g.ident[p]].name};" in text
        for q in range(n):
            if q != p:
                assert f"player {q}: Guest unknown" in text
        assert "top first" not in text and "Identity deck: " in text  # no deck order
    whole = g.to_string()
    assert whole.splitlines()[0] == view_title(None)
    assert owner_tags(whole) == {f"P{q}" for q in range(n)}
    assert "Identity deck, top first" in whole and ", ".join(GUESTS[x].name for x in g.deck[:3]) in whole


def test_text_shows_the_game_not_engine_internals():
    g = example_table()
    for player in (None, 0):
        text = g.to_string(player)
        assert "frames" not in text and "_end_action" not in text and "seen [" not in text
        assert "[" not in text  # no Python lists or frame stacks
        assert text.count("Now: ") == 1


@pytest.mark.parametrize("n", [2, 4, 6])
def test_every_guest_name_is_shown_in_full_in_text_and_picture(monkeypatch, n):
    g = new_game(n, seed=1)
    names = {GUESTS[x].name for x in g.guest_on}
    for player in (None, 0):
        text = g.to_string(player)
        grid_words = set(text.split())
        assert names <= grid_words, f"names cut short: {sorted(names - grid_words)}"
        drawn = drawn_texts(monkeypatch, g, player)
        assert names <= set(drawn)
    font = render.font(13)
    widest = max(font.getlength(GUESTS[x].name) for x in range(len(GUESTS)))
    assert widest <= CELL - PAD - 14, "a Guest name would overflow its tile"


def test_snitch_shows_the_card_to_that_player_only():
    g = new_game(4, seed=3)
    p = g.current_player()
    q, r = (p + 1) % 4, (p + 2) % 4
    name = GUESTS[g.ident[p]].name
    assert f"player {p}: Guest {name}" not in g.to_string(q)
    g.apply_action(g.OFF_SNITCH + 1)  # show the card to the player on the left
    assert f"player {p}: Guest {name}" in g.to_string(q)
    assert f"P{p}" in owner_tags(g.to_string(q))
    assert f"player {p}: Guest {name}" not in g.to_string(r)
    assert f"P{q} has seen P{p}'s card" in g.to_string(r)  # that they were shown it is public
    assert "Now: " + f"player {p} snitched and now flips any unexposed tile but their own." in g.to_string(r)


def test_views_are_unchanged_by_resampling_while_the_whole_table_changes():
    g = example_table()
    rng = np.random.default_rng(0)
    changed = 0
    for p in range(g.num_players):
        text, picture = g.to_string(p), g.render_rgb(p)
        for _ in range(4):
            sample = g.resample_hidden(p, rng)
            assert sample.to_string(p) == text
            assert np.array_equal(sample.render_rgb(p), picture)
            changed += not np.array_equal(sample.render_rgb(), g.render_rgb())
    assert changed >= 4, "the whole-table picture must show what resampling redraws"
    assert not np.array_equal(g.render_rgb(0), g.render_rgb(1))


def test_decisions_are_worded():
    g = new_game(4, seed=5)
    p = g.current_player()
    assert f"Now: player {p} chooses an action: Move, Steal, Expose or Snitch." in g.to_string(p)
    g.apply_action(g.OFF_SWAP)  # the first swap of a Move
    assert g.decision_kind == MOVE2
    assert f"Now: player {p} makes the second swap of the Move" in g.to_string((p + 1) % 4)
    # a Mark next to the player's Guest, stolen: the item is offered in words
    g = new_game(4, seed=5)
    p = g.current_player()
    mark = g.marks[0]
    own = int(g.cell_of_guest[g.ident[p]])
    put(g, GUESTS[mark].name, own + 1 if own % g.side < g.side - 1 else own - 1)  # a neighbour
    g.wallets_on[g.cell_of_guest[mark]] = 1
    g.apply_action(g.OFF_STEAL + int(g.cell_of_guest[mark]))
    assert g.decision_kind == OFFER
    assert f"stole from the {GUESTS[mark].name} Mark: use its item now, or pass?" in g.to_string(None)
    assert gid(GUESTS[mark].name) in g.stolen


def test_picture_has_the_header_and_a_legend_for_every_mark(monkeypatch):
    g = example_table()
    for player in (0, None):
        texts = drawn_texts(monkeypatch, g, player)
        assert texts[0] == view_title(player)
        for entry in (
            "Legend",
            "unexposed side up",
            "exposed side up",
            "gold frame, MARK: a Mark",
            "Wallets on the tile (2)",
            "player 2's Guest (known here)",
            "Mark stolen, item in use",
            "chosen in the current item",
        ):
            assert entry in texts
        assert any(t.strip() == "card in the discard pile" for t in texts)
        assert any(t.startswith("Now: ") for t in texts)
    seat = drawn_texts(monkeypatch, g, 0)
    assert "your Guest" in seat and "P0 (you)" in seat
    assert "your Guest" not in drawn_texts(monkeypatch, g, None)


def test_the_decision_kinds_render_words_are_those_of_the_rules():
    from envs.exposed import render, rules

    names = ("ACTION", "MOVE1", "MOVE2", "SNITCH_FLIP", "OFFER", "PICK", "DENTIST", "PILOT")
    assert [getattr(render, name) for name in names] == [getattr(rules, name) for name in names]
    assert len(names) == rules.NUM_DECISIONS


def write_sample(path: str = "docs/pictures/exposed-seat0.png") -> None:
    from PIL import Image

    Image.fromarray(example_table().render_rgb(0)).save(path)


if __name__ == "__main__":
    write_sample()
