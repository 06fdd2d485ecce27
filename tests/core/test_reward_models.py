"""The declared reward model: the faces pay along the game only where returns may change before the end."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from envs.core import GameSpec, GameType
from envs.core.face import make_faces
from envs.core.gym_env import SingleSeatEnv

from .helpers import TwoSeatToy


@dataclass(frozen=True)
class TallyConfig:
    num_players: int = 2
    reward_model: str = "rewards"
    max_decisions: int = 20


class TallyGame(TwoSeatToy):
    """Two seats alternate four moves; action 1 scores a point for the mover. Under the "rewards" model
    the return is the running score; under "terminal" it is paid only when the game ends."""

    name = "tally"
    config_class = TallyConfig

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        self.score = np.zeros(2)

    def current_player(self):
        return -1 if self.is_terminal() else self.moves % 2

    def is_terminal(self):
        return self.moves >= 4

    def _apply(self, action):
        self.score[self.moves % 2] += action
        self.moves += 1

    def returns(self):
        if self.config.reward_model == "terminal" and not self.is_terminal():
            return np.zeros(2)
        return self.score.copy()

    def game_type(self):
        model = self.config.reward_model
        return GameType("general_sum", "none", 0.0, 2.0, self.config.max_decisions, reward_model=model)


@pytest.mark.parametrize("model", ["rewards", "terminal"])
def test_the_aec_face_pays_along_only_under_the_rewards_model(model):
    _raw_env, env = make_faces(TallyGame)
    env = env(reward_model=model)
    env.reset(seed=0)
    paid, paid_before_the_end = np.zeros(2), False
    for agent in env.agent_iter():
        _obs, reward, term, trunc, _info = env.last()
        seat = int(agent[-1])
        paid[seat] += reward
        paid_before_the_end |= reward != 0 and not (term or trunc)
        env.step(None if term or trunc else 1)
    assert paid.tolist() == [2.0, 2.0]
    assert paid_before_the_end == (model == "rewards")


@pytest.mark.parametrize("model", ["rewards", "terminal"])
def test_the_gymnasium_face_pays_along_only_under_the_rewards_model(model):
    spec = GameSpec("tally", "Tally", TallyGame, test_configs=({},), benchmark_config={})
    env = SingleSeatEnv(spec, seat=0, opponents=lambda obs, mask: 1, reward_model=model)
    env.reset(seed=0)
    rewards, done = [], False
    while not done:
        _obs, reward, terminated, truncated, _info = env.step(1)
        rewards.append(reward)
        done = terminated or truncated
    assert sum(rewards) == 2.0
    assert rewards == ([1.0, 1.0] if model == "rewards" else [0.0, 2.0])


def test_an_unknown_reward_model_is_refused():
    with pytest.raises(ValueError, match="reward_model must be one of"):
        GameType("general_sum", "none", 0.0, 1.0, 10, None, "dense")
