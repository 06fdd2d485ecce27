"""Policies that play a seat from its observation alone: `policy(observation, action_mask) -> action`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np


class Policy(Protocol):
    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class RandomPolicy:
    """Uniform over the legal actions."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


PolicyFactory = Callable[..., Policy]


def play_random_episode(env, rng: np.random.Generator) -> int:
    """Play one (already reset) PettingZoo AEC episode with uniformly random legal actions.

    Works with any env whose observations carry an "action_mask"; returns the number of decisions.
    """
    decisions = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        decisions += 1
    return decisions
