"""What every game shares: the engine contract, the turn flow, layouts and the observer, the PettingZoo
and Gymnasium faces, and the batched environment (VectorGames)."""

from .config import build_config
from .errors import ConfigError, IllegalActionError, OrderError, PositionError
from .flow import Decide, Do, TurnFlow
from .game import Definition, Game, GameType
from .layout import ActionGroup, Layout, PieceSpec, piece
from .observer import Observer
from .policies import RandomPolicy
from .registry import GameSpec
from .search import Search, SearchBudget
from .vector import Step, VectorGames

__all__ = [
    "ActionGroup",
    "ConfigError",
    "Decide",
    "Definition",
    "Do",
    "Game",
    "GameType",
    "GameSpec",
    "IllegalActionError",
    "Layout",
    "PieceSpec",
    "Observer",
    "OrderError",
    "PositionError",
    "RandomPolicy",
    "Search",
    "SearchBudget",
    "Step",
    "TurnFlow",
    "VectorGames",
    "build_config",
    "piece",
]
