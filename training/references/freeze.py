"""Make a trained run's policy a reference agent (the maintainers' tool), or list the shipped ones.

    python -m training.references list

    python -m training.references freeze runs/exposaurus-seed0 --version 1 --minutes 18.4 \
        --command "python -m training train configs/exposaurus.yaml seed=0"

writes the run's final policy, without its trainer state, to training/references/<game>-<P>p-v<N>.pt
and lists it in references.json with its sha256 and what it was trained with. A version that is
already shipped for that configuration is refused: a shipped agent never changes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from envs.core.errors import ConfigError

from .. import checkpoint as ckpt
from ..games import resolve_spec
from . import FOLDER, MANIFEST, PREFIX, file_sha256, markdown, read_manifest, shipped


def policy_only(data: dict) -> dict:
    """A checkpoint's contents without the trainer state (and without where it was read from)."""
    kept = {key: value for key, value in data.items() if key not in ("trainer", "path")}
    kept["trainer"] = None
    kept["checksums"] = ckpt.checksums(kept)
    return kept


def run_environment(checkpoint: str | Path) -> dict | None:
    """Where the run of a checkpoint (<run>/checkpoints/<name>.pt) was trained, from its summary.json
    (`training.runlog.environment`); None where the run did not record it."""
    summary = Path(checkpoint).parent.parent / "summary.json"
    if not summary.is_file():
        return None
    try:
        return json.loads(summary.read_text()).get("environment")
    except (json.JSONDecodeError, AttributeError):
        raise ConfigError(
            f"{str(summary)!r} is not a run's summary (JSON object): damaged run folder"
        ) from None


def freeze(
    run: str | Path, version: int, command: str = "", minutes: float | None = None, folder: Path = FOLDER
) -> dict:
    """Write `run`'s final policy as the reference agent of its game configuration under `version` and
    add it to the manifest in `folder`, with the `command` that trained it and its wall time; returns
    the manifest entry."""
    data = ckpt.read_checkpoint(run)
    # the same command retrains the same agent only on the same machine kind and libraries
    environment = run_environment(data["path"])
    game, players = resolve_spec(data["game"]).name, int(data["num_players"])
    manifest = folder / MANIFEST.name
    listed = read_manifest(manifest)
    if any((e["game"], e["num_players"], e["version"]) == (game, players, version) for e in listed["agents"]):
        raise ConfigError(
            f"{PREFIX}:{game}-{players}p-v{version} is shipped already; a new agent is a new version"
        )
    file = f"{game}-{players}p-v{version}.pt"
    path = folder / file
    ckpt.write_atomically(path, policy_only(data))
    entry = {
        "game": game,
        "num_players": players,
        "version": version,
        "file": file,
        "sha256": file_sha256(path),
        "trained": {
            "command": command,
            "game_config": data["game_config"],
            "seed": data["train_config"]["seed"],
            "decisions": int(data["decisions"]),
            "iteration": int(data["iteration"]),
            "minutes": minutes,
            "environment": environment,
        },
    }
    listed["agents"].append(entry)
    manifest.write_text(json.dumps(listed, indent=1) + "\n")
    shipped.cache_clear()
    return entry


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.references", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("freeze", help="make a run's final policy a reference agent")
    add.add_argument("run", help="the run directory or checkpoint")
    add.add_argument("--version", type=int, required=True)
    add.add_argument("--command", default="", help="the command that trained the run, for the record")
    add.add_argument("--minutes", type=float, default=None, help="the run's wall time, for the record")
    sub.add_parser("list", help="the shipped reference agents (Markdown)")
    args = parser.parse_args(argv)
    if args.command == "list":
        print(markdown())
        return 0
    entry = freeze(args.run, args.version, args.command, args.minutes)
    print(
        f"{PREFIX}:{entry['game']}-{entry['num_players']}p-v{entry['version']}: {entry['file']} "
        f"sha256 {entry['sha256']}"
    )
    return 0
