"""Expressions positions (a game's state as a value): what a saved position holds, positions edited by
hand the way a user would (refused with the rule they break, or loaded as a game that goes on by the
rules), and hand-made positions played on. The generic checks are in tests/core/test_positions.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.core import PositionError
from envs.expressions.data import CHOOSE_AGONY, LAST, NUM_CARDS, TURN
from envs.expressions.rules import Expressions
from envs.expressions_v0 import SPEC

from .test_information import random_states
from .test_rules import c, cards, deal, guess, play


def saved(game: Expressions) -> dict:
    """The position as a file would hold it."""
    return json.loads(json.dumps(game.to_dict()))


def source(data: dict) -> list[float]:
    """The observation source's numbers in a saved position (edited in place)."""
    return data["state"]["_src"]["array"]


def at(game: Expressions, piece: str, *index: int) -> int:
    """Where entry `index` of a piece of the observation source lies (seats absolute)."""
    spec = game._source_layout[piece]
    return spec.offset + int(np.ravel_multi_index(index, spec.shape))


def move_card(game: Expressions, data: dict, card: int, to: int) -> None:
    """Move a card from its hand to seat `to`'s hand, in `hands` and in the source's `hands` piece."""
    hands = data["state"]["hands"]
    holder = next(p for p, hand in enumerate(hands) if hand >> card & 1)
    hands[holder] ^= 1 << card
    hands[to] |= 1 << card
    source(data)[at(game, "hands", holder, card)] = 0.0
    source(data)[at(game, "hands", to, card)] = 1.0


def card_of(game: Expressions, seat: int) -> int:
    """The lowest card in a seat's hand."""
    return next(x for x in range(NUM_CARDS) if game.hands[seat] >> x & 1)


def refused(data: dict, message: str) -> None:
    """Loading the position raises a PositionError whose words match `message`."""
    with pytest.raises(PositionError, match=message):
        Expressions.from_dict(data)


def loads(data: dict) -> Expressions:
    game = Expressions.from_dict(data)
    assert saved(game) == data, "a loaded position saves back to what was loaded"
    return game


def fresh(n: int = 4, seed: int = 0, **options) -> Expressions:
    return Expressions(num_players=n, rng=np.random.default_rng(seed), **options)


# ----- what a position holds -------------------------------------------------------------------
def test_a_position_holds_the_state_and_leaves_out_the_caches():
    game = fresh()
    state = saved(game)["state"]
    assert set(state) == {
        "hands", "timer", "harmony", "agony", "suggestions", "ruled_out", "first_player",
        "hand_size", "initial_timer", "flow", "_src", "num_decisions", "rng",
    }  # fmt: skip
    assert not set(state) & Expressions.DERIVED
    assert state["_src"]["dtype"] == "float32"


def test_positions_along_games_pass_the_position_checks_and_load_back():
    """check_position refuses nothing a game reaches: random games of every test configuration, their
    resampled copies, and tables set by set_deal (piles already filled, an empty timer)."""
    rng = np.random.default_rng(0)
    for config in SPEC.test_configs:
        for state in random_states(config, games=3, seed=1, share=0.3):
            state.check_position()
            state.resample_hidden(max(state.current_player(), 0), rng).check_position()
            loaded = loads(saved(state))
            assert [loaded.observation(p).tobytes() for p in range(state.num_players)] == [
                state.observation(p).tobytes() for p in range(state.num_players)
            ]
    for game in (
        deal(
            ["red 1, red 2, green 5", "green 8, blue 1", "yellow 4, blue 4"], first=1, timer=5, agony="red 9"
        ),
        deal(["red 1, red 2", "green 8"], timer=0),
    ):
        while not game.is_terminal():
            game.check_position()
            loads(saved(game))
            game.apply_action(int(game.legal_actions()[-1]))
        game.check_position()


# ----- edited by hand: refused with the rule broken -----------------------------------------------
def test_a_card_moved_to_another_hand_gives_that_seat_more_cards_than_dealt():
    game = fresh(4)
    data = saved(game)
    move_card(game, data, card_of(game, 0), to=1)
    refused(data, "seat 1 holds 12 cards, more than the hand size 11")


def test_a_card_moved_without_the_observation_source_is_refused():
    game = fresh(4)
    data = saved(game)
    a = card_of(game, 0)
    b = card_of(game, 1)
    data["state"]["hands"][0] ^= 1 << a | 1 << b  # swap a and b, the source not told
    data["state"]["hands"][1] ^= 1 << a | 1 << b
    refused(data, "'hands' piece does not match the hands")


def test_a_card_in_two_places_is_refused_naming_it():
    game = fresh(3)
    data = saved(game)
    card = card_of(game, 2)
    data["state"]["harmony"].append(card)
    refused(data, "is in seat 2's hand and Harmony: a card is in exactly one place")
    data = saved(game)
    data["state"]["timer"].pop()
    refused(data, "is nowhere")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.update(first_player=4), "first_player must be in 0..3"),
        (lambda s: s.update(num_decisions=-1), "num_decisions must be in 0.."),
        (lambda s: s.update(hand_size=0), "hand_size must be in 1..50"),
        (lambda s: s["ruled_out"].__setitem__(2, -1), r"ruled_out\[2\] must be a bitmask"),
        (lambda s: s["hands"].pop(), "hands must have one entry per seat"),
        (lambda s: s["agony"].append(50), "agony holds 50, which is not a card id"),
        (
            lambda s: s["flow"]["flow"][1].update(player=s["flow"]["flow"][1]["player"] ^ 1),
            "the turn flow must be a",
        ),
        (lambda s: s["flow"]["flow"][1].update(decide=CHOOSE_AGONY), "the turn flow must be"),
        (lambda s: s["flow"]["flow"].pop(0), "the turn flow must be"),
        (lambda s: s["flow"]["flow"].clear(), "the game is over .* but cards are still in hands"),
    ],
)
def test_a_value_out_of_range_or_a_wrong_turn_is_refused(edit, message):
    data = saved(fresh(4))
    edit(data["state"])
    refused(data, message)


def test_a_turn_moved_to_another_seat_must_move_in_the_observation_too():
    game = fresh(4)
    data = saved(game)
    k = game.current_player()
    other = (k + 1) % 4
    for frame in data["state"]["flow"]["flow"]:
        frame["args"] = [other]
    data["state"]["flow"]["flow"][1]["player"] = other
    refused(data, "'current_player' piece does not match the seat of the waiting")
    source(data)[at(game, "current_player", k)] = 0.0
    source(data)[at(game, "current_player", other)] = 1.0
    moved = loads(data)  # any seat may take the turn: the round then ends before the First Player's
    assert moved.current_player() == other and moved.turns_this_round == (other - game.first_player) % 4


def test_a_suggestion_must_belong_to_a_seat_that_played_it():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1", "yellow 4, blue 4"], first=0)
    play(game, "green 5", LAST)
    data = saved(game)
    [[card, owner_kind]] = data["state"]["suggestions"]["dict"]
    owner_kind["tuple"] = [5, LAST]
    refused(data, "the Suggestion green 5 must be \\(seat 0..2")
    owner_kind["tuple"] = [1, LAST]  # seat 1's, but the source says seat 0 played it
    refused(data, "'suggestions' piece does not match the Suggestions on the table")
    data = saved(game)
    data["state"]["suggestions"]["dict"].append([card, {"tuple": [0, LAST]}])
    refused(data, "names the key 24 twice")


def test_public_deductions_must_agree_with_the_public_record():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1", "yellow 4, blue 4"], first=0)
    play(game, "green 5", LAST)  # seat 0 holds no other green card
    data = saved(game)
    data["state"]["ruled_out"][0] &= ~(1 << c("green 9"))  # as if never said
    refused(data, r"ruled_out\[0\] does not match the public record .* green 9")
    data = saved(game)
    data["state"]["ruled_out"][1] |= 1 << c("blue 1")  # seat 1 holds blue 1
    refused(data, "seat 1 holds blue 1, which the public record rules out for it")


def test_the_public_history_in_the_source_is_checked_against_the_table():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1", "yellow 4, blue 4"], first=0)
    guess(game, 2, "blue 1")  # wrong: seat 1 holds it, and adds it to Agony
    data = saved(game)
    source(data)[at(game, "guesses", 0, 2, c("blue 1"))] = 0.5
    refused(data, "'guesses' piece holds a value other than 0 and 1")
    data = saved(game)
    source(data)[at(game, "guesses", 0, 2, c("blue 1"))] = 0.0
    refused(data, "the public history in the observation source says a wrong guess nobody made")
    data = saved(game)
    source(data)[at(game, "left_hand", 2, c("yellow 4"))] = 1.0
    refused(data, "a card that left a hand is in a hand or the Timer Stack .yellow 4")
    data = saved(game)
    source(data)[at(game, "timer_left", 0)] = 0.5
    refused(data, "'timer_left' piece does not match timer / initial_timer")
    data = saved(game)
    source(data)[at(game, "final_round", 0)] = 1.0
    refused(data, "Easy mode's final round")


def test_the_knowledge_pieces_must_be_what_the_record_gives():
    game = fresh(4, knowledge=True)
    game.apply_action(int(game.legal_actions()[0]))
    data = saved(game)  # written up to date
    may = at(game, "may_hold", 0, 0)
    source(data)[may] = 1.0 - source(data)[may]
    refused(data, "'may_hold' piece does not match the public record")


# ----- edited by hand: a consistent position loads and goes on by the rules --------------------------
def test_two_cards_swapped_between_hands_is_another_deal_that_plays_on():
    game = fresh(4, seed=3)
    data = saved(game)
    a = card_of(game, 0)
    b = card_of(game, 1)
    move_card(game, data, a, to=1)
    move_card(game, data, b, to=0)
    swapped = loads(data)
    assert swapped.hands[0] >> b & 1 and swapped.hands[1] >> a & 1
    assert swapped.hand_counts == game.hand_counts
    assert swapped.observation(2).tobytes() == game.observation(2).tobytes(), "seat 2 cannot tell"
    assert all(swapped.observation(p).tobytes() != game.observation(p).tobytes() for p in (0, 1))
    rng = np.random.default_rng(0)
    while not swapped.is_terminal():
        swapped.apply_action(int(rng.choice(swapped.legal_actions())))
        swapped.check_invariants()


def test_a_hand_made_position_where_the_next_action_wins():
    """Seat 2 holds the last card in any hand, one card is left in the Timer Stack, Harmony 25 and
    Agony 23: no other seat holds a card, so seat 2 may add it to Harmony (FAQ), and the timer then
    runs out: 26 against 24, the team wins. Played as a Suggestion instead it ends in Agony: 25 against
    25, the team loses."""
    x, t = c("purple 7"), c("purple 10")
    rest = [y for y in range(NUM_CARDS) if y not in (x, t)]
    table = Expressions(num_players=3, rng=np.random.default_rng(0))
    table.set_deal([[], [], [x]], [t], first_player=2, harmony=rest[:25], agony=rest[25:])
    position = saved(table)

    game = loads(position)
    assert game.current_player() == 2 and game.phase == TURN
    game.apply_action(game.choose_base + x)
    assert game.is_terminal() and game.team_wins()
    assert (len(game.harmony), len(game.agony)) == (26, 24) and game.returns().tolist() == [1.0] * 3

    game = loads(position)
    game.apply_action(LAST * NUM_CARDS + x)  # truthful: no other card of its color in the hand
    assert game.is_terminal() and not game.team_wins() and game.returns().tolist() == [-1.0] * 3


def test_a_loaded_position_continues_the_game_it_was_saved_from():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1", "yellow 4, blue 4"], first=0, timer=4)
    play(game, "green 5", LAST)
    guess(game, 2, "yellow 4")  # right: seat 1 now adds a card of its hand to Harmony
    loaded = loads(saved(game))
    for g in (game, loaded):
        g.apply_action(g.choose_base + c("green 8"))
    assert loaded.to_dict() == game.to_dict()
    assert loaded.harmony[-2:] == cards("yellow 4, green 8")
