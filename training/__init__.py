"""PPO self-play for the tabletop games: masked PPO with per-seat credit assignment, batched many-game
rollouts over the engine contract, MLP and GRU policies, an optional centralized critic, an opponent
pool (snapshots, scripted, random; weights and PFSP), evaluation with Wilson intervals and ratings.

    python -m training train configs/expressions.yaml [key=value ...]
    python -m training evaluate runs/expressions-seed0 --opponents random,scripted --games 1000
    python -m training play runs/expressions-seed0
"""

from .checkpoint import CheckpointError
from .config import TrainConfig, load_config
from .evaluate import match, rating_table, wilson
from .trainer import Trainer, resume

__all__ = [
    "CheckpointError",
    "TrainConfig",
    "Trainer",
    "load_config",
    "match",
    "rating_table",
    "resume",
    "wilson",
]
