"""The Ray/RLlib scale-out backend: the same self-play PPO training on a Ray cluster through RLlib.

    pip install ".[distributed]"            # ray[rllib]; it pins its own gymnasium, so use its own venv
    python -m training train configs/<game>.yaml backend=rllib rllib.num_env_runners=2

Pieces: `module` (the project's action-masking RLModules; main's is the native PolicyNet), `env`
(PettingZoo's RLlib wrapper over any game), `columns` (the learner connector piece: the state, the
auxiliary target, the teacher's labels beside each decision), `learner` (PPO plus the auxiliary and
teacher losses), `recurrent` (a GRU's training sequences across RLlib's chunks), `selfplay` (snapshot
modules, opponent sampling, PFSP), `trainer` (`train(config, run_dir)` writing the native run
directory, `export_checkpoint`). Ray is imported only when these are used.
"""

from __future__ import annotations

from .options import RLlibConfig

__all__ = ["RLlibConfig", "export_checkpoint", "train"]


def __getattr__(name: str):
    if name in ("train", "export_checkpoint", "RLlibRun"):
        try:
            from . import trainer
        except ImportError as exc:  # ray missing
            raise ImportError(
                f"the RLlib backend needs ray[rllib] ({exc}); install it with: pip install '.[distributed]'"
            ) from exc
        return getattr(trainer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
