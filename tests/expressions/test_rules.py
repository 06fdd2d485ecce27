"""One test per rule and FAQ answer of Expressions: each sets up the situation and asserts the outcome."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import ConfigError, IllegalActionError
from envs.core.flow import Do
from envs.expressions.baseline import ScriptedExpressionsPolicy
from envs.expressions.data import HIGHEST, LAST, LOWEST, MORE, NUM_CARDS, SETUP_CHART, card_id
from envs.expressions.rules import CHOOSE_AGONY, CHOOSE_HARMONY, TURN, Expressions


def c(name: str) -> int:
    """'green 6' -> card id."""
    color, number = name.split()
    return card_id(color, int(number))


def cards(names: str) -> list[int]:
    return [c(x.strip()) for x in names.split(",") if x.strip()]


def deal(
    hands: list[str], first: int = 0, timer: int | None = None, agony: str = "", **options
) -> Expressions:
    """A game whose hands are the given cards and Agony the given cards; of the other cards the last
    `timer` form the Timer Stack (all of them by default) and the rest lie in Harmony."""
    game = Expressions(num_players=len(hands), rng=np.random.default_rng(0), **options)
    held = [cards(h) for h in hands]
    in_agony = cards(agony)
    rest = [x for x in range(NUM_CARDS) if x not in {y for h in held for y in h} | set(in_agony)]
    timer = len(rest) if timer is None else timer
    game.set_deal(held, rest[len(rest) - timer :], first, harmony=rest[: len(rest) - timer], agony=in_agony)
    return game


def play(game: Expressions, name: str, kind: int) -> None:
    game.apply_action(kind * NUM_CARDS + c(name))


def guess(game: Expressions, target: int, name: str) -> None:
    rel = (target - game.current_player()) % game.num_players
    game.apply_action(game.guess_base + (rel - 1) * NUM_CARDS + c(name))


def choose(game: Expressions, name: str) -> None:
    game.apply_action(game.choose_base + c(name))


def legal_play(game: Expressions, name: str, kind: int) -> bool:
    return bool(game.legal_action_mask()[kind * NUM_CARDS + c(name)])


# ----- set-up --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_chart_deals_hands_and_timer(n):
    game = Expressions(num_players=n, rng=np.random.default_rng(n))
    per_player, timer = SETUP_CHART[n]
    assert game.hand_counts == [per_player] * n
    assert len(game.timer) == timer
    assert game.flips_per_round == (2 if n == 2 else 1)
    game.check_invariants()


# The Hard side of the Setup Card, ours (RULES.md, "Set-up"): players -> (cards each, Timer Stack).
HARD_SIDE = {2: (17, 16), 3: (12, 14), 4: (9, 14), 5: (8, 10)}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_hard_mode_deals_by_the_hard_side_of_the_setup_chart(n):
    per_player, timer = HARD_SIDE[n]
    for seed in range(3):
        game = Expressions(num_players=n, mode="hard", rng=np.random.default_rng(seed))
        assert game.hand_counts == [per_player] * n
        assert len(game.timer) == timer == NUM_CARDS - n * per_player  # the rest of the deck
        assert game.flips_per_round == 2
        game.check_invariants()
        # hand sizes are observed as fractions of the cards dealt, and the scripted player reads them so
        game.apply_action(int(game.legal_actions()[0]))  # a Suggestion: one card leaves a hand
        sizes = game.observation_layout.split(game.observation(0))["hand_sizes"]  # seat 0's view
        assert (sizes * ScriptedExpressionsPolicy(game.config).dealt).round().tolist() == game.hand_counts
        assert sorted(game.hand_counts) == [per_player - 1] + [per_player] * (n - 1)
    # Easy mode deals by the Normal side
    assert Expressions(num_players=n, mode="easy").hand_counts == [SETUP_CHART[n][0]] * n


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_hard_mode_flips_the_top_two_timer_cards_into_agony_each_round(n):
    game = Expressions(num_players=n, mode="hard", rng=np.random.default_rng(n))
    timer = HARD_SIDE[n][1]
    for round_ in range(2):
        top_two = game.timer[-1:-3:-1]
        for _ in range(n):
            assert len(game.timer) == timer - 2 * round_
            plays = [a for a in game.legal_actions() if a < game.guess_base]
            game.apply_action(int(plays[0]))  # a Suggestion: the turn is one decision
        assert len(game.timer) == timer - 2 * (round_ + 1)
        assert game.agony[-2:] == top_two  # flipped into Agony, top card first
    game.check_invariants()


def test_hard_mode_flips_two_and_bad_mode_is_an_error():
    assert Expressions(num_players=4, mode="hard").flips_per_round == 2
    with pytest.raises(ConfigError, match="mode"):
        Expressions(num_players=4, mode="nightmare")
    with pytest.raises(ConfigError, match="num_players"):
        Expressions(num_players=6)


# ----- truthful Suggestions ----------------------------------------------------------------------
def test_cannot_play_green_6_as_lowest_with_green_4_in_hand():
    game = deal(["green 4, green 6, red 1", "blue 1", "blue 2"])
    assert not legal_play(game, "green 6", LOWEST)
    with pytest.raises(IllegalActionError, match="truthful"):
        play(game, "green 6", LOWEST)
    assert legal_play(game, "green 4", LOWEST)


def test_oliver_plays_green_6_as_lowest_of_6_7_8_9():
    game = deal(["green 6, green 7, green 8, green 9", "blue 1", "blue 2"])
    assert legal_play(game, "green 6", LOWEST)
    assert legal_play(game, "green 9", HIGHEST) and not legal_play(game, "green 8", HIGHEST)
    play(game, "green 6", LOWEST)
    assert game.suggestions[c("green 6")] == (0, LOWEST)


def test_last_of_color_and_more_of_number_must_be_true():
    game = deal(["green 6, green 7, red 6, blue 3", "blue 1", "blue 2"])
    assert legal_play(game, "blue 3", LAST)
    assert not legal_play(game, "green 6", LAST)  # green 7 remains
    assert legal_play(game, "green 6", MORE)  # red 6 remains
    assert not legal_play(game, "green 7", MORE)
    assert not legal_play(game, "blue 3", MORE)


def truthful_by_the_text(hand: list[int], card: int, kind: int) -> bool:
    """The rule text read directly, card by card (no bitmasks): H' is the hand without `card`."""
    rest = [x for x in hand if x != card]
    color, number = card // 10, card % 10
    same_color = [x % 10 for x in rest if x // 10 == color]
    if kind == HIGHEST:
        return all(x < number for x in same_color)
    if kind == LOWEST:
        return all(x > number for x in same_color)
    if kind == LAST:
        return not same_color
    return any(x % 10 == number for x in rest)  # More of this Number


def test_the_play_mask_is_the_text_for_every_card_of_random_hands():
    # the mask reads the Suggestions' meanings (data.MEANINGS) compiled into one product per hand
    rng = np.random.default_rng(5)
    game = Expressions(num_players=2, rng=rng)
    for size in (1, 2, 5, 9, 16, 30, 50):
        for _ in range(20):
            hand = sorted(rng.choice(NUM_CARDS, size, replace=False).tolist())
            rest = [x for x in range(NUM_CARDS) if x not in hand]
            game.set_deal([hand, rest[:1]], rest[1:], first_player=0)
            mask = game.legal_action_mask()[: 4 * NUM_CARDS].reshape(4, NUM_CARDS)
            for kind in (HIGHEST, LOWEST, LAST, MORE):
                expected = [x in hand and truthful_by_the_text(hand, x, kind) for x in range(NUM_CARDS)]
                assert mask[kind].tolist() == expected, (hand, kind)


# ----- relevance ---------------------------------------------------------------------------------
def test_suggestion_irrelevant_when_played_goes_to_agony_at_once():
    # green 6 is the only green: "Highest of this Color" is true but says nothing about the hand
    game = deal(["green 6, red 1", "blue 1", "blue 2"])
    play(game, "green 6", HIGHEST)
    assert c("green 6") not in game.suggestions
    assert game.agony == [c("green 6")]


def test_last_of_color_stays_until_the_end():
    game = deal(["green 6, red 1", "blue 1", "blue 2"])
    play(game, "green 6", LAST)
    assert game.suggestions[c("green 6")] == (0, LAST)


def test_suggestion_goes_to_agony_when_its_color_leaves_the_hand():
    game = deal(["green 6, green 4, red 1", "blue 1, blue 5", "blue 2, yellow 1"])
    play(game, "green 6", HIGHEST)  # relevant: green 4 remains
    assert c("green 6") in game.suggestions
    guess(game, 0, "green 4")  # player 1 guesses player 0's green 4: correct
    assert c("green 4") in game.harmony
    assert c("green 6") not in game.suggestions and c("green 6") in game.agony


def test_more_of_number_relevant_while_the_number_is_held():
    game = deal(["green 6, red 6, red 1", "blue 1, blue 5", "blue 2, yellow 1"])
    play(game, "green 6", MORE)
    assert game.suggestions[c("green 6")] == (0, MORE)
    guess(game, 0, "red 6")
    assert c("green 6") in game.agony


# ----- guesses -----------------------------------------------------------------------------------
def test_correct_guess_card_to_harmony_then_guesser_chooses_own_card():
    game = deal(["red 1, red 2", "green 8, blue 1", "yellow 3, yellow 4"], first=0)
    guess(game, 1, "green 8")
    assert game.harmony == [c("green 8")]
    assert game.current_player() == 0 and game.phase == CHOOSE_HARMONY
    mask = game.legal_action_mask()
    assert set(np.flatnonzero(mask)) == {game.choose_base + c("red 1"), game.choose_base + c("red 2")}
    choose(game, "red 2")
    assert game.harmony == [c("green 8"), c("red 2")]
    assert game.current_player() == 1 and game.phase == TURN


def test_wrong_guess_holder_adds_it_to_agony_then_guesser_adds_a_card():
    # Nova (0) guesses Oliver (1) has green 10; Coupe (2) has it
    game = deal(["red 1, red 2", "green 8, blue 1", "green 10, yellow 4"], first=0)
    guess(game, 1, "green 10")
    assert game.agony == [c("green 10")]
    assert game.phase == CHOOSE_AGONY and game.current_player() == 0
    choose(game, "red 1")
    assert game.agony == [c("green 10"), c("red 1")]
    assert game.hand_counts == [1, 2, 1]


def test_faq_guessed_card_in_no_hand_only_the_guesser_adds_to_agony():
    game = deal(["red 1, red 2", "green 8, blue 1", "yellow 3, yellow 4"], first=0)
    assert c("purple 5") in game.timer
    guess(game, 1, "purple 5")
    assert game.agony == []
    choose(game, "red 1")
    assert game.agony == [c("red 1")]
    assert c("purple 5") in game.timer


def test_face_up_cards_cannot_be_named_but_own_cards_can():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1", "yellow 3, yellow 4"], first=0)
    play(game, "green 5", LAST)  # green 5 face up as a Suggestion
    guess(game, 2, "yellow 3")  # player 1: correct
    choose(game, "blue 1")
    # player 2 may not name green 5 (face up) nor yellow 3 (Harmony)
    with pytest.raises(IllegalActionError, match="face up"):
        guess(game, 0, "green 5")
    with pytest.raises(IllegalActionError, match="face up"):
        guess(game, 0, "yellow 3")
    # naming one's own card is a wrong guess: own card to Agony, then another card added
    guess(game, 0, "yellow 4")
    assert c("yellow 4") in game.agony
    assert c("yellow 4") not in game.harmony


def test_guess_only_players_who_hold_cards():
    game = deal(["red 1, red 2", "", "yellow 3"], first=0)
    mask = game.legal_action_mask().copy()
    guesses = mask[game.guess_base : game.choose_base].reshape(2, NUM_CARDS)
    assert not guesses[0].any()  # seat 1 holds nothing
    assert guesses[1].any()


def test_guesser_choice_is_its_own_step_with_only_own_cards():
    game = deal(["red 1, red 2", "green 8", "yellow 3"], first=0)
    guess(game, 1, "green 8")
    with pytest.raises(IllegalActionError):
        play(game, "red 1", HIGHEST)
    with pytest.raises(IllegalActionError, match="not in your hand"):
        choose(game, "yellow 3")


def test_a_turn_is_a_decision_above_its_end_and_a_guess_pushes_the_guessers_choice():
    game = deal(["red 1, red 2", "green 8, blue 1", "yellow 3, yellow 4"], first=0)
    end, turn = game.flow.frames
    assert (turn.kind, turn.player, turn.then) == (TURN, 0, Expressions.take_turn)
    assert end == Do(Expressions.end_turn, (0,))
    guess(game, 1, "green 8")  # right: the guesser's choice waits above the same end of the turn
    assert game.flow.frames[0] == end
    choice = game.flow.decision
    assert (choice.kind, choice.player, choice.then) == (CHOOSE_HARMONY, 0, Expressions.add_to_harmony)
    assert game.phase == CHOOSE_HARMONY and game.observation_dict(0)["phase"].tolist() == [0, 1, 0]
    choose(game, "red 1")  # the end of the turn ran: player 1's turn waits above its own end
    assert [f.args for f in game.flow.frames] == [(1,), (1,)] and game.phase == TURN
    guess(game, 2, "red 2")  # wrong, player 0 held it: player 1 adds a card to Agony
    assert game.flow.decision.then is Expressions.add_to_agony and game.phase == CHOOSE_AGONY


# ----- FAQ: running out of cards -------------------------------------------------------------------
def test_faq_empty_hand_correct_guess_moves_a_card_agony_to_harmony():
    game = deal(["", "green 8, blue 1", "yellow 3, yellow 4"], first=0, agony="purple 1, purple 2")
    harmony = list(game.harmony)
    guess(game, 1, "green 8")
    assert game.harmony == harmony + [c("green 8"), c("purple 2")]  # the top card of Agony moves
    assert game.agony == [c("purple 1")]
    assert game.current_player() == 1


def test_faq_empty_hand_wrong_guess_moves_a_card_harmony_to_agony():
    game = deal(["", "green 8, blue 1", "yellow 3, yellow 4"], first=0, timer=30)
    harmony = list(game.harmony)
    guess(game, 1, "yellow 3")  # player 2 holds it: to Agony; then Harmony's top card to Agony
    assert game.agony == [c("yellow 3"), harmony[-1]] and game.harmony == harmony[:-1]


def test_faq_empty_hand_and_empty_pile_moves_nothing():
    game = deal(["", "green 8, blue 1", "yellow 3, yellow 4"], first=0)
    guess(game, 1, "purple 9")  # in the timer: wrong, Harmony is empty
    assert game.harmony == [] and game.agony == []
    assert game.current_player() == 1


def test_faq_no_other_player_holds_a_card_add_any_card_to_harmony():
    game = deal(["red 1, red 2", "", ""], first=0)
    mask = game.legal_action_mask()
    assert not mask[game.guess_base : game.choose_base].any()
    assert mask[game.choose_base + c("red 1")] and mask[game.choose_base + c("red 2")]
    choose(game, "red 2")
    assert game.harmony == [c("red 2")]


def test_no_card_in_any_hand_ends_the_game_with_the_timer_in_agony():
    game = deal(["red 1", "", ""], first=0)
    timer = len(game.timer)
    choose(game, "red 1")
    assert game.is_terminal()
    assert len(game.agony) == timer and game.harmony == [c("red 1")]


# ----- timer and end ----------------------------------------------------------------------------
def test_faq_first_flip_just_before_first_players_second_turn():
    game = Expressions(num_players=4, rng=np.random.default_rng(3))
    first = game.current_player()
    rng = np.random.default_rng(0)
    while True:
        assert len(game.timer) == 6
        legal = game.legal_actions()
        plays = [a for a in legal if a < game.guess_base]
        game.apply_action(int(plays[rng.integers(len(plays))]))
        if game.current_player() == first:
            break
    assert len(game.timer) == 5
    assert game.turns_this_round == 0


def test_two_players_flip_two_a_round():
    game = Expressions(num_players=2, rng=np.random.default_rng(3))
    for _ in range(2):
        legal = [a for a in game.legal_actions() if a < game.guess_base]
        game.apply_action(int(legal[0]))
    assert len(game.timer) == 16


def test_game_ends_when_last_timer_card_flips_and_everything_goes_to_agony():
    game = deal(["red 1, red 2, red 3", "green 1, green 2", "blue 1, blue 2"], first=0, timer=1)
    play(game, "red 1", LOWEST)  # stays relevant (red 2, red 3 remain)
    play(game, "green 1", LOWEST)
    play(game, "blue 2", HIGHEST)
    assert game.is_terminal()
    game.check_invariants()
    # Suggestions and hands all in Agony: red 1, red 2, red 3, green 1, green 2, blue 1, blue 2 + timer card
    assert len(game.agony) == 8
    assert game.team_wins() == (len(game.harmony) > len(game.agony))


def test_win_needs_more_harmony_than_agony_and_rewards():
    for reward, expected_loss in (("win_loss", -1.0), ("score", None)):
        game = Expressions(num_players=3, rng=np.random.default_rng(1), reward=reward)
        rng = np.random.default_rng(2)
        while not game.is_terminal():
            legal = game.legal_actions()
            game.apply_action(int(legal[rng.integers(len(legal))]))
        returns = game.returns()
        assert np.all(returns == returns[0])
        if reward == "win_loss":
            assert returns[0] == (1.0 if len(game.harmony) > len(game.agony) else expected_loss)
        else:
            assert returns[0] == len(game.harmony) - len(game.agony)


def test_tie_is_a_loss():
    in_agony = ", ".join(
        f"{color} {n}" for color in ("blue", "purple") for n in range(1, 11) if n > 1 or color != "blue"
    )
    in_agony += ", yellow 9, yellow 10, red 10, green 10"  # 19 + 4 = 23 cards in Agony
    game = deal(["red 1", "green 1"], first=0, mode="hard", timer=1, agony=in_agony)
    assert len(game.harmony) == 24 and len(game.agony) == 23
    play(game, "red 1", LAST)  # stays; then player 1 plays; the flip ends it: 24 vs 23 + 3 = 26
    play(game, "green 1", LAST)
    assert game.is_terminal() and len(game.harmony) == 24 and len(game.agony) == 26
    assert game.returns()[0] == -1.0


def test_normal_two_player_hands_go_to_harmony_hard_to_agony():
    for mode, to_harmony in (("normal", True), ("easy", True), ("hard", False)):
        game = Expressions(num_players=2, mode=mode, rng=np.random.default_rng(4))
        assert game.hands_to_harmony == to_harmony
        held = game.hands[0].bit_count() + game.hands[1].bit_count()
        before = len(game.harmony)
        game._end_game()
        assert (len(game.harmony) - before == held) == to_harmony


def test_easy_mode_plays_one_more_round_after_the_last_flip():
    normal = deal(["red 1, red 2, red 3", "green 1, green 2, green 3"], first=0, timer=2)
    easy = deal(["red 1, red 2, red 3", "green 1, green 2, green 3"], first=0, timer=2, mode="easy")
    for game in (normal, easy):
        play(game, "red 3", HIGHEST)
        play(game, "green 3", HIGHEST)  # end of round: 2 flips, timer empty
    assert normal.is_terminal()
    assert not easy.is_terminal() and easy.final_round
    play(easy, "red 2", HIGHEST)
    play(easy, "green 2", HIGHEST)
    assert easy.is_terminal()


# ----- information -------------------------------------------------------------------------------
def test_observation_holds_own_hand_and_public_guess_history_in_relative_seats():
    game = deal(["red 1, red 2", "green 8, blue 1", "green 10, yellow 4"], first=0)
    guess(game, 1, "green 10")  # wrong: player 2 held it
    choose(game, "red 1")
    for observer in range(3):
        obs = game.observation_dict(observer)
        rel_guesser, rel_target = (0 - observer) % 3, (1 - observer) % 3
        assert obs["guesses"][rel_guesser, rel_target, c("green 10")] == 1
        assert obs["guessed_wrong"][rel_target, c("green 10")] == 1
        assert obs["left_hand"][(2 - observer) % 3, c("green 10")] == 1
        assert obs["agony"][c("red 1")] == 1
        own = {x for x in range(NUM_CARDS) if (game.hands[observer] >> x) & 1}
        assert set(np.flatnonzero(obs["hand"])) == own


def test_resample_respects_public_deductions():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1, yellow 6", "green 10, yellow 4, blue 4"], first=0)
    guess(game, 1, "purple 3")  # wrong (timer): seat 1 does not hold purple 3
    choose(game, "green 5")
    play(game, "green 8", LAST)  # seat 1 has no other green
    play(game, "yellow 4", MORE)  # seat 2 holds another 4 (blue 4) while the Suggestion stays
    rng = np.random.default_rng(0)
    for _ in range(60):
        sample = game.resample_hidden(0, rng)
        sample.check_invariants()
        assert not (sample.hands[1] >> c("purple 3")) & 1
        assert not any((sample.hands[1] >> x) & 1 for x in range(20, 30))  # no green for seat 1
        assert any((sample.hands[2] >> (color * 10 + 3)) & 1 for color in range(5))  # a 4 for seat 2


def test_suggestions_are_public_with_kinds():
    game = deal(["green 6, green 7", "blue 1", "blue 2"], first=0)
    play(game, "green 6", LOWEST)
    for observer in range(3):
        obs = game.observation_dict(observer)
        assert obs["suggestions"][(0 - observer) % 3, LOWEST, c("green 6")] == 1
