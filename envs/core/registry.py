"""What the generic tools need to know about each game, declared once per game face, and the registered
games: `spec("expressions")` is the GameSpec of envs/expressions_v0.py (`envs.spec` is this function)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .config import build_config

# the registered games (module name -> title), in the order the docs list them
GAMES: dict[str, str] = {
    "expressions": "Expressions",
    "exposaurus": "Exposaurus",
    "exposed": "Exposed",
    "artifacts": "Artifacts",
}


def spec(name: str) -> GameSpec:
    """The GameSpec of a registered game, by module name ("expressions")."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; registered games: {list(GAMES)}")
    return importlib.import_module(f"envs.{name}_v0").SPEC


def specs() -> list[GameSpec]:
    return [spec(name) for name in GAMES]


@dataclass(frozen=True)
class SearchDefaults:
    """How the unguided search (envs.core.search) plays this game unless told otherwise: who finishes
    its simulated games ("scripted" players or "random" play) and how many simulations a decision gets
    (sized to about half a second a decision on one core)."""

    rollout: str = "scripted"
    simulations: int = 100


@dataclass(frozen=True)
class GameSpec:
    """A game as the generic checks, the Gymnasium face, benchmarks and training see it."""

    name: str  # module name: envs.<name>_v0
    title: str  # "Expressions"; the Gymnasium id is tabletop/<title>-v0
    game_class: type
    # every configuration the generic checks run on: player counts, modes, options
    test_configs: tuple[dict[str, Any], ...]
    benchmark_config: dict[str, Any]
    # scripted_policy(game_config, seat) -> policy(observation, mask) -> action
    scripted_policy: Callable[..., Callable] | None = None
    invariant_doc: str = ""
    reward_doc: str = ""  # how returns are paid (team or individual, options)
    players_doc: str = ""  # player counts and variants
    search: SearchDefaults = SearchDefaults()
    # optional, read by the tools where a game has them: "benchmark_configs" (throughput's configurations),
    # "team_names" (team id -> name), "metrics" (game -> the game's own measures, e.g. Harmony - Agony),
    # "seat_roles" (game -> each seat's role by name: results per role)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def gym_id(self) -> str:
        return f"tabletop/{self.title}-v0"

    def __reduce__(self):
        # A registered game pickles by name (its scripted_policy may be a lambda), so envs and specs
        # cross process boundaries (gymnasium.make_vec(..., vectorization_mode="async"), Ray).
        if self.name in GAMES and spec(self.name) is self:
            return spec, (self.name,)
        return super().__reduce__()

    @property
    def max_episode_steps(self) -> int:
        """The default configuration's maximum length in decisions (registered with Gymnasium)."""
        return self.new_game(np.random.default_rng(0)).game_type().max_decisions

    def config(self, **options):
        return build_config(self.game_class.config_class, options)

    def new_game(self, rng=None, **options):
        return self.game_class(self.config(**options), rng)


def config_id(config: dict[str, Any]) -> str:
    """A short readable id for a test configuration: 'num_players=4-mode=hard'."""
    return "-".join(f"{k}={v}" for k, v in config.items()) or "default"
