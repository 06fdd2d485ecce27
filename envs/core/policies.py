"""Policies that play a seat from its observation alone: `policy(observation, action_mask) -> action`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from .players import PLAYERS, GameSetup
from .search import reads_game


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


# ----- the seats a single-seat face or a batched environment plays itself ------------------------------
# SingleSeatEnv (one game) and VectorGames (many) resolve and play their opponents through these, so a
# name means the same player, and a seeded game the same stream, in both.

MAX_REDEALS = 100


def checked_seat(seat, num_players: int) -> int | None:
    """The learner's seat as an int, or None (a random seat each game); anything else is refused."""
    if seat is not None and (
        isinstance(seat, (bool, np.bool_))
        or not isinstance(seat, (int, np.integer))
        or not 0 <= seat < num_players
    ):
        raise ValueError(
            f"seat must be None (a random seat) or an integer 0..{num_players - 1}, got {seat!r}"
        )
    return None if seat is None else int(seat)


def seat_policies(spec, config, options: dict, opponents, num_players: int) -> list:
    """One policy per seat (None: uniform random over the legal actions) from what a user gave: None,
    a name (envs.core.players: each seat gets the player made for it), one policy for every seat (its
    `for_seat(seat)` hook, if any, gives each seat its own), or a list with one entry (name or policy)
    per seat."""
    if opponents is None:
        return [None] * num_players
    game = GameSetup(spec, config, dict(options))
    if isinstance(opponents, str):
        return [PLAYERS.resolve(opponents, game, s, noun="opponent") for s in range(num_players)]
    if callable(opponents) or reads_game(opponents):
        for_seat = getattr(opponents, "for_seat", None)
        if callable(for_seat):
            return [for_seat(s) for s in range(num_players)]
        return [opponents] * num_players
    opponents = list(opponents)
    if len(opponents) != num_players:
        raise ValueError(f"give one opponent policy per seat ({num_players}), got {len(opponents)}")
    return [
        PLAYERS.resolve(o, game, s, noun="opponent") if isinstance(o, str) else o
        for s, o in enumerate(opponents)
    ]


def reset_policies(policies: list) -> None:
    """A new game: policies with a `reset()` hook forget the last one (recurrent state), once each."""
    seen = set()
    for policy in policies:
        reset = getattr(policy, "reset", None)
        if callable(reset) and id(policy) not in seen:
            seen.add(id(policy))
            reset()


def is_over(game) -> bool:
    return game.is_terminal() or game.is_truncated()


def play_others(game, seat: int, policies: list, rng: np.random.Generator) -> None:
    """Play the other seats (their `policies`; None: random from `rng`) until `seat` is to act or the
    game is over (ended or cut)."""
    while not is_over(game) and game.current_player() != seat:
        player = game.current_player()
        mask = game.legal_action_mask()
        policy = policies[player]
        if policy is None:
            action = random_action(mask, rng)
        elif reads_game(policy):  # a search agent: it reads the game through resample_hidden only
            action = policy.act(game, player)
        else:  # a copy: the policy may write to its mask
            action = policy(game.observation(player), mask.copy())
        game.apply_action(action)


def new_game(game_class, config, rng: np.random.Generator):
    """A game dealt from a seed drawn from `rng` (so one generator deals a whole stream of games)."""
    return game_class(config, np.random.default_rng(int(rng.integers(2**63))))


def deal_for_seat(game_class, config, seat: int, policies: list, rng: np.random.Generator):
    """A new game played by the others up to `seat`'s first decision. A deal whose game ends before
    `seat` ever acts (rare: e.g. an early kill in Artifacts) is no episode of that seat: deal again."""
    for _ in range(MAX_REDEALS):
        game = new_game(game_class, config, rng)
        reset_policies(policies)
        play_others(game, seat, policies, rng)
        if not is_over(game):
            return game
    raise RuntimeError(f"seat {seat} never got a decision in {MAX_REDEALS} deals")
