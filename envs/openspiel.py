"""OpenSpiel bridge: the registered games as `pyspiel.Game`s (needs the `openspiel` extra).

    from envs.openspiel import load_game
    game = load_game("expressions", num_players=3)        # a pyspiel.Game
    state = game.new_initial_state()                        # a pyspiel.State; state.engine is ours

Importing this module registers every game with pyspiel as `tabletop_<name>`, so
`pyspiel.load_game("tabletop_exposed(num_players=3)")` works too. Chance is SAMPLED_STOCHASTIC (the
engines draw their own randomness); `rng_seed` (default -1: fresh entropy) seeds the deals of one
loaded game. See envs/core/openspiel.py for what is declared and why.
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        "envs.openspiel needs OpenSpiel: pip install 'tabletop-rl[openspiel]' (or pip install open_spiel)"
    ) from err

import numpy as np

import envs

from .core.openspiel import RNG_SEED, SpielGame, SpielState, short_name, spiel_game_type

__all__ = ["RNG_SEED", "SpielGame", "SpielState", "load_game", "register_games", "short_name"]


def load_game(name: str, **config) -> SpielGame:
    """A registered game ("expressions", ...) with its config options (and `rng_seed`) as a
    pyspiel.Game that OpenSpiel's Python algorithms and bots accept."""
    return SpielGame(envs.spec(name), config)


def register_games() -> None:
    """Register every game with pyspiel as `tabletop_<name>` (done on import; safe to repeat)."""
    known = set(pyspiel.registered_names())
    for name in envs.GAMES:
        spec = envs.spec(name)
        if short_name(spec) not in known:
            pyspiel.register_game(
                spiel_game_type(spec, spec.new_game(np.random.default_rng(0))), _game_class(spec)
            )


def _game_class(spec):
    """A SpielGame subclass bound to one game: pyspiel's registry calls it with the params.

    A class, as OpenSpiel's own Python games register: pyspiel releases its registry at exit without
    the GIL, which is only safe for an object that does not die then (a closure would abort Python)."""

    def __init__(self, params=None):
        SpielGame.__init__(self, spec, params)

    return type(f"{spec.title}SpielGame", (SpielGame,), {"__init__": __init__, "__module__": __name__})


register_games()
