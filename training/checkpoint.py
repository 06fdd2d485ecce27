"""Checkpoints: the policy, what it was trained on, and (for resume) the whole trainer state.

A checkpoint is one `torch.save` file read back with `weights_only=True` (plain tensors, numbers and
strings; nothing executable). The trainer's own state - optimizer, rngs, opponent pool, the games in
progress - travels as one pickled blob that is only unpickled when resuming a run.

Every checkpoint carries sha256 checksums (`checksums`): of the network's tensors (names, dtypes, shapes
and bytes, in name order) and of the trainer blob. Reading verifies the network's, resuming the
trainer's, so bytes damaged on disk raise CheckpointError instead of loading silently. Checkpoints
written before checksums existed (no `checksums` key) still load, unverified.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

import torch

from .config import NetConfig, from_dict
from .nets import PolicyNet

FORMAT = "tabletop-training-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, from another game, or another network."""


def save_checkpoint(
    path: str | Path,
    net: PolicyNet,
    config,
    info,
    iteration: int,
    decisions: int,
    trainer_state: dict | None = None,
) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "game": config.game,
        "game_config": dict(info.game_config),
        "num_players": info.num_players,
        "obs_dim": info.obs_dim,
        "num_actions": info.num_actions,
        "state_dim": info.state_dim,
        "train_config": config.to_dict(),
        "model": net.state_dict(),
        "iteration": iteration,
        "decisions": decisions,
        "trainer": pickle.dumps(trainer_state) if trainer_state is not None else None,
    }
    data["checksums"] = {"model": tensors_sha256(data["model"]), "trainer": blob_sha256(data["trainer"])}
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(data, tmp)  # straight to the file: no second and third copy of a large pool in memory
    os.replace(tmp, path)
    return path


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {str(path)!r}")
    if path.is_dir():
        latest = path / "checkpoints" / "latest.pt"
        if not latest.exists():
            latest = path / "latest.pt"
        if not latest.exists():
            raise CheckpointError(f"{str(path)!r} is a directory without checkpoints/latest.pt")
        path = latest
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds for damaged files
        raise CheckpointError(
            f"{str(path)!r} is not a readable checkpoint (corrupt or truncated file?): "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a training checkpoint (no {FORMAT!r} header)")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{str(path)!r} has checkpoint version {data.get('version')!r}; this code reads version {VERSION}"
        )
    missing = [k for k in ("game", "model", "train_config", "obs_dim", "num_actions") if k not in data]
    if missing:
        raise CheckpointError(f"{str(path)!r} lacks {missing}: damaged checkpoint")
    data["path"] = str(path)
    verify_model(data)
    return data


def tensors_sha256(state_dict: dict) -> str:
    """sha256 over a state_dict: each tensor's name, dtype, shape and raw bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def blob_sha256(blob: bytes | None) -> str:
    return hashlib.sha256(blob or b"").hexdigest()


def verify_model(data: dict) -> None:
    """Refuse a checkpoint whose network tensors differ from the checksum stored with them."""
    stored = (data.get("checksums") or {}).get("model")
    if stored is None:  # written before checksums existed: loads unverified
        return
    try:
        actual = tensors_sha256(data["model"])
    except Exception as exc:  # not a mapping of tensors
        raise CheckpointError(
            f"checkpoint {data['path']!r} is damaged: unreadable network tensors ({exc})"
        ) from None
    if actual != stored:
        raise CheckpointError(
            f"checkpoint {data['path']!r} is damaged: its network tensors do not match the checksum stored "
            "with them (bytes changed on disk?); use another checkpoint of the run (checkpoints/iter_*.pt)"
        )


def check_compatible(data: dict, info, game: str, what: str = "this run") -> None:
    """Raise CheckpointError if the checkpoint was trained on another game or configuration."""
    problems = mismatches(data, info, game)
    if problems:
        raise CheckpointError(f"checkpoint {data['path']!r} does not match {what}: " + "; ".join(problems))


def mismatches(data: dict, info, game: str) -> list[str]:
    """How a checkpoint's game differs from `game` with `info` (its name, players, inputs, actions)."""
    problems = []
    if data["game"] != game:
        problems.append(f"game {data['game']!r} vs {game!r}")
    for key, mine in (
        ("num_players", info.num_players),
        ("obs_dim", info.obs_dim),
        ("num_actions", info.num_actions),
    ):
        if data.get(key) != mine:
            problems.append(f"{key} {data.get(key)} vs {mine}")
    if problems == [f"obs_dim {data.get('obs_dim')} vs {info.obs_dim}"]:
        # the same game, players and actions: only a new version of the game's observation does that
        problems[0] += (
            f" (the same game, players and actions: the checkpoint predates a change of {game}'s "
            "observation and cannot be used with this version; train a new one)"
        )
    return problems


def build_net(data: dict) -> PolicyNet:
    """The policy network stored in a checkpoint, weights loaded, with clear errors on mismatch."""
    try:
        config = from_dict(data["train_config"])
    except Exception as exc:
        raise CheckpointError(f"checkpoint {data['path']!r} holds an unusable config: {exc}") from None
    return net_from(data, config.net)


def net_from(data: dict, net_config: NetConfig) -> PolicyNet:
    net = PolicyNet(data["obs_dim"], data["num_actions"], data.get("state_dim", 0), net_config)
    try:
        net.load_state_dict(data["model"])
    except RuntimeError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()][:4]
        raise CheckpointError(
            f"checkpoint {data['path']!r} does not fit the network {net_config}: " + " ".join(lines)
        ) from None
    return net


def trainer_state(data: dict) -> dict:
    blob = data.get("trainer", b"")
    if not blob:
        raise CheckpointError(f"checkpoint {data['path']!r} holds no trainer state to resume from")
    stored = (data.get("checksums") or {}).get("trainer")
    if stored is not None and stored != blob_sha256(blob):
        raise CheckpointError(
            f"checkpoint {data['path']!r} has a damaged trainer state: it does not match the checksum "
            "stored with it; resume from another checkpoint of the run (checkpoints/iter_*.pt)"
        )
    try:
        return pickle.loads(blob)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {data['path']!r} has a damaged trainer state: {exc}") from None
