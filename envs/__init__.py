"""Imperfect-information tabletop games as PettingZoo AEC and Gymnasium environments.

`from envs import expressions_v0; env = expressions_v0.env(num_players=4)`; `import envs` also
registers the single-seat Gymnasium ids `tabletop/<Game>-v0`; `envs.vector(game, num_games, workers)` steps
many games together as numpy batches.
"""

from __future__ import annotations

import gymnasium

from envs.core.registry import GAMES, spec, specs
from envs.core.vector import VectorGames

__all__ = ["GAMES", "spec", "specs", "vector"]


def vector(game: str, num_games: int, workers: int = 1, seed: int | None = None, **kwargs) -> VectorGames:
    """`num_games` games of `game` stepped together over `workers` processes, as numpy batches:
    `envs.vector("exposed", num_games=64, workers=2, seed=0, num_players=4)`. The keywords are
    VectorGames' (opponents=, seat=, copy=, final_obs=, context=) and the game's options (envs.core.vector)."""
    return VectorGames(game, num_games, workers, seed, **kwargs)


def _register_gym_ids() -> None:
    for name, title in GAMES.items():
        gym_id = f"tabletop/{title}-v0"
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="envs.core.gym_env:SingleSeatEnv",
                kwargs={"game": name},
                max_episode_steps=spec(name).max_episode_steps,
            )


_register_gym_ids()
