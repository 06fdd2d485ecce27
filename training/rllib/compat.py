"""What the native package needs to know about RLlib-trained checkpoints (no Ray import here).

An RLlib run writes native checkpoints (`checkpoint.save_checkpoint`: the policy as a `PolicyNet` state
dict, the game, the training config), so `evaluate`, `rate` and `play` load them unchanged. Their
trainer-state blob is `backend_state(...)` instead of the native trainer's state: a native `--resume`
should refuse them (see `is_rllib_checkpoint`) and point to RLlib's own checkpoint.
"""

from __future__ import annotations

from .. import checkpoint as ckpt


def backend_state(rllib_checkpoint) -> dict:
    """The trainer-state blob of an RLlib run's native checkpoint."""
    return {"backend": "rllib", "rllib_checkpoint": str(rllib_checkpoint) if rllib_checkpoint else None}


def is_rllib_checkpoint(data: dict) -> bool:
    """True for a checkpoint (from `checkpoint.read_checkpoint`) written by the RLlib backend."""
    try:
        state = ckpt.trainer_state(data)
    except ckpt.CheckpointError:
        return False
    return isinstance(state, dict) and state.get("backend") == "rllib"


def refuse_native_resume(data: dict) -> None:
    """Raise CheckpointError if a native `--resume` is pointed at an RLlib-trained checkpoint (the run
    lifecycle's own check, `training.run.refuse_unresumable`)."""
    if is_rllib_checkpoint(data):
        from ..run import refuse_unresumable

        refuse_unresumable(data, ckpt.trainer_state(data))
