"""Each rule of what may be done is written once (rules.RULES_AT): the legal mask is every condition of
the rule met, and an illegal action's reason is the first condition it fails, in the rulebook's words."""

from __future__ import annotations

import pytest

from envs.core import IllegalActionError
from envs.expressions.data import HIGHEST, LOWEST, NUM_CARDS
from envs.expressions.rules import CHOOSE_AGONY, CHOOSE_HARMONY, TURN
from envs.expressions_v0 import SPEC

from .test_information import random_states
from .test_rules import c, choose, deal, guess, play


def assert_mask_is_no_problem(game) -> None:
    """For every action: legal exactly when its rule finds no problem; a problem is a sentence."""
    mask = game.legal_action_mask()
    for action in range(game.num_actions):
        problem = game.action_problem(action)
        assert mask[action] == (problem is None), (action, game.action_to_string(action), problem)
        if problem is None:
            assert game.illegal_reason(action) == "it is allowed"
        else:
            assert game.illegal_reason(action) == problem and problem.strip()


@pytest.mark.parametrize("config", SPEC.test_configs, ids=str)
def test_the_mask_is_where_the_rules_find_no_problem_in_random_games(config):
    kinds = set()
    for game in random_states(config, games=6, seed=21, share=0.15):
        assert_mask_is_no_problem(game)
        kinds.add(game.phase)
    assert kinds == {TURN, CHOOSE_HARMONY, CHOOSE_AGONY}, "every kind of decision was met"


def test_the_mask_is_where_the_rules_find_no_problem_in_the_faq_situations():
    # no other player holds a card (FAQ: add a card to Harmony), a player with no cards to name, and
    # a player with no cards of their own
    for hands in (["red 1, red 2", "", ""], ["red 1, red 2", "", "yellow 3"], ["", "blue 1", "blue 2"]):
        game = deal(hands)
        assert_mask_is_no_problem(game)
    faq = deal(["red 1, red 2", "", ""])
    assert faq.legal_action_mask()[faq.choose_base + c("red 1")], "the FAQ's add to Harmony is open"


def reason(game, action: int) -> str:
    with pytest.raises(IllegalActionError) as error:
        game.apply_action(action)
    assert game.illegal_reason(action) in str(error.value)
    return game.illegal_reason(action)


def test_illegal_actions_get_the_words_of_the_first_condition_they_fail():
    game = deal(["green 4, green 6, red 1, green 5", "blue 1, blue 5", "", "yellow 3"], first=0)
    assert reason(game, LOWEST * NUM_CARDS + c("green 6")) == (
        "you must always be truthful when playing cards: green 6 is not your 'Lowest of this Color'"
    )
    assert reason(game, HIGHEST * NUM_CARDS + c("blue 1")) == "blue 1 is not in your hand"
    assert reason(game, game.guess_base + 1 * NUM_CARDS + c("blue 1")) == "player 2 has no cards to guess"
    assert reason(game, game.choose_base + c("red 1")) == (
        "you may add a card only after a guess, or on your turn when no other player has cards"
    )
    play(game, "green 6", HIGHEST)  # truthful: green 6 is seat 0's highest green
    assert reason(game, game.guess_base + 2 * NUM_CARDS + c("green 6")) == (
        "green 6 is face up and cannot be named"
    )


def test_after_a_guess_the_guessers_card_comes_first_and_is_from_their_hand():
    game = deal(["red 1, red 2", "green 8, blue 1", "yellow 3, yellow 4"], first=0)
    guess(game, 1, "green 8")  # right: seat 0 adds a card to Harmony first
    assert reason(game, HIGHEST * NUM_CARDS + c("red 2")) == "you must choose a card for Harmony first"
    assert reason(game, game.guess_base + c("blue 1")) == "you must choose a card for Harmony first"
    assert reason(game, game.choose_base + c("yellow 3")) == "yellow 3 is not in your hand"
    choose(game, "red 1")
    guess(game, 2, "red 2")  # wrong (seat 0 holds it): seat 1 adds a card to Agony first
    assert game.phase == CHOOSE_AGONY
    assert reason(game, game.guess_base + c("yellow 4")) == "you must choose a card for Agony first"
