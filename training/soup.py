"""A model soup: one policy whose weights are the average of runs that began from the same weights
("Model soups", Wortsman et al. 2022).

Runs fine-tuned from one starting point (a shared warm start: `init=RUN/checkpoints/warm_start.pt`
with another seed or PPO option) end in one basin of the loss, each displaced from its middle by its
own noise; the uniform average of their weights cancels much of that noise and plays better than
the runs themselves (docs/strength.md, "A soup of runs"). Runs from different starting points hold
unrelated networks (a unit of one is no unit of the other), and their average plays far worse than
either, so a soup refuses members whose recorded starting weights differ.

Every member is read as data (`checkpoint.read_checkpoint`), and must be of one game and
configuration with one network (the same `net.*` options). The soup keeps the last member's train
config (its evaluation settings, its network options), no trainer state (it is a policy, not a run
to resume), and under "soup" the members it averages (path, checksum of their weights, decisions)
and their common starting weights, so a soup of soups is checked the same way.
"""

from __future__ import annotations

from pathlib import Path

import torch

from envs.core.errors import ConfigError

from . import checkpoint as ckpt


def make_soup(paths: list[str | Path], out: str | Path, warn=print) -> dict:
    """The average of the members' weights, written to `out` as a checkpoint; returns its "soup"
    record. `warn(text)` hears what could not be checked (members that recorded no starting weights)."""
    if len(paths) < 2:
        raise ConfigError(f"a soup averages two checkpoints or more; got {len(paths)}")
    members = [ckpt.read_checkpoint(p) for p in paths]
    refuse_repeats(members)
    refuse_differences(members)
    start = common_start(members, warn)
    data = dict(members[-1])
    data.pop("path")
    data["model"] = averaged([m["model"] for m in members])
    data["trainer"] = None
    data["decisions"] = sum(int(m.get("decisions") or 0) for m in members)
    data["soup"] = {
        "members": [
            {"path": m["path"], "model": model_checksum(m), "decisions": m.get("decisions")} for m in members
        ],
        "start_weights": start,
    }
    data["checksums"] = ckpt.checksums(data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    ckpt.write_atomically(out, data)
    return data["soup"]


def model_checksum(data: dict) -> str:
    """The checksum of a member's weights: the one stored with them (`read_checkpoint` has verified
    it), computed only for a checkpoint written before checksums existed."""
    return (data.get("checksums") or {}).get("model") or ckpt.tensors_sha256(data["model"])


def refuse_repeats(members: list[dict]) -> None:
    """The same checkpoint twice would weigh it double without saying so."""
    seen: dict[Path, str] = {}
    for m in members:
        where = Path(m["path"]).resolve()
        if where in seen:
            raise ConfigError(f"{m['path']!r} is named twice: give each member once")
        seen[where] = m["path"]


def refuse_differences(members: list[dict]) -> None:
    """Every member plays the first one's game and configuration with the same network."""
    first = members[0]
    net = ckpt.stored_config(first).net
    for m in members[1:]:
        if (m["game"], dict(m.get("game_config", {}))) != (first["game"], dict(first.get("game_config", {}))):
            raise ckpt.CheckpointError(
                f"{m['path']!r} plays {m['game']} {m.get('game_config', {})}, {first['path']!r} "
                f"{first['game']} {first.get('game_config', {})}: a soup's members play one game"
            )
        differ = ckpt.net_differences(ckpt.stored_config(m).net, net)
        if differ:
            raise ConfigError(
                f"{m['path']!r} has another network than {first['path']!r} (" + "; ".join(differ) + ")"
            )
        for name, tensor in first["model"].items():
            theirs = m["model"].get(name)
            if theirs is None or theirs.shape != tensor.shape:
                raise ckpt.CheckpointError(
                    f"{m['path']!r}'s tensor {name} is {None if theirs is None else tuple(theirs.shape)}, "
                    f"{first['path']!r}'s {tuple(tensor.shape)}: not the same network"
                )


def start_weights(data: dict) -> str | None:
    """The checksum of the weights a checkpoint's run began from (after its warm start or init), as
    its run recorded it; None where it did not (older runs, reference agents)."""
    if data.get("soup"):
        return data["soup"].get("start_weights")
    try:
        return ckpt.trainer_state(data).get("start_weights")
    except ckpt.CheckpointError:  # no trainer state (an export, a reference agent): unknown
        return None


def common_start(members: list[dict], warn) -> str | None:
    """The members' common starting weights; refuses members that began from different ones."""
    starts = {m["path"]: start_weights(m) for m in members}
    known = {path: s for path, s in starts.items() if s}
    if len(set(known.values())) > 1:
        listed = "; ".join(f"{path}: {s[:12]}" for path, s in known.items())
        raise ConfigError(
            f"the members began from different weights ({listed}): a soup averages runs from one starting "
            "point, e.g. runs started with init=RUN/checkpoints/warm_start.pt from one warm start (the "
            "average of unrelated networks plays far worse than either)"
        )
    unknown = [path for path, s in starts.items() if not s]
    if unknown:
        warn(
            f"cannot tell whether {', '.join(unknown)} began from the others' weights (no record of the "
            "run's starting weights): a soup of runs from different starting points plays far worse"
        )
    return next(iter(known.values()), None) if len(known) == len(members) else None


def averaged(models: list[dict]) -> dict:
    """The uniform average of state dicts, tensor by tensor (in float64, stored in each tensor's
    dtype); tensors that are not floating point must agree and are kept."""
    out = {}
    for name, tensor in models[0].items():
        if tensor.is_floating_point():
            total = sum(m[name].double() for m in models)
            out[name] = (total / len(models)).to(tensor.dtype)
        elif all(torch.equal(m[name], tensor) for m in models):
            out[name] = tensor.clone()
        else:
            raise ckpt.CheckpointError(
                f"the members' tensor {name} holds integers that differ: cannot average it"
            )
    return out
