"""Reference agents: frozen trained policies that ship with the package, named by game and version.

    reference:exposaurus-v1      the version 1 agent of Exposaurus (its one configuration)
    reference:exposed-4p-v1      the version 1 agent of 4-player Exposed
    reference:exposed-v1         the same, where the game played says 4 players
    reference:exposed            the newest version for the game played
    reference                    the newest version for the game played, whatever it is
    search:reference:exposed-v1  the guided search on that agent's policy and critic

A name is `reference[:<game>[-<P>p][-v<N>]]`; what it leaves out is taken from the game it is to play
(where it is made for one: `evaluate`, `match`, `opponents=`, `play`) or is the newest version, and a
name that stays ambiguous (`load_policy("reference:exposed-v1")`, which knows no game) is refused with
the names that would do. Every agent is one checkpoint file in this folder, policy only (no trainer
state), listed in `references.json` (data: what it was trained with, its file's sha256). Reading one
checks the sha256 before anything else, so a damaged or replaced file is refused. A version, once
shipped, never changes: a new agent is a new version, and the tests pin every shipped file's digest.

`freeze(run, version)` makes a run's final policy a reference agent (the maintainers' tool:
`python -m training.references freeze RUN --version N`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from envs.core.errors import ConfigError

PREFIX = "reference"
FOLDER = Path(__file__).parent
MANIFEST = FOLDER / "references.json"
FORMAT = "tabletop-reference-agents"
NAME = re.compile(r"^(?P<game>[a-z][a-z0-9_]*?)(?:-(?P<players>\d+)p)?(?:-v(?P<version>\d+))?$")


@dataclass(frozen=True)
class Reference:
    """One shipped agent: a game configuration's policy under a version."""

    game: str
    num_players: int
    version: int
    file: str
    sha256: str
    trained: dict  # how it was made: the command, game config, seed, decisions, iterations, minutes

    @property
    def name(self) -> str:
        """The full name, unambiguous in every context."""
        return f"{PREFIX}:{self.game}-{self.num_players}p-v{self.version}"

    @property
    def path(self) -> Path:
        """The agent's file in this folder (the manifest names a file, never a path elsewhere)."""
        if not self.file or Path(self.file).name != self.file or self.file in (".", ".."):
            raise ConfigError(f"{self.name}: the manifest names {self.file!r}, not a file of {FOLDER}")
        return FOLDER / self.file

    def verified_path(self) -> Path:
        """The agent's file, refused (ConfigError) if it is missing or its bytes are not the shipped ones."""
        if not self.path.is_file():
            raise ConfigError(f"{self.name}: its file {self.file!r} is missing from {FOLDER}")
        digest = file_sha256(self.path)
        if digest != self.sha256:
            raise ConfigError(
                f"{self.name}: {self.file!r} has sha256 {digest[:12]}..., not the shipped "
                f"{self.sha256[:12]}...: the file is damaged or was replaced"
            )
        return self.path


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(path: Path) -> dict:
    data = json.loads(path.read_text()) if path.exists() else {"format": FORMAT, "agents": []}
    if data.get("format") != FORMAT:
        raise ConfigError(f"{path} is not a reference-agent manifest (no {FORMAT!r} header)")
    return data


@cache
def shipped() -> tuple[Reference, ...]:
    """Every reference agent the manifest lists, oldest version first."""
    agents = [Reference(**entry) for entry in read_manifest(MANIFEST)["agents"]]
    return tuple(sorted(agents, key=lambda r: (r.game, r.num_players, r.version)))


def is_reference_name(name) -> bool:
    return isinstance(name, str) and (name == PREFIX or name.startswith(PREFIX + ":"))


def parse(name: str) -> tuple[str | None, int | None, int | None]:
    """`reference[:<game>[-<P>p][-v<N>]]` -> (game, players, version), None for each part left out."""
    if name == PREFIX:
        return None, None, None
    match = NAME.match(name[len(PREFIX) + 1 :])
    if match is None:
        raise ConfigError(
            f"{name!r} is not a reference agent's name: use reference, reference:<game>, "
            "reference:<game>-v<N> or reference:<game>-<P>p-v<N> (e.g. reference:exposed-4p-v1)"
        )
    players, version = match["players"], match["version"]
    return match["game"], int(players) if players else None, int(version) if version else None


def find(name: str, info=None) -> Reference:
    """The reference agent `name` stands for, the parts it leaves out filled in from `info` (the game it
    is to play, or None) and by the newest version. A ConfigError lists the agents that would do when
    none or several match."""
    game, players, version = parse(name)
    if info is not None:
        if game is not None and game != info.spec.name:
            raise ConfigError(f"{name!r} plays {game}, not {info.spec.name}")
        game, players = info.spec.name, players or info.num_players
    candidates = [
        r
        for r in shipped()
        if (game is None or r.game == game) and (players is None or r.num_players == players)
    ]
    if version is not None:
        found = [r for r in candidates if r.version == version]
    else:  # the newest version of each configuration
        newest = {(r.game, r.num_players): r for r in candidates}
        found = list(newest.values())
    if len(found) == 1:
        return found[0]
    known = ", ".join(r.name for r in shipped()) or "none"
    if not found:
        where = f" for {info.spec.name} with {info.num_players} players" if info is not None else ""
        counts = sorted({r.num_players for r in shipped() if info is not None and r.game == info.spec.name})
        hint = f" (this game's are for num_players={' or '.join(map(str, counts))})" if counts else ""
        raise ConfigError(f"no reference agent {name!r}{where}{hint}; the shipped ones are: {known}")
    raise ConfigError(
        f"{name!r} names {len(found)} reference agents ({', '.join(r.name for r in found)}): "
        "name one in full, or use it where the game it plays is known"
    )


def locate(name: str, info=None) -> Path:
    """The verified checkpoint file of the reference agent `name` (see `find`)."""
    return find(name, info).verified_path()


def markdown() -> str:
    """The table of the shipped agents, from the manifest (the documentation's generated part)."""
    lines = [
        "| name | trained with | decisions | minutes | size | sha256 |",
        "|---|---|---|---|---|---|",
    ]
    for r in shipped():
        size = r.path.stat().st_size / 2**20 if r.path.is_file() else float("nan")
        minutes = r.trained.get("minutes")
        lines.append(
            f"| `{r.name}` | `{r.trained.get('command', '')}` | {r.trained.get('decisions', 0):,} | "
            f"{'—' if minutes is None else f'{minutes:.1f}'} | {size:.2f} MB | `{r.sha256[:16]}` |"
        )
    return "\n".join(lines) if shipped() else "No reference agents are shipped yet."
