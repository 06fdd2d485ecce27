"""Imperfect-information tabletop games as PettingZoo AEC and Gymnasium environments.

`from envs import expressions_v0; env = expressions_v0.env(num_players=4)`; `import envs` also
registers the single-seat Gymnasium ids `tabletop/<Game>-v0`; `envs.vector(game, num_games, workers)` steps
many games together as numpy batches.
"""

from __future__ import annotations

import importlib

import gymnasium

# the registered games (module name -> title), in the order the docs list them
GAMES: dict[str, str] = {
    "expressions": "Expressions",
    "exposaurus": "Exposaurus",
    "exposed": "Exposed",
    "artifacts": "Artifacts",
}


def spec(name: str):
    """The GameSpec of a registered game, by module name ("expressions")."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; registered games: {list(GAMES)}")
    return importlib.import_module(f"envs.{name}_v0").SPEC


def specs():
    return [spec(name) for name in GAMES]


def vector(game: str, num_games: int, workers: int = 1, seed: int | None = None, **kwargs):
    """`num_games` games of `game` stepped together over `workers` processes, as numpy batches:
    `envs.vector("exposed", num_games=64, workers=2, seed=0, num_players=4)`. The keywords are
    VectorGames' (opponents=, seat=, copy=, context=) and the game's options (envs.core.vector)."""
    from envs.core.vector import VectorGames

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
