"""What the table knows: the observation is an information state, and resampling keeps every public fact.

Each test re-derives the public facts independently of the engine's bookkeeping: from the observation
alone (what a memoryless agent sees), or by replaying the whole public history on a resampled deal.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.expressions.data import HIGHEST, LAST, LOWEST, MORE, NUM_CARDS
from envs.expressions.rules import Expressions
from envs.expressions_v0 import SPEC

from .test_rules import c, deal, guess, play


def color(card: int) -> int:
    return card // 10


def number(card: int) -> int:
    return card % 10 + 1


def same_color(card: int) -> set[int]:
    return {x for x in range(NUM_CARDS) if color(x) == color(card)}


def same_number(card: int) -> set[int]:
    return {x for x in range(NUM_CARDS) if number(x) == number(card)}


def told_not_held(card: int, kind: int) -> set[int]:
    """What a truthful Suggestion says its player does not hold once the card is played."""
    if kind == HIGHEST:
        return {x for x in same_color(card) if number(x) > number(card)}
    if kind == LOWEST:
        return {x for x in same_color(card) if number(x) < number(card)}
    if kind == LAST:
        return same_color(card)
    return set()


def deductions_in_observation(obs: dict, n: int) -> tuple[list[set[int]], list[list[set[int]]]]:
    """Per relative seat: the cards it cannot hold and the card sets it must hold one of, read from the
    observation alone, by the rules' own reasoning (hands never grow, Suggestions are truthful and stay
    exactly while relevant, a wrong guess's card goes to Agony from whoever holds it)."""
    nobody_held = {
        x for x in range(NUM_CARDS) if obs["guessed_wrong"][:, x].any() and not obs["left_hand"][:, x].any()
    }
    ruled_out, required = [], []
    for s in range(n):
        out = set(nobody_held) | set(np.flatnonzero(obs["guessed_wrong"][s]).tolist())
        need = []
        for kind in range(4):
            for card in np.flatnonzero(obs["suggestions"][s, kind]).tolist():
                out |= told_not_held(card, kind)
                if kind != LAST:
                    need.append(same_number(card) if kind == MORE else same_color(card))
            for card in np.flatnonzero(obs["past_suggestions"][s, kind]).tolist():
                out |= told_not_held(card, kind)
                if kind != LAST:  # it left the table because the hand lost that color / number
                    out |= same_number(card) if kind == MORE else same_color(card)
        ruled_out.append(out)
        required.append(need)
    return ruled_out, required


def engine_deductions(game: Expressions, seat: int) -> tuple[set[int], list[set[int]]]:
    ruled = {x for x in range(NUM_CARDS) if (game.ruled_out[seat] >> x) & 1}
    need = [{x for x in range(NUM_CARDS) if (req >> x) & 1} for req in game.requirements(seat)]
    return ruled, need


def unknown_to(game: Expressions, player: int) -> set[int]:
    return {x for x in range(NUM_CARDS) if not (game.face_up >> x) & 1 and not (game.hands[player] >> x) & 1}


def random_states(config: dict, games: int, seed: int, share: float = 0.2):
    """Non-terminal states met in random games (each a clone)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        game = SPEC.new_game(np.random.default_rng(int(rng.integers(2**31))), **config)
        while not game.is_terminal():
            if rng.random() < share:
                yield game.clone()
            legal = game.legal_actions()
            game.apply_action(int(legal[rng.integers(len(legal))]))


# ----- issue 12, item 1: a wrong guess that nobody held puts the card in the Timer Stack for everyone ---
def test_card_named_wrongly_and_held_by_nobody_stays_in_the_timer_in_every_resample():
    deck = [x for x in np.random.default_rng(5).permutation(NUM_CARDS).tolist() if x != c("purple 5")]
    hands = [deck[11 * p : 11 * (p + 1)] for p in range(4)]
    timer = deck[44:] + [c("purple 5")]
    game = Expressions(num_players=4, rng=np.random.default_rng(0))
    game.set_deal(hands, timer, first_player=0)
    guess(game, 1, "purple 5")  # seat 0 names purple 5 in seat 1's hand; nobody holds it
    assert game.agony == []
    rng = np.random.default_rng(1)
    for _ in range(100):
        sample = game.resample_hidden(2, rng)
        assert c("purple 5") in sample.timer, "every seat knows purple 5 lies in the Timer Stack"


# ----- issue 12, item 2: the observation keeps the kinds of Suggestions that left the table ---------
def issue_example(first_kind: int) -> Expressions:
    """Seat 0 plays green 9 (as `first_kind`) then red 9 as Highest; both go to Agony."""
    game = deal(
        ["green 9, red 9, blue 1, blue 2", "yellow 1, yellow 2, yellow 3", "purple 1, purple 2, purple 3"],
        first=0,
    )
    play(game, "green 9", first_kind)
    play(game, "yellow 3", HIGHEST)
    play(game, "purple 3", HIGHEST)
    play(game, "red 9", HIGHEST)
    assert {c("green 9"), c("red 9")} <= set(game.agony) and not game.suggestions.get(c("green 9"))
    return game


def test_issue_example_suggestion_kinds_stay_visible_after_they_go_to_agony():
    more, highest = issue_example(MORE), issue_example(HIGHEST)
    # the engine's deductions differ: no 9 left in seat 0 (More) vs no green left (Highest)
    assert engine_deductions(more, 0)[0] != engine_deductions(highest, 0)[0]
    assert not np.array_equal(more.observation(1), highest.observation(1))
    for game in (more, highest):
        for observer in (1, 2):
            ruled, _ = deductions_in_observation(game.observation_dict(observer), 3)
            unknown = unknown_to(game, observer)
            assert ruled[(0 - observer) % 3] & unknown == engine_deductions(game, 0)[0] & unknown
    obs = more.observation_dict(1)
    assert obs["past_suggestions"][(0 - 1) % 3, MORE, c("green 9")] == 1
    assert obs["past_suggestions"][(0 - 1) % 3, HIGHEST, c("red 9")] == 1


@pytest.mark.parametrize("config", SPEC.test_configs, ids=str)
def test_observation_alone_gives_every_deduction_the_engine_keeps(config):
    """A memoryless agent reads from its observation exactly the facts the engine resamples with."""
    for game in random_states(config, games=15, seed=3):
        n = game.num_players
        for observer in range(n):
            ruled, required = deductions_in_observation(game.observation_dict(observer), n)
            unknown = unknown_to(game, observer)
            for rel in range(1, n):
                seat = (observer + rel) % n
                engine_ruled, engine_required = engine_deductions(game, seat)
                assert ruled[rel] & unknown == engine_ruled & unknown, (seat, game.to_string())
                assert sorted(map(sorted, required[rel])) == sorted(map(sorted, engine_required))


# ----- issue 12, "also": resampled deals agree with the whole public history -------------------------
def record_game(config: dict, seed: int) -> dict:
    """A random game with its set-up, every action, and every seat's observation before each action."""
    rng = np.random.default_rng(seed)
    game = SPEC.new_game(np.random.default_rng(seed), **config)
    record = {
        "game": game,
        "hands": [list(_cards(h)) for h in game.hands],
        "timer": list(game.timer),
        "first": game.first_player,
        "actions": [],
        "observations": [],
        "states": [],
    }
    while not game.is_terminal():
        if rng.random() < 0.25:
            record["states"].append((len(record["actions"]), game.clone()))
        legal = game.legal_actions()
        record["observations"].append([game.observation(p) for p in range(game.num_players)])
        action = int(legal[rng.integers(len(legal))])
        record["actions"].append(action)
        game.apply_action(action)
    return record


def _cards(bits: int) -> list[int]:
    return [x for x in range(NUM_CARDS) if (bits >> x) & 1]


def replay_on(sample: Expressions, record: dict, upto: int, state: Expressions, player: int) -> None:
    """Rebuild the deal the sample implies (its hands plus the cards that left each seat since the
    deal, which are public; its timer below the cards flipped so far) and replay every public action:
    each must be legal and leave `player`'s observation as it was in the real game."""
    n = sample.num_players
    left = [set(record["hands"][p]) - set(_cards(state.hands[p])) for p in range(n)]
    hands = [sorted(set(_cards(sample.hands[p])) | left[p]) for p in range(n)]
    timer = list(sample.timer) + record["timer"][len(state.timer) :]
    replay = Expressions(sample.config, rng=np.random.default_rng(0))
    replay.set_deal(hands, timer, first_player=record["first"])
    for step, action in enumerate(record["actions"][:upto]):
        assert np.array_equal(replay.observation(player), record["observations"][step][player]), (
            f"step {step}: the resampled deal contradicts what seat {player} saw"
        )
        assert replay.legal_action_mask()[action], (
            f"step {step}: {replay.action_to_string(action)} impossible"
        )
        replay.apply_action(action)
    assert np.array_equal(replay.observation(player), state.observation(player))
    assert replay.hands == sample.hands and replay.timer == sample.timer


@pytest.mark.parametrize("config", SPEC.test_configs, ids=str)
def test_resampled_deals_agree_with_the_whole_public_history(config):
    rng = np.random.default_rng(11)
    checked = 0
    for seed in range(8):
        record = record_game(config, seed)
        for upto, state in record["states"]:
            for player in range(state.num_players):
                for _ in range(3):
                    replay_on(state.resample_hidden(player, rng), record, upto, state, player)
                    checked += 1
    assert checked > 50
