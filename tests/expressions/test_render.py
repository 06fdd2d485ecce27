"""What Expressions' text and picture show: a seat sees its own hand and the public table only; the
whole table shows every hand and the Timer Stack; both say which view they are and explain their marks.

`python -m tests.expressions.test_render` writes docs/pictures/expressions-seat0.png (a mid-game table
from seat 0's view)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.core.render import view_title
from envs.expressions import render
from envs.expressions.baseline import ScriptedExpressionsPolicy
from envs.expressions.data import SUGGESTION_TEXT, card_name
from envs.expressions.rules import Expressions, ExpressionsConfig

from ..core import helpers
from .test_rules import c, deal, guess, play


def example_table(seed: int = 5, decisions: int = 16) -> Expressions:
    """A mid-game table for the docs: the scripted baseline plays every seat for `decisions` steps."""
    config = ExpressionsConfig()
    game = Expressions(config, np.random.default_rng(seed))
    policy = ScriptedExpressionsPolicy(config)
    for _ in range(decisions):
        p = game.current_player()
        game.apply_action(policy(game.observation(p), game.legal_action_mask()))
    return game


def shows(text: str, card: int) -> bool:
    """Whether the card is named in the text ('red 1' is not found inside 'red 10')."""
    return re.search(rf"\b{card_name(card)}\b", text) is not None


def cards_of(bits: int) -> list[int]:
    return [x for x in range(50) if bits >> x & 1]


def drawn_texts(monkeypatch, game, player) -> list[str]:
    """Every string the picture draws."""
    return helpers.drawn_texts(monkeypatch, render._Picture, game, player)


@pytest.mark.parametrize("n", [2, 4, 5])
def test_seat_view_shows_own_hand_but_no_other_hand_nor_the_timer(n):
    game = Expressions(num_players=n, rng=np.random.default_rng(n))
    for p in range(n):
        text = game.to_string(p)
        assert text.splitlines()[0] == view_title(p)
        assert all(shows(text, x) for x in cards_of(game.hands[p]))
        hidden = [x for q in range(n) if q != p for x in cards_of(game.hands[q])] + game.timer
        assert not any(shows(text, x) for x in hidden), f"seat {p}'s text names a hidden card"
    whole = game.to_string()
    assert whole.splitlines()[0] == view_title(None)
    assert all(shows(whole, x) for x in range(50))  # every hand and the Timer Stack, in order
    top_first = ", ".join(card_name(x) for x in reversed(game.timer))
    assert f"Timer Stack, top first: {top_first}" in whole


def test_seat_views_are_unchanged_by_resampling_while_the_whole_table_changes():
    game = example_table()
    rng = np.random.default_rng(0)
    for p in range(game.num_players):
        text, picture = game.to_string(p), game.render_rgb(p)
        changed = 0
        for _ in range(4):
            sample = game.resample_hidden(p, rng)
            assert sample.to_string(p) == text
            assert np.array_equal(sample.render_rgb(p), picture)
            changed += not np.array_equal(sample.render_rgb(), game.render_rgb())
            changed += sample.to_string() != game.to_string()
        assert changed >= 4, "the whole-table views must show what resampling redraws"
    assert not np.array_equal(game.render_rgb(0), game.render_rgb(1))


def test_public_table_is_in_every_view_and_the_decision_in_words():
    game = deal(["red 5, red 7, red 9, green 2", "blue 3, blue 9", "yellow 1, yellow 4"], timer=3)
    play(game, "red 5", 1)  # Lowest of this Color: stays while a red is held
    guess(game, 0, "red 7")  # player 1 guesses right
    for p in (None, 0, 1, 2):
        text = game.to_string(p)
        assert "red 5 (Lowest of this Color)" in text  # a Suggestion and its kind
        assert "player 1 named red 7 in player 0's hand: right" in text  # the guess history
        assert re.search(r"Harmony \(\d+\): .*\bred 7\b", text)
        assert "Now: player 1 guessed right: adds a card of their hand to Harmony." in text
        assert "> player 1" in text  # the player to move is marked
    assert "blue 3" in game.to_string(1) and "blue 3" not in game.to_string(0)


def test_a_suggestion_gone_to_agony_keeps_its_player_and_kind():
    game = deal(["red 5, green 2", "blue 3, blue 9"], timer=3)
    play(game, "red 5", 0)  # Highest of this Color, no other red: irrelevant at once, to Agony
    assert c("red 5") in game.agony
    text = game.to_string(1)
    assert "of them earlier Suggestions: red 5 (player 0, Highest of this Color)" in text


def test_picture_has_the_header_and_a_legend_for_every_mark(monkeypatch):
    game = example_table()
    for player in (0, None):
        texts = drawn_texts(monkeypatch, game, player)
        assert texts[0] == view_title(player)
        assert "Legend" in texts
        for kind in SUGGESTION_TEXT.values():
            assert f"Suggestion: {kind}" in texts
        for color in ("red", "yellow", "green", "blue", "purple"):
            assert color in texts
        assert "a hidden card" in texts
    seat = drawn_texts(monkeypatch, game, 0)
    assert "P0 (you)" in seat and "face down" in seat
    assert "top first" in drawn_texts(monkeypatch, game, None)  # the Timer Stack face up, in order


def write_sample(path: str = "docs/pictures/expressions-seat0.png") -> None:
    from PIL import Image

    Image.fromarray(example_table().render_rgb(0)).save(path)


if __name__ == "__main__":
    write_sample()
