"""PPO self-play for the tabletop games: masked PPO with per-seat credit assignment, batched many-game
rollouts over the engine contract, MLP and GRU policies, an optional centralized critic, an opponent
pool (snapshots, scripted, random; weights and PFSP), evaluation with Wilson intervals and ratings.

    python -m training train expressions [key=value ...]     # the packaged default config
    python -m training evaluate runs/expressions-seed0 --opponents random,scripted --games 1000
    python -m training play runs/expressions-seed0
    python -m training export runs/expressions-seed0 policy.pt   # TorchScript, for torch alone

    policy = training.load_policy("runs/expressions-seed0")  # policy(observation, action_mask) -> int
    searcher = training.search_agent("search:runs/expressions-seed0", info)  # searcher.act(game, seat)

Importing this package registers its players by name (a run directory or checkpoint, search:RUN) in
envs.core.players.PLAYERS, beside random, scripted and search: every place that takes a player's name
(the Gymnasium face's opponents=, match, the command line) then knows them.
"""

try:  # the games (envs) need no torch; training does: say which extra brings it
    import torch  # noqa: F401
    import yaml  # noqa: F401
except ImportError as exc:
    raise ImportError(
        f"the training package needs {exc.name or 'torch'}, which is not installed: "
        'pip install "tabletop-rl[train]"'
    ) from exc

from . import players
from .checkpoint import CheckpointError
from .config import TrainConfig, default_config, load_config
from .evaluate import match, rating_table, wilson
from .policy import Policy, export_policy, load_policy
from .search import guided_search, search_agent
from .trainer import Trainer, resume

players.register()  # run directories, checkpoints and search:RUN join envs.core.players.PLAYERS

__all__ = [
    "CheckpointError",
    "Policy",
    "TrainConfig",
    "Trainer",
    "default_config",
    "export_policy",
    "guided_search",
    "load_config",
    "load_policy",
    "match",
    "rating_table",
    "resume",
    "search_agent",
    "wilson",
]
