"""The checks every game passes, run on every registered game and every test configuration."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from envs.core import ConfigError, IllegalActionError, OrderError, golden

from .helpers import random_playthrough, snapshot

RANDOM_GAMES = 200


def test_pettingzoo_api(case):
    spec, face, cfg = case
    api_test(face.env(**cfg), num_cycles=300)
    api_test(face.raw_env(**cfg), num_cycles=300)


def test_pettingzoo_seed(case):
    spec, face, cfg = case
    seed_test(lambda: face.env(**cfg), num_cycles=300)


def test_random_games_keep_invariants(case):
    spec, face, cfg = case
    rng = np.random.default_rng(123)
    lengths = []
    for _ in range(RANDOM_GAMES):
        game = spec.new_game(np.random.default_rng(int(rng.integers(2**31))), **cfg)
        lengths.append(random_playthrough(game, rng, on_state=lambda g: g.check_invariants()))
        game.check_invariants()
        returns = np.asarray(game.returns())
        assert returns.shape == (game.num_players,) and np.all(np.isfinite(returns))
        assert not game.legal_action_mask().any()
        assert game.current_player() == -1
    assert min(lengths) > 0


def test_observations_match_their_layout(case):
    spec, face, cfg = case
    game = spec.new_game(np.random.default_rng(5), **cfg)
    rng = np.random.default_rng(6)

    def check(g):
        for p in range(g.num_players):
            obs = g.observation(p)
            assert obs.dtype == np.float32 and obs.shape == (g.observation_layout.size,)
            assert np.all(np.isfinite(obs))
        state = g.state_tensor()
        assert state.dtype == np.float32 and state.shape == (g.state_layout.size,)
        assert g.legal_action_mask().shape == (g.num_actions,)

    random_playthrough(game, rng, on_state=check)


def test_no_observation_leaks_hidden_information(case):
    """resample_hidden(p) keeps p's observation (and mask on p's turn) while the hidden part changes."""
    spec, face, cfg = case
    rng = np.random.default_rng(7)
    min_changed = spec.extra.get("leak_min_changed_share", 0.25)
    samples = changed = 0
    for g_index in range(12):
        game = spec.new_game(np.random.default_rng(100 + g_index), **cfg)
        states: list = []
        random_playthrough(
            game, rng, on_state=lambda g, kept=states: kept.append(g.clone()) if rng.random() < 0.15 else None
        )
        states.append(game.clone())
        for state in states:
            before = snapshot(state)
            for p in range(state.num_players):
                sample = state.resample_hidden(p, rng)
                assert np.array_equal(sample.observation(p), state.observation(p)), (
                    f"observation of player {p} changed under resample_hidden({p}): it leaks hidden information"
                )
                if not state.is_terminal() and state.current_player() == p:
                    assert np.array_equal(sample.legal_action_mask(), state.legal_action_mask()), (
                        f"legal mask of player {p} changed under resample_hidden({p})"
                    )
                assert sample.current_player() == state.current_player()
                sample.check_invariants()
                samples += 1
                changed += not np.array_equal(sample.state_tensor(), state.state_tensor())
                if rng.random() < 0.1:  # a resampled state must be a playable game
                    random_playthrough(sample.clone(), rng)
            assert snapshot(state) == before, "resample_hidden must not change the original game"
    assert changed / samples >= min_changed, f"hidden state changed in only {changed}/{samples} samples"


def test_illegal_actions_raise_and_change_nothing(case):
    spec, face, cfg = case
    game = spec.new_game(np.random.default_rng(11), **cfg)
    rng = np.random.default_rng(12)

    def try_illegal(g):
        before = snapshot(g)
        mask = g.legal_action_mask()
        illegal = np.flatnonzero(~mask)
        bad = [-1, g.num_actions, g.num_actions + 7, 1.5, "1", None, True]
        if len(illegal):
            bad.append(int(illegal[rng.integers(len(illegal))]))
        for action in bad:
            with pytest.raises(IllegalActionError):
                g.apply_action(action)
            assert snapshot(g) == before
        legal = int(np.flatnonzero(mask)[0])
        wrong = (g.current_player() + 1) % g.num_players
        if g.num_players > 1:
            with pytest.raises(IllegalActionError, match="turn"):
                g.apply_action(legal, player=wrong)
            assert snapshot(g) == before

    random_playthrough(game, rng, on_state=lambda g: try_illegal(g) if rng.random() < 0.3 else None)
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="over"):
        game.apply_action(0)
    assert snapshot(game) == before


def test_env_rejects_illegal_and_out_of_order_calls(case):
    spec, face, cfg = case
    env = face.env(**cfg)
    with pytest.raises(OrderError):
        env.step(0)
    with pytest.raises(OrderError):
        env.observe("player_0")
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    if len(illegal):
        before = snapshot(env.unwrapped.game)
        with pytest.raises(IllegalActionError):
            env.step(int(illegal[0]))
        assert snapshot(env.unwrapped.game) == before
    penalized = face.env(illegal_action="penalize", **cfg)
    penalized.reset(seed=3)
    offender = penalized.agent_selection
    if len(illegal):
        penalized.step(int(illegal[0]))
        assert penalized.terminations[offender] and penalized.rewards[offender] == -1.0
        assert all(penalized.rewards[a] == 0 for a in penalized.agents if a != offender)


def test_bad_config_is_a_clear_error(case):
    spec, face, cfg = case
    with pytest.raises(ConfigError, match="unknown option"):
        face.env(no_such_option=1, **cfg)
    with pytest.raises(ConfigError, match="num_players"):
        face.env(**{**cfg, "num_players": 99})


def test_golden_playthroughs_replay_exactly(case):
    spec, face, cfg = case
    path = golden.golden_path(spec, cfg, 0)
    assert path.exists(), f"missing {path}; run scripts/regenerate_golden.py {spec.name}"
    golden.replay(spec, path)
    other = golden.golden_path(spec, cfg, 1)
    if other.exists():
        golden.replay(spec, other)


def test_gymnasium_face_passes_the_checker(case):
    spec, face, cfg = case
    check_env(gymnasium.make(spec.gym_id, illegal_action="penalize", **cfg).unwrapped, skip_render_check=True)
    env = gymnasium.make(spec.gym_id, **cfg)
    obs, info = env.reset(seed=1)
    illegal = np.flatnonzero(~env.unwrapped.action_masks())
    with pytest.raises(IllegalActionError):
        env.step(int(illegal[0]))
    assert env.observation_space.contains(obs)
    assert info["action_mask"].any()
    terminated = False
    while not terminated:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))


def test_render_modes(case):
    spec, face, cfg = case
    for mode in ("ansi", "rgb_array"):
        env = face.env(render_mode=mode, **cfg)
        env.reset(seed=2)
        out = env.render()
        if mode == "ansi":
            assert isinstance(out, str) and out
        else:
            assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
            assert out.shape[0] > 50 and out.shape[1] > 50
            assert len(np.unique(out.reshape(-1, 3), axis=0)) > 3  # a real picture, not a blank


def test_same_seed_same_game(case):
    spec, face, cfg = case

    def play(seed):
        env = face.env(**cfg)
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            trace.append((agent, action, obs["observation"].tobytes(), reward))
            env.step(action)
        return trace

    assert play(9) == play(9)
    first_seats = set()
    for seed in range(40):
        env = face.env(**cfg)
        env.reset(seed=seed)
        first_seats.add(env.agent_selection)
    assert len(first_seats) > 1, "the starting seat must be random"
