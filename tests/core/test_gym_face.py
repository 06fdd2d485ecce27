"""The single-seat Gymnasium face: opponents, seats, and episodes that start at a learner decision."""

from __future__ import annotations

import importlib
import pickle
import re
from dataclasses import dataclass

import gymnasium
import numpy as np
import pytest

import envs
from envs.core import GameSpec, GameType, RandomPolicy
from envs.core.errors import OrderError
from envs.core.gym_env import SingleSeatEnv
from envs.core.players import PLAYERS, either
from envs.core.render import view_title

from .helpers import TwoSeatToy


@dataclass(frozen=True)
class SuddenConfig:
    num_players: int = 2
    end_at_once: float = 0.5  # chance that seat 0's first move ends the game
    max_decisions: int = 10


class SuddenGame(TwoSeatToy):
    """Seat 0 moves, and with some chance (drawn at set-up) that ends the game; then seat 1 moves."""

    name = "sudden"
    config_class = SuddenConfig

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        self.doomed = bool(self.rng.random() < self.config.end_at_once)

    def current_player(self):
        return -1 if self.is_terminal() else self.moves

    def is_terminal(self):
        return self.moves >= 2 or (self.doomed and self.moves == 1)

    def _apply(self, action):
        self.moves += 1

    def returns(self):
        return np.zeros(2)

    def game_type(self):
        return GameType("zero_sum", "none", 0.0, 0.0, self.config.max_decisions)


def sudden_spec(**config) -> GameSpec:
    return GameSpec("sudden", "Sudden", SuddenGame, test_configs=({},), benchmark_config={})


def test_episode_starts_at_a_learner_decision_even_if_some_deals_end_first():
    env = SingleSeatEnv(sudden_spec(), seat=1)
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        assert env.game.current_player() == 1 and info["action_mask"].any()


def test_a_seat_that_never_acts_is_a_clear_error():
    env = SingleSeatEnv(sudden_spec(), seat=1, end_at_once=1.0)
    with pytest.raises(RuntimeError, match="never got a decision"):
        env.reset(seed=0)


def test_opponent_policies_play_the_other_seats():
    calls = []

    def opponent(observation, mask):
        calls.append(observation.copy())
        return 1

    env = SingleSeatEnv(sudden_spec(), seat=1, opponents=opponent, end_at_once=0.0)
    env.reset(seed=0)
    assert len(calls) == 1 and env.game.moves == 1
    with pytest.raises(ValueError, match="one opponent policy per seat"):
        SingleSeatEnv(sudden_spec(), opponents=[opponent])


def test_opponents_may_write_to_their_mask():
    def greedy_scribbler(observation, mask):
        action = int(np.flatnonzero(mask)[0])
        mask[:] = False  # a policy that reuses its mask as scratch space
        return action

    env = SingleSeatEnv(sudden_spec(), seat=1, opponents=greedy_scribbler, end_at_once=0.0)
    obs, info = env.reset(seed=0)
    assert env.game.moves == 1 and info["action_mask"].all()


class SeatAwarePolicy:
    """A policy with the optional hooks: one copy per seat, told when a new game starts."""

    def __init__(self, seat=None, log=None):
        self.seat, self.log = seat, log if log is not None else []

    def for_seat(self, seat):
        return SeatAwarePolicy(seat, self.log)

    def reset(self):
        self.log.append(("reset", self.seat))

    def __call__(self, observation, mask):
        self.log.append(("act", self.seat))
        return 0


def test_policy_hooks_give_each_seat_its_own_policy_and_a_reset_per_game():
    policy = SeatAwarePolicy()
    env = SingleSeatEnv(sudden_spec(), seat=1, opponents=policy, end_at_once=0.0)
    env.reset(seed=0)
    assert ("act", 0) in policy.log and ("reset", 0) in policy.log and ("reset", 1) in policy.log
    assert policy.log.index(("reset", 0)) < policy.log.index(("act", 0))
    policy.log.clear()
    env.reset(seed=1)
    assert policy.log.count(("reset", 0)) == 1


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_registered_length_limit_covers_every_configuration(name):
    spec = envs.spec(name)
    registered = gymnasium.spec(spec.gym_id).max_episode_steps
    assert registered == spec.max_episode_steps
    for config in spec.test_configs:
        assert spec.new_game(np.random.default_rng(0), **config).game_type().max_decisions <= registered


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_envs_pickle_and_run_in_async_vector_envs(name):
    spec = envs.spec(name)
    assert pickle.loads(pickle.dumps(spec)) is spec
    env = gymnasium.make(spec.gym_id, opponents=RandomPolicy(1))
    obs, info = env.reset(seed=0)
    copy = pickle.loads(pickle.dumps(env.unwrapped))
    assert np.array_equal(copy.game.observation(copy.seat), obs)
    aec = importlib.import_module(f"envs.{name}_v0").env()
    aec.reset(seed=2)
    aec_copy = pickle.loads(pickle.dumps(aec))
    agent = aec.agent_selection
    assert aec_copy.agent_selection == agent
    assert np.array_equal(aec_copy.observe(agent)["observation"], aec.observe(agent)["observation"])
    vec = gymnasium.make_vec(
        spec.gym_id, num_envs=2, vectorization_mode="async", opponents=RandomPolicy(2), seat=0
    )
    try:
        obs, infos = vec.reset(seed=3)
        assert obs.shape == (2, *env.observation_space.shape)
        rng = np.random.default_rng(0)
        for _ in range(5):
            masks = infos["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, terminated, truncated, infos = vec.step(actions)
            assert vec.observation_space.contains(obs)
            if (terminated | truncated).any():
                break  # autoreset steps need no mask
    finally:
        vec.close()


def test_bad_seat_and_step_before_reset_are_clear_errors():
    for seat in (1.5, "0", True, -1, 2):
        with pytest.raises(ValueError, match="seat must be None"):
            SingleSeatEnv(sudden_spec(), seat=seat)
    env = SingleSeatEnv(sudden_spec(), seat=np.int64(1), end_at_once=0.0)
    with pytest.raises(OrderError, match="before reset"):
        env.step(0)
    obs, info = env.reset(seed=0)
    assert env.seat == 1 and info["action_mask"].any()


def test_an_unknown_opponent_name_lists_the_names_and_suggests_the_closest():
    """The names come from the registry of players: the built-in ones first, then those the training
    package adds when it is imported ('reference', 'search:<run>', a run directory, a checkpoint file)."""
    names = f"use {either([*PLAYERS.labels(), 'a policy'])}"
    assert names.startswith("use 'random', 'scripted', 'search'") and names.endswith(" or a policy")
    with pytest.raises(
        ValueError, match=re.escape(f"unknown opponent 'randm': {names}; did you mean 'random'?")
    ):
        gymnasium.make("tabletop/Exposed-v0", opponents="randm")
    with pytest.raises(
        ValueError, match=re.escape(f"unknown opponent 'scriptd': {names}; did you mean 'scripted'?")
    ):
        SingleSeatEnv(sudden_spec(), opponents=["random", "scriptd"])
    with pytest.raises(ValueError, match=re.escape(f"unknown opponent 'alphazero': {names}")) as caught:
        SingleSeatEnv(sudden_spec(), opponents="alphazero")
    assert "did you mean" not in str(caught.value)  # nothing close: no suggestion


@pytest.mark.parametrize("view", ["learner", "table"])
def test_render_view_says_whose_view_it_is(view):
    env = gymnasium.make("tabletop/Expressions-v0", render_mode="ansi", render_view=view, seat=2)
    env.reset(seed=0)
    first_line = env.render().splitlines()[0]
    assert first_line == view_title(2 if view == "learner" else None)
    with pytest.raises(ValueError, match="render_view"):
        SingleSeatEnv(sudden_spec(), render_view=0)


def test_aec_render_view_follows_the_player_to_move():
    from envs import exposed_v0

    env = exposed_v0.env(render_mode="ansi", render_view="current", num_players=3)
    env.reset(seed=1)
    mover = env.unwrapped.game.current_player()
    assert env.render().splitlines()[0] == view_title(mover)
    env = exposed_v0.env(render_mode="ansi", num_players=3)  # the default: the whole table
    env.reset(seed=1)
    assert env.render().splitlines()[0] == view_title(None)
    with pytest.raises(ValueError, match="render_view"):
        exposed_v0.env(render_view=3, num_players=3)
