"""What every game shares: the engine contract, the PettingZoo and Gymnasium faces, layouts."""

from .config import build_config
from .errors import ConfigError, IllegalActionError, OrderError
from .game import Game, GameType
from .layout import Layout, PieceSpec, piece
from .policies import RandomPolicy
from .registry import GameSpec
from .search import Search, SearchBudget

__all__ = [
    "ConfigError",
    "Game",
    "GameType",
    "GameSpec",
    "IllegalActionError",
    "Layout",
    "PieceSpec",
    "OrderError",
    "RandomPolicy",
    "Search",
    "SearchBudget",
    "build_config",
    "piece",
]
