"""Helpers for the generic checks."""

from __future__ import annotations

import numpy as np

from envs.core import Game, Layout


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


def env_snapshot(env) -> tuple:
    """Everything an AEC env shows (its game, whose turn, rewards, done flags, infos), to prove a
    step changed nothing."""
    flags = (env.rewards, env._cumulative_rewards, env.terminations, env.truncations)
    return (
        snapshot(env.unwrapped.game),
        env.agent_selection,
        tuple(env.agents),
        tuple(tuple(sorted(d.items())) for d in flags),
        repr(sorted(env.infos.items())),
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


def drawn_texts(monkeypatch, picture_class, game, player) -> list[str]:
    """Every string `game.render_rgb(player)` draws through `picture_class.text`."""
    texts: list[str] = []
    original = picture_class.text

    def record(self, x, y, text, *args, **kwargs):
        texts.append(text)
        return original(self, x, y, text, *args, **kwargs)

    monkeypatch.setattr(picture_class, "text", record)
    game.render_rgb(player)
    return texts


def seat_views_under_resampling(game, rng, samples: int = 3) -> set[str]:
    """Assert every seat's text and picture stay the same under `resample_hidden(seat)`; return the
    whole-table texts of the samples (a test checks they do change)."""
    table_texts = set()
    for p in range(game.num_players):
        text, picture = game.to_string(p), game.render_rgb(p)
        for _ in range(samples):
            sample = game.resample_hidden(p, rng)
            assert sample.to_string(p) == text
            assert np.array_equal(sample.render_rgb(p), picture)
            table_texts.add(sample.to_string())
    return table_texts


class TwoSeatToy(Game):
    """The contract's boilerplate for two-seat, two-action toy games counting `moves` (observed as is)."""

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        self.num_players, self.num_actions = 2, 2
        self.observation_layout = self.state_layout = Layout([("moves", (1,), "moves made", 0, 4)])
        self.moves = 0

    def _legal_mask(self):
        return np.ones(2, dtype=bool)

    def observation(self, player):
        return np.array([self.moves], dtype=np.float32)

    def state_tensor(self):
        return self.observation(0)

    def resample_hidden(self, player, rng):
        return self.clone()

    def action_to_string(self, action):
        return str(action)

    def to_string(self, player=None):
        return f"moves {self.moves}"
