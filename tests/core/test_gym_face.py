"""The single-seat Gymnasium face: opponents, seats, and episodes that start at a learner decision."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from envs.core import Game, GameSpec, Layout
from envs.core.gym_env import SingleSeatEnv


@dataclass(frozen=True)
class SuddenConfig:
    num_players: int = 2
    end_at_once: float = 0.5  # chance that seat 0's first move ends the game


class SuddenGame(Game):
    """Seat 0 moves, and with some chance (drawn at set-up) that ends the game; then seat 1 moves."""

    name = "sudden"
    config_class = SuddenConfig

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        self.num_players, self.num_actions = 2, 2
        self.observation_layout = self.state_layout = Layout([("moves", (1,), "moves made")])
        self.doomed = bool(self.rng.random() < self.config.end_at_once)
        self.moves = 0

    def current_player(self):
        return -1 if self.is_terminal() else self.moves

    def is_terminal(self):
        return self.moves >= 2 or (self.doomed and self.moves == 1)

    def _legal_mask(self):
        return np.ones(2, dtype=bool)

    def _apply(self, action):
        self.moves += 1

    def observation(self, player):
        return np.array([self.moves], dtype=np.float32)

    def state_tensor(self):
        return self.observation(0)

    def returns(self):
        return np.zeros(2)

    def resample_hidden(self, player, rng):
        return self.clone()

    def action_to_string(self, action):
        return str(action)

    def to_string(self, player=None):
        return f"moves {self.moves}"


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
