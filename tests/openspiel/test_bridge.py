"""The OpenSpiel bridge: every game as a pyspiel.Game, played by OpenSpiel's own tools."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs  # noqa: E402
from envs.core import ConfigError  # noqa: E402
from envs.openspiel import load_game  # noqa: E402

pytest.importorskip("open_spiel.python.algorithms.ismcts")

from .helpers import ismcts_bot  # noqa: E402

SMALL = {name: dict(envs.spec(name).test_configs[0]) for name in envs.GAMES}  # the first listed config
UTILITY = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
    "identical": pyspiel.GameType.Utility.IDENTICAL,
}


def random_moves(state, rng, count):
    for _ in range(count):
        if state.is_terminal():
            return
        state.apply_action(int(rng.choice(state.legal_actions())))


def moves_into_the_game(state, rng, count):
    """`count` random actions that do not end the game (a mid-game state to test on)."""
    for _ in range(count):
        for action in rng.permutation(state.legal_actions()):
            after = state.clone()
            after.apply_action(int(action))
            if not after.is_terminal():
                state.apply_action(int(action))
                break
    assert not state.is_terminal()


def test_random_game_matches_the_engine(case):
    """A random game through pyspiel equals the same actions on a clone of the engine behind it."""
    spec, _, cfg = case
    game = load_game(spec.name, rng_seed=7, **cfg)
    state = game.new_initial_state()
    twin = state.engine.clone()
    rng = np.random.default_rng(7)
    played = []
    while not state.is_terminal():
        p = state.current_player()
        assert p == twin.current_player()
        assert state.legal_actions() == np.flatnonzero(twin.legal_action_mask()).tolist()
        np.testing.assert_array_equal(state.information_state_tensor(p), twin.observation(p))
        assert state.observation_string(p) == twin.to_string(p)
        assert state.returns() == [0.0] * game.num_players()  # the TERMINAL reward model holds
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        twin.apply_action(action)
        played.append(action)
    assert twin.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.history() == played and len(played) <= game.max_game_length()
    assert state.returns() == twin.returns().tolist() == state.rewards()
    assert all(game.min_utility() <= r <= game.max_utility() for r in state.returns())


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_pyspiel_random_sim_test(name):
    """OpenSpiel's own C++ checks (clones, masks, tensors, utilities, lengths) on random games;
    serialize=False: pyspiel's game+state serialization needs the game's rng state (see report)."""
    pyspiel.random_sim_test(
        load_game(name, rng_seed=1, **SMALL[name]), num_sims=2, serialize=False, verbose=False
    )


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_game_type_and_info_follow_our_game_type(name):
    game = load_game(name, **SMALL[name])
    engine = game.new_initial_state().engine
    ours = engine.game_type()
    kind = game.get_type()
    assert kind.short_name == f"tabletop_{name}"
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.utility == UTILITY[ours.utility]
    assert kind.min_num_players <= engine.num_players <= kind.max_num_players
    assert (game.min_utility(), game.max_utility()) == (ours.min_return, ours.max_return)
    assert game.max_game_length() == ours.max_decisions
    assert game.num_distinct_actions() == engine.num_actions and game.num_players() == engine.num_players
    assert game.max_chance_outcomes() == 0
    size = engine.observation_layout.size
    assert game.information_state_tensor_shape() == [size] == game.observation_tensor_shape()


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_past_max_decisions_the_state_is_terminal(name):
    game = load_game(name, rng_seed=3, max_decisions=3, **SMALL[name])
    state = game.new_initial_state()
    random_moves(state, np.random.default_rng(3), 3)
    if not state.engine.is_terminal():  # not ended by the rules within 3 decisions: truncated
        assert state.engine.is_truncated()
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.legal_actions() == [] and game.max_game_length() == 3
    assert state.returns() == state.engine.returns().tolist()


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_pyspiel_load_game_by_name(name):
    n = SMALL[name]["num_players"]
    game = pyspiel.load_game(f"tabletop_{name}(num_players={n},rng_seed=5)")
    assert game.num_players() == n and game.get_parameters()["rng_seed"] == 5
    same = load_game(name, rng_seed=5, num_players=n)
    # the same seed deals the same game, whichever way it was loaded
    assert str(game.new_initial_state()) == str(same.new_initial_state())
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'no_such_option'"):
        pyspiel.load_game(f"tabletop_{name}", {"no_such_option": 1})
    with pytest.raises(ConfigError, match="no_such_option"):
        load_game(name, no_such_option=1)


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_clones_are_independent(name):
    state = load_game(name, rng_seed=11, **SMALL[name]).new_initial_state()
    moves_into_the_game(state, np.random.default_rng(11), 3)
    before, history = str(state), state.history()
    clone = state.clone()
    assert clone.engine is not state.engine and str(clone) == before and clone.history() == history
    random_moves(clone, np.random.default_rng(12), 5)
    assert str(state) == before and state.history() == history
    # the clone carries the rng state: the same actions give the same game
    again = state.clone()
    for action in clone.history()[len(history) :]:
        again.apply_action(action)
    assert str(again) == str(clone)


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_resample_from_infostate_keeps_the_information_state(name):
    state = load_game(name, rng_seed=13, **SMALL[name]).new_initial_state()
    moves_into_the_game(state, np.random.default_rng(13), 4)
    p = state.current_player()
    before = state.engine.state_tensor()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for _ in range(8):
        sample = state.resample_from_infostate(p, sampler)
        assert sample.engine is not state.engine
        assert sample.information_state_string(p) == state.information_state_string(p)
        np.testing.assert_array_equal(sample.information_state_tensor(p), state.information_state_tensor(p))
        assert sample.legal_actions() == state.legal_actions() and sample.history() == state.history()
        changed += not np.array_equal(sample.engine.state_tensor(), before)
        random_moves(sample, np.random.default_rng(14), 5)
        np.testing.assert_array_equal(state.engine.state_tensor(), before)  # the original is untouched
    assert changed > 0  # the hidden part is redrawn


def test_state_serializes_and_deserializes():
    game = load_game("exposed", rng_seed=17, **SMALL["exposed"])
    state = game.new_initial_state()
    moves_into_the_game(state, np.random.default_rng(17), 6)
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_ismcts_decisions(name):
    """OpenSpiel's Python ISMCTS with random rollouts picks legal actions, searching over our
    resample_hidden determinizations, and leaves the real state as it was."""
    game = load_game(name, rng_seed=19, **SMALL[name])
    state = game.new_initial_state()
    bot = ismcts_bot(game, simulations=15, seed=19)
    for _ in range(3):
        if state.is_terminal():
            break
        before, history = str(state), state.history()
        action = bot.step(state)
        assert str(state) == before and state.history() == history
        assert action in state.legal_actions()
        state.apply_action(action)


def test_evaluate_bots_with_ismcts_against_random():
    """pyspiel.evaluate_bots (C++) plays a whole game; the Python evaluate_bots cannot host the Python
    ISMCTSBot (it calls bot.restart_at, which that bot does not implement)."""
    game = load_game("expressions", rng_seed=23, num_players=2)
    bots = [ismcts_bot(game, simulations=5, seed=23), pyspiel.make_uniform_random_bot(1, 23)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 23)
    assert len(returns) == 2 and returns[0] == returns[1]  # Expressions is cooperative (identical)


def test_a_none_default_option_is_set_through_load_game():
    """Exposaurus' `die` defaults to None (by player count): pyspiel parameters cannot hold None,
    so it is not a registered parameter, but load_game passes it to the engine."""
    assert load_game("exposaurus", num_players=3, die=True).new_initial_state().engine.die_variant
    assert not load_game("exposaurus", num_players=2, die=False).new_initial_state().engine.die_variant


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_rl_environment_plays_a_game(name):
    """OpenSpiel's RL interface (its DQN, NFSP, PPO agents) reads the information state tensors."""
    rl_environment = pytest.importorskip("open_spiel.python.rl_environment")
    env = rl_environment.Environment(load_game(name, rng_seed=29, **SMALL[name]))
    rng = np.random.default_rng(29)
    step = env.reset()
    while not step.last():
        p = step.observations["current_player"]
        state = env.get_state
        assert step.observations["info_state"][p] == state.information_state_tensor(p)
        step = env.step([int(rng.choice(step.observations["legal_actions"][p]))])
    assert step.rewards == env.get_state.returns()
