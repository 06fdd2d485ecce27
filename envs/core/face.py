"""Builds a game's versioned face (`raw_env`, `env`) from its Game class, as PettingZoo classic does."""

from __future__ import annotations

from .aec import TabletopAECEnv, TabletopEnv
from .config import build_config


def make_faces(game_class):
    """Return (raw_env, env) functions for `game_class`."""

    def raw_env(render_mode: str | None = None, render_view="table", **config) -> TabletopAECEnv:
        return TabletopAECEnv(
            game_class, build_config(game_class.config_class, config), render_mode, render_view
        )

    def env(
        render_mode: str | None = None,
        render_view="table",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        **config,
    ) -> TabletopEnv:
        return TabletopEnv(
            raw_env(render_mode=render_mode, render_view=render_view, **config),
            illegal_action,
            illegal_reward,
        )

    raw_env.__doc__ = (
        f"The raw PettingZoo AEC env of {game_class.name} (no safety layer). render_view: 'table' (the "
        "whole table, hidden information included), 'current' (what the player to move may see) or a seat."
    )
    env.__doc__ = f"The PettingZoo AEC env of {game_class.name} with order and legality checks."
    return raw_env, env
