"""Helpers for the generic checks."""

from __future__ import annotations

import numpy as np


def snapshot(game) -> tuple:
    """Everything observable about a game, to prove an operation changed nothing."""
    players = range(game.num_players)
    return (
        game.current_player(),
        game.is_terminal(),
        game.state_tensor().tobytes(),
        tuple(game.observation(p).tobytes() for p in players),
        game.legal_action_mask().tobytes(),
        game.to_string(),
        np.asarray(game.returns()).tobytes(),
    )


def random_playthrough(game, rng, on_state=None, max_steps=100_000):
    """Play uniformly random legal actions to the end, calling on_state(game) before each action."""
    steps = 0
    while not game.is_terminal():
        if on_state is not None:
            on_state(game)
        mask = game.legal_action_mask()
        legal = np.flatnonzero(mask)
        assert len(legal) > 0, "a non-terminal state must have a legal action"
        game.apply_action(int(legal[rng.integers(len(legal))]))
        steps += 1
        assert steps < max_steps, "game did not end"
    return steps


def rects_overlap(a, b) -> bool:
    """Whether two (left, top, right, bottom) boxes overlap (the pictures' layout tests)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
