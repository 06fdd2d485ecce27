"""Checkpoints: the policy, what it was trained on, and (for resume) the whole trainer state.

A checkpoint is data, never code: one `torch.save` file read back with `weights_only=True`, which
builds plain containers, numbers, strings and tensors and refuses anything else, so a crafted file
cannot run code or construct objects. The trainer's own state - optimizer, rngs, opponent pool, the
games in progress (as their seeds and moves, replayed on resume) - is held to the same rule: `plain`
turns it into such containers (numpy arrays as tensors), it is saved as one `torch.save` blob beside
the policy, and resuming reads it back with `weights_only=True` too. Nothing in a checkpoint is
unpickled as an object, and nothing it names is imported (its game is a name the program already
knows, see `training.games.resolve_spec`).

Every checkpoint carries sha256 checksums (`checksums`): of the network's tensors (names, dtypes, shapes
and bytes, in name order) and of the trainer blob. Reading verifies the network's, resuming the
trainer's, so bytes damaged on disk raise CheckpointError instead of loading silently (the checksums
find damage, not forgery: whoever can rewrite the file can rewrite them; `weights_only` is what keeps a
forged file harmless). Checkpoints written before checksums existed (no `checksums` key) still load,
unverified.

Version 1 checkpoints pickled the trainer state: their policy still loads (evaluate, rate, play,
export, load_policy), but resuming one is refused, since unpickling it could run code hidden in it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
import re
from pathlib import Path
from typing import Any

import numpy as np
import torch

from . import references
from .config import NetConfig, from_dict
from .games import resolve_spec
from .nets import PolicyNet
from .netshape import NetShape

FORMAT = "tabletop-training-checkpoint"
# 3: the network's game shape as data (net_shape); 2: the trainer state is plain data; 1 pickled it (its
# policy loads, it does not resume)
VERSION = 3
READABLE = (1, 2, 3)  # versions whose policy this code reads
NDARRAY = "__ndarray__"  # how `plain` marks a numpy array it stored as a tensor


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, from another game, or another network.

    The message says what is wrong in this package's words; `detail` keeps what the library underneath
    said (the CLI shows it with --verbose)."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail


ZIP_MAGIC = b"PK\x03\x04"  # every torch.save file since torch 1.6 is a zip archive


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
        "net_shape": net.shape.to_dict(),
        "train_config": config.to_dict(),
        "model": net.state_dict(),
        "iteration": iteration,
        "decisions": decisions,
        "trainer": trainer_blob(trainer_state) if trainer_state is not None else None,
    }
    data["checksums"] = checksums(data)
    write_atomically(path, data)
    return path


TMP_SUFFIX = ".tmp"  # a checkpoint being written; never a checkpoint itself


def write_atomically(path: Path, data: dict) -> None:
    """`path` holds either its old bytes or all of the new ones, even if the process is killed or the
    machine loses power mid-write: the data goes to `path.tmp`, which is flushed to the disk (fsync)
    before it is renamed over `path`, and the rename itself is made durable by an fsync of the folder."""
    tmp = path.with_name(path.name + TMP_SUFFIX)
    try:
        with open(tmp, "wb") as f:
            torch.save(data, f)  # straight to the file: no second and third copy of a large pool in memory
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:  # Ctrl-C or a full disk mid-write: leave no partial file behind
        tmp.unlink(missing_ok=True)
        if isinstance(exc.__context__, KeyboardInterrupt):
            # Ctrl-C inside torch.save: its zip writer, closed mid-record, raises its own error over the
            # interrupt; the interrupt is what happened (the run saves and exits 130)
            raise KeyboardInterrupt from None
        raise
    fsync_directory(path.parent)


def fsync_directory(folder: Path) -> None:
    """Make a rename inside `folder` durable (a no-op where folders cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_partial_writes(folder: Path) -> list[Path]:
    """Delete the `*.tmp` files an interrupted `write_atomically` left in `folder`; returns them."""
    if not folder.is_dir():
        return []
    leftovers = sorted(folder.glob("*" + TMP_SUFFIX))
    for tmp in leftovers:
        tmp.unlink(missing_ok=True)
    return leftovers


def checkpoint_files(folder: Path) -> list[Path]:
    """The checkpoints in a run's checkpoints/ folder (`*.pt`; a `.tmp` being written is not one)."""
    return sorted(folder.glob("*.pt")) if folder.is_dir() else []


# ----- the trainer state as data ---------------------------------------------------------------------
PLAIN_LEAVES = (str, int, float, bool, type(None), bytes, torch.Tensor)


def plain(value: Any, where: str = "trainer state") -> Any:
    """`value` as containers that `torch.load(weights_only=True)` rebuilds: dicts, lists, tuples, numbers,
    strings, None and tensors; a numpy array becomes {NDARRAY: tensor} and a numpy number a Python one.
    Anything else (an object, a function) raises TypeError naming where it sits: a checkpoint never
    holds one."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise TypeError(f"{where}: a numpy array of Python objects cannot be stored as data")
        return {NDARRAY: torch.from_numpy(np.ascontiguousarray(value).copy())}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, PLAIN_LEAVES):
        return value
    if isinstance(value, dict):
        if NDARRAY in value:
            raise TypeError(f"{where}: the key {NDARRAY!r} is reserved")
        return {plain(k, where): plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(plain(v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, list):
        return [plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"{where}: a {type(value).__name__} is not plain data; a checkpoint holds no objects")


def unplain(value: Any) -> Any:
    """The inverse of `plain`: {NDARRAY: tensor} back to a numpy array."""
    if isinstance(value, dict):
        if len(value) == 1 and NDARRAY in value:
            return value[NDARRAY].numpy()
        return {k: unplain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(unplain(v) for v in value)
    if isinstance(value, list):
        return [unplain(v) for v in value]
    return value


def trainer_blob(state: dict) -> bytes:
    buffer = io.BytesIO()
    torch.save(plain(state), buffer)
    return buffer.getvalue()


def checkpoint_path(path: str | Path, info=None) -> Path:
    """The file `read_checkpoint(path, info)` reads: the file itself, a run directory's latest
    checkpoint, or a reference agent's verified file."""
    if references.is_reference_name(path):
        path = references.locate(path, info)
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {str(path)!r}")
    return latest_in(path) if path.is_dir() else path


def read_checkpoint(path: str | Path, info=None) -> dict[str, Any]:
    """A checkpoint file, a run directory's latest checkpoint, or a shipped reference agent
    (`reference:<game>-v<N>`, the parts it leaves out taken from `info`, the game it is to play)."""
    path = checkpoint_path(path, info)
    data = load_data(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a training checkpoint (no {FORMAT!r} header)")
    if data.get("version") not in READABLE:
        raise CheckpointError(
            f"{str(path)!r} has checkpoint version {data.get('version')!r}; this code reads versions "
            f"{', '.join(map(str, READABLE))}"
        )
    missing = [k for k in ("game", "model", "train_config", "obs_dim", "num_actions") if k not in data]
    if missing:
        raise CheckpointError(f"{str(path)!r} lacks {missing}: damaged checkpoint")
    data["path"] = str(path)
    verify_model(data)
    if data["version"] < 3:
        upgrade_net_shape(data)
    return data


def upgrade_net_shape(data: dict) -> None:
    """Versions 1 and 2 kept the layout network's game shape in the config as text lines (net.layout
    'museum: 2 seat x 7 row x 24', net.cell_actions 'place: 198 + 4 per cell of museum', net.seat_actions
    'accuse: 30 + 1 per seat of 7'): read them once into `net_shape` and drop them from the config."""
    net = data["train_config"].get("net", {})
    pieces, cells, seats = (net.pop(key, []) or [] for key in ("layout", "cell_actions", "seat_actions"))
    try:
        shape = {
            "obs_dim": data["obs_dim"],
            "num_actions": data["num_actions"],
            "state_dim": data.get("state_dim", 0),
            "pieces": [_legacy_piece(line) for line in pieces],
            "cell_blocks": [dict(zip(("name", "start", "depth", "grid"), _legacy_block(line, "cell")))
                            for line in cells],
            "seat_blocks": [dict(zip(("name", "start", "depth", "seats"), _legacy_block(line, "seat")))
                            for line in seats],
        }  # fmt: skip
        data["net_shape"] = NetShape.from_dict(shape).to_dict()
    except (ValueError, TypeError) as exc:
        raise CheckpointError(
            f"checkpoint {data['path']!r}: its network's layout is unreadable ({exc})"
        ) from None


def _legacy_piece(line: str) -> dict:
    """'museum: 2 seat x 7 row x 24' -> {'name': 'museum', 'shape': [2, 7, 24], 'axes': ['seat', 'row', 'feature']}."""
    name, _, text = str(line).rpartition(":")
    parts = [part.split() for part in text.split(" x ")] if text.strip() else []
    if not name or any(not 1 <= len(words) <= 2 or not words[0].isdigit() for words in parts):
        raise ValueError(f"net.layout line {line!r}")
    return {
        "name": name.strip(),
        "shape": [int(w[0]) for w in parts],
        "axes": [w[1] if len(w) == 2 else "feature" for w in parts],
    }


def _legacy_block(line: str, kind: str) -> tuple:
    """'place: 198 + 4 per cell of museum' -> ('place', 198, 4, 'museum'); seats end in a number."""
    match = re.fullmatch(rf"\s*(.+?):\s*(\d+) \+ (\d+) per {kind} of (\S+)\s*", str(line))
    if match is None:
        raise ValueError(f"net.{kind}_actions line {line!r}")
    last = int(match[4]) if kind == "seat" and match[4].isdigit() else match[4]
    return match[1], int(match[2]), int(match[3]), last


def latest_in(folder: Path) -> Path:
    """The latest checkpoint of a run directory (or of its checkpoints/ folder)."""
    for latest in (folder / "checkpoints" / "latest.pt", folder / "latest.pt"):
        if latest.is_file():
            return latest
    partial = [p.name for p in (folder / "checkpoints").glob("*" + TMP_SUFFIX)] + [
        p.name for p in folder.glob("*" + TMP_SUFFIX)
    ]
    why = (
        f" ({', '.join(sorted(partial))}: a write that was interrupted, not a checkpoint; the run stopped "
        "before its first checkpoint, so start it again)"
        if partial
        else ""
    )
    raise CheckpointError(f"{str(folder)!r} is a directory without checkpoints/latest.pt{why}")


def load_data(path: Path) -> Any:
    """The file's contents through `torch.load(weights_only=True)`, with what is wrong said plainly."""
    with open(path, "rb") as f:
        head = f.read(len(ZIP_MAGIC))
    return load_plain(
        path, head, repr(str(path)), "use another checkpoint of the run (checkpoints/iter_*.pt)"
    )


def load_plain(source, head: bytes, what: str, remedy: str) -> Any:
    """`torch.load(source, weights_only=True)` of a file or buffer whose first bytes are `head`; any
    failure is a CheckpointError saying what is wrong with `what` (torch's own words in its detail)."""
    if not head:
        raise CheckpointError(f"{what} is empty (0 bytes): not a checkpoint (a write that was cut short?)")
    if head != ZIP_MAGIC:  # a text file, a plain pickle, anything else: never handed to an unpickler
        raise CheckpointError(
            f"{what} is not a checkpoint: checkpoints are PyTorch archives (zip files), and this starts "
            f"with {head!r} (a text file, a plain pickle, another format?)"
        )
    try:
        return torch.load(source, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:  # torch's weights_only refusal
        raise CheckpointError(
            f"{what} is refused: it holds Python objects beyond plain data (tensors, numbers, strings), "
            "which this package's checkpoints never do, so it was made or altered by something else; "
            "nothing in it was run",
            first_line(exc, "WeightsUnpickler error", "Trying to load"),
        ) from None
    except Exception as exc:  # a damaged or truncated archive: torch raises many kinds
        raise CheckpointError(
            f"{what} is damaged or truncated: its archive cannot be read (an interrupted copy or write?); "
            + remedy,
            f"{type(exc).__name__}: {first_line(exc)}",
        ) from None


def first_line(exc: BaseException, *containing: str) -> str:
    """The first non-empty line of an exception's text (the first holding one of `containing`, if any
    does), without terminal colour codes."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in str(exc).splitlines()]
    lines = [line for line in lines if line]
    picked = [line for line in lines if any(needle in line for needle in containing)]
    return (picked or lines or [""])[0]


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


def checksums(data: dict) -> dict:
    """What a checkpoint stores under "checksums": of its network's tensors and of its trainer blob."""
    return {"model": tensors_sha256(data["model"]), "trainer": blob_sha256(data["trainer"])}


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


def check_played(data: dict, info, what: str) -> None:
    """`check_compatible` against the game `info` plays, the checkpoint's own game name standing for it
    where both name the same game (a registered name, or a module's GameSpec)."""
    same_game = resolve_spec(data["game"]).name == info.spec.name
    check_compatible(data, info, data["game"] if same_game else info.spec.name, what)


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
    return net_from(data, stored_config(data).net)


def stored_config(data: dict):
    """The train config a checkpoint was trained with (a `TrainConfig`); CheckpointError if unusable."""
    try:
        return from_dict(data["train_config"])
    except Exception as exc:
        raise CheckpointError(f"checkpoint {data['path']!r} holds an unusable config: {exc}") from None


def net_differences(theirs: NetConfig, mine: NetConfig) -> list[str]:
    """The `net.*` options two configs set differently, as "net.X=theirs there, mine here"."""
    a, b = dataclasses.asdict(theirs), dataclasses.asdict(mine)
    return [f"net.{k}={a[k]!r} there, {b[k]!r} here" for k in b if a.get(k) != b[k]]


def net_from(data: dict, net_config: NetConfig) -> PolicyNet:
    try:
        shape = NetShape.from_dict(data.get("net_shape"))
    except ValueError as exc:
        raise CheckpointError(f"checkpoint {data['path']!r} holds an unusable network shape: {exc}") from None
    try:
        net = PolicyNet(shape, net_config, initialize=False)  # (every weight is loaded next)
    except ValueError as exc:
        raise CheckpointError(f"checkpoint {data['path']!r}: {exc}") from None
    try:
        net.load_state_dict(data["model"])
    except RuntimeError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()][:4]
        raise CheckpointError(
            f"checkpoint {data['path']!r} does not fit the network {net_config}: " + " ".join(lines)
        ) from None
    return net


def trainer_state(data: dict) -> dict:
    """The trainer state a checkpoint keeps for resuming, as data (never unpickled as objects)."""
    blob = data.get("trainer", b"")
    if not blob:
        raise CheckpointError(f"checkpoint {data['path']!r} holds no trainer state to resume from")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"checkpoint {data['path']!r} was written by an older version of this package (checkpoint "
            f"version {data.get('version')}), which stored the trainer state as a pickle: resuming it could "
            "run code hidden in the file, so it is refused. Its policy still loads (evaluate, rate, play, "
            "export, load_policy); to train further, start a new run"
        )
    if not isinstance(blob, bytes):
        raise CheckpointError(f"checkpoint {data['path']!r} has a damaged trainer state (not a byte string)")
    stored = (data.get("checksums") or {}).get("trainer")
    if stored is not None and stored != blob_sha256(blob):
        raise CheckpointError(
            f"checkpoint {data['path']!r} has a damaged trainer state: it does not match the checksum "
            "stored with it; resume from another checkpoint of the run (checkpoints/iter_*.pt)"
        )
    state = load_plain(
        io.BytesIO(blob),
        blob[: len(ZIP_MAGIC)],
        f"the trainer state of checkpoint {data['path']!r}",
        "resume from another checkpoint of the run (checkpoints/iter_*.pt)",
    )
    if not isinstance(state, dict):
        raise CheckpointError(f"checkpoint {data['path']!r} has a damaged trainer state (not a mapping)")
    return unplain(state)
