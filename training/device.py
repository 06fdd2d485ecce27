"""Where a run's update happens (`config.device`): the CPU, a CUDA GPU or Apple's MPS.

Rollouts keep inferring on the CPU - in the rollout workers, or on a CPU copy of the network synced
after every update - since a decision's small batch costs less there than a round trip to a GPU; the
update's minibatches of thousands of rows are what a GPU speeds up. Checkpoints always hold CPU tensors,
so a run trained on a GPU loads on a machine without one.
"""

from __future__ import annotations

import torch

from envs.core.errors import ConfigError


def resolve_device(name: str) -> torch.device:
    """`config.device` as a torch.device: "auto" takes CUDA if torch sees a GPU, else MPS if present,
    else the CPU; a device this torch cannot use is a ConfigError that says what it has."""
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        return torch.device("mps") if mps_available() else torch.device("cpu")
    device = torch.device(name)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError(f"device={name}: this torch sees no CUDA GPU ({available()})")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ConfigError(
                f"device={name}: there are {torch.cuda.device_count()} CUDA devices ({available()})"
            )
    if device.type == "mps" and not mps_available():
        raise ConfigError(f"device={name}: this torch has no MPS device ({available()})")
    return device


def mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def available() -> str:
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if mps_available():
        found.append("mps")
    return "available: " + ", ".join(found)


def fused_adam(device: torch.device) -> bool:
    """torch's fused Adam runs on CPUs and CUDA GPUs."""
    return device.type in ("cpu", "cuda")
