"""The optional public card knowledge pieces (`knowledge=True`): `may_hold` and `must_hold`.

Each test derives what the pieces must say from the rulebook's meaning of the public events, or from
the engine's own bookkeeping (`ruled_out`, `requirements`: written by the rules as they happen, and
what resampling reads), never from the functions that fill the pieces.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import expressions_v0
from envs.core import ConfigError
from envs.expressions.baseline import ScriptedExpressionsPolicy
from envs.expressions.data import HIGHEST, LAST, LOWEST, MORE, NUM_CARDS
from envs.expressions.rules import Expressions, ExpressionsConfig, observation_layout
from envs.expressions_v0 import SPEC

from .test_information import deductions_in_observation, random_states, record_game, replay_on
from .test_rules import c, cards, choose, deal, guess, play

KNOWLEDGE_CONFIGS = [
    {"num_players": 4, "knowledge": True},
    {"num_players": 2, "knowledge": True},
    {"num_players": 5, "mode": "easy", "knowledge": True},
]


def face_up(game: Expressions) -> np.ndarray:
    return np.array([(game.face_up >> x) & 1 for x in range(NUM_CARDS)], dtype=bool)


def expected_pieces(game: Expressions, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """may_hold and must_hold of a seat (absolute) from the engine's bookkeeping: hidden and not
    ruled out; 1/k for the smallest requirement, cut to those cards, that holds the card."""
    may = ~face_up(game) & np.array([not (game.ruled_out[seat] >> x) & 1 for x in range(NUM_CARDS)])
    must = np.zeros(NUM_CARDS)
    for requirement in game.requirements(seat):
        members = may & np.array([bool((requirement >> x) & 1) for x in range(NUM_CARDS)])
        must[members] = np.maximum(must[members], 1.0 / members.sum())
    return may, must


# ----- the option ------------------------------------------------------------------------------------
def test_knowledge_is_off_by_default_and_adds_two_pieces_after_the_others():
    default = Expressions(num_players=4).observation_layout
    assert "may_hold" not in default.names() and default is observation_layout(4)
    knowing = Expressions(num_players=4, knowledge=True).observation_layout
    assert knowing.names() == [*default.names(), "may_hold", "must_hold"]
    for piece in default:  # every existing piece keeps its place
        assert knowing[piece.name].offset == piece.offset and knowing[piece.name].shape == piece.shape
    for name in ("may_hold", "must_hold"):
        piece = knowing[name]
        assert piece.shape == (4, NUM_CARDS) and piece.axes == ("seat", "card")
        assert (piece.low, piece.high) == (0.0, 1.0)
    assert expressions_v0.env(num_players=4).observation_space("player_0")["observation"].shape == (
        default.size,
    )


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_knowledge_must_be_true_or_false(bad):
    with pytest.raises(ConfigError, match="knowledge"):
        ExpressionsConfig(num_players=4, knowledge=bad).validate()
    with pytest.raises(ConfigError, match="knowledge"):
        Expressions(num_players=4, knowledge=bad)
    with pytest.raises(ConfigError, match="knowledge"):
        expressions_v0.env(num_players=4, knowledge=bad)


# ----- what the pieces say, from the rulebook -----------------------------------------------------------
def knowledge_example() -> Expressions:
    """Three seats. Seat 0 plays purple 4 as Lowest with no other purple: irrelevant at once, to Agony.
    Seat 1 plays green 8 as Highest (holding green 3): relevant, no green 9 or 10. Seat 2 plays blue 5
    as More (holding red 5). The First Player flips the Timer Stack's top (purple 10). Seat 0 names
    green 5 in seat 1's hand: wrong, and nobody holds it (Timer Stack); seat 0 adds yellow 1 to Agony.
    Seat 1 plays yellow 2 as Last. Seat 2 plays red 2 as Lowest (holding red 5, red 7): no red 1.
    The timer flips again (purple 9)."""
    game = deal(
        ["purple 4, green 1, yellow 1", "green 8, green 3, yellow 2", "blue 5, red 5, red 2, red 7"],
        first=0,
        knowledge=True,
    )
    play(game, "purple 4", LOWEST)
    play(game, "green 8", HIGHEST)
    play(game, "blue 5", MORE)
    guess(game, 1, "green 5")
    choose(game, "yellow 1")
    play(game, "yellow 2", LAST)
    play(game, "red 2", LOWEST)
    assert set(cards("purple 4, yellow 1, purple 10, purple 9")) == set(game.agony)
    return game


def test_pieces_say_what_the_public_events_mean():
    game = knowledge_example()
    hidden = ~face_up(game)
    purple = set(cards("purple 1, purple 2, purple 3, purple 5, purple 6, purple 7, purple 8"))
    greens = cards("green 1, green 2, green 3, green 4, green 6, green 7")  # hidden, may be seat 1's
    fives = cards("red 5, yellow 5, purple 5")  # blue 5 is face up, green 5 in the Timer Stack
    reds = cards("red 3, red 4, red 5, red 6, red 7, red 8, red 9, red 10")  # red 1 ruled out, red 2 up
    not_held = {
        0: purple | {c("green 5")},  # the irrelevant Lowest: no purple left; green 5 lies in the timer
        1: set(cards("green 9, green 10, green 5"))
        | set(cards("yellow 3, yellow 4, yellow 5, yellow 6"))
        | set(cards("yellow 7, yellow 8, yellow 9, yellow 10")),  # Highest green 8; Last yellow 2
        2: {c("red 1"), c("green 5")},  # Lowest red 2
    }
    for observer in range(3):
        obs = game.observation_dict(observer)
        for seat in range(3):
            rel = (seat - observer) % 3
            expected = hidden.copy()
            expected[sorted(not_held[seat])] = False
            assert np.array_equal(obs["may_hold"][rel] > 0, expected), (observer, seat)
        seat1, seat2 = (1 - observer) % 3, (2 - observer) % 3
        must = obs["must_hold"]
        assert not must[(0 - observer) % 3].any()  # seat 0 has no relevant Suggestion
        assert np.flatnonzero(must[seat1]).tolist() == sorted(greens)
        assert np.allclose(must[seat1, greens], 1 / 6)  # a green, one of six (the observer's included)
        assert np.allclose(must[seat2, fives], 1 / 3)  # a 5, one of three: the smallest set holding red 5
        assert np.allclose(must[seat2, [c("red 3"), c("red 10")]], 1 / 8)  # a red, one of eight
        assert set(np.flatnonzero(must[seat2]).tolist()) == set(fives) | set(reds)
    # the observer's own hand is not removed: green 1 (seat 0's) counts for seat 1 in seat 0's view too
    assert game.observation_dict(0)["may_hold"][1, c("green 1")] == 1


# ----- the pieces along random games ---------------------------------------------------------------------
@pytest.mark.parametrize("config", KNOWLEDGE_CONFIGS, ids=str)
def test_pieces_are_the_engines_public_deductions_in_random_games(config):
    """In every state of random games, for every observer and seat: the pieces are the engine's
    `ruled_out` / `requirements` (the facts resampling keeps), and agree with the deductions a reader
    of the public history makes (test_information's own derivation)."""
    states = 0
    for game in random_states(config, games=10, seed=21, share=0.5):
        n = game.num_players
        for observer in range(n):
            obs = game.observation_dict(observer)
            ruled, required = deductions_in_observation(obs, n)
            for rel in range(n):
                seat = (observer + rel) % n
                may, must = expected_pieces(game, seat)
                assert np.array_equal(obs["may_hold"][rel] > 0, may), (seat, game.to_string())
                assert np.allclose(obs["must_hold"][rel], must), (seat, game.to_string())
                read = np.ones(NUM_CARDS, dtype=bool)
                read[sorted(ruled[rel])] = False
                assert np.array_equal(may, read & ~face_up(game))
                assert (obs["must_hold"][rel] > 0).sum() == len(
                    set().union(*required[rel]) & set(np.flatnonzero(may))
                )
        states += 1
    assert states > 50


@pytest.mark.parametrize("config", KNOWLEDGE_CONFIGS[:2], ids=str)
def test_pieces_are_public_a_resampled_deal_replays_every_observation(config):
    """Replay the whole public history on deals resampled for a seat: the seat's observations, the
    knowledge pieces recomputed along the replay included, are the same at every step."""
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(4):
        record = record_game(config, seed)
        for upto, state in record["states"][::2]:
            for player in range(state.num_players):
                replay_on(state.resample_hidden(player, rng), record, upto, state, player)
                checked += 1
    assert checked > 20


def test_pieces_refresh_after_every_action_and_copy():
    """A stale piece would show the deductions of an earlier table: a game and its clone, each read
    before every action, and a resample at every step agree with a fresh recomputation."""
    game = SPEC.new_game(np.random.default_rng(9), num_players=3, knowledge=True)
    twin = game.clone()
    rng = np.random.default_rng(10)
    while not game.is_terminal():
        for view in (game, twin, game.resample_hidden(int(rng.integers(3)), rng)):
            for seat in range(3):
                may, must = expected_pieces(view, seat)
                obs = view.observation_dict(seat)
                assert np.array_equal(obs["may_hold"][0] > 0, may) and np.allclose(obs["must_hold"][0], must)
        legal = game.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        game.apply_action(action)
        twin.apply_action(action)
    assert not game.observation_dict(0)["may_hold"].any()  # at the end every card is face up


# ----- the scripted player reads the same deductions from the history ---------------------------------
def test_scripted_player_decides_the_same_with_knowledge_on():
    """The scripted player deduces from the history (the shared `may_hold` / `must_hold`), so the
    knowledge pieces change none of its decisions."""
    for seed in range(6):
        games = [
            Expressions(num_players=4, knowledge=flag, rng=np.random.default_rng(seed))
            for flag in (False, True)
        ]
        policies = [ScriptedExpressionsPolicy(g.config) for g in games]
        while not games[0].is_terminal():
            p = games[0].current_player()
            a, b = (pol(g.observation(p), g.legal_action_mask()) for pol, g in zip(policies, games))
            assert a == b
            for g in games:
                g.apply_action(a)
