"""What every game shares: the engine contract, the PettingZoo and Gymnasium faces, layouts."""

from .config import build_config
from .errors import ConfigError, IllegalActionError, OrderError
from .game import Game
from .layout import Layout
from .policies import RandomPolicy
from .registry import GameSpec

__all__ = [
    "ConfigError",
    "Game",
    "GameSpec",
    "IllegalActionError",
    "Layout",
    "OrderError",
    "RandomPolicy",
    "build_config",
]
