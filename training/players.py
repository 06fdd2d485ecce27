"""The players a trained run makes, registered in the one registry of named players
(`envs.core.players.PLAYERS`) when this package is imported:

- a run directory or a checkpoint file (any path that exists): the run's trained policy (`Policy`,
  greedy unless told otherwise), checked against the game it is to play;
- `reference`, `reference:<game>-v<N>`: a reference agent shipped with the package
  (`training.references`), played like a run;
- `search:RUN`: the search guided by that run's (or reference agent's) policy and critic
  (`training.search.search_agent`).

So `opponents="search:runs/exposed-seed0"` in the Gymnasium face, `match(info, "runs/exposed-seed0",
"random", 100)` and the command line's players all mean the same player. An installed package also
declares `register` as a plugin of the registry (pyproject.toml), so a process that never imported
this package (a vector env's worker, say) still knows these names.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

from envs.core.errors import ConfigError, did_you_mean
from envs.core.players import PLAYERS, Players

from . import checkpoint as ckpt
from . import references
from .games import GameInfo, spec_info
from .policy import Policy, checkpoint_policy
from .search import PREFIX, search_agent

REFERENCE = references.PREFIX  # a shipped reference agent: reference, reference:<game>-v<N>
RUN = "run"  # the kind of name: a run directory or a checkpoint file
GUIDED = PREFIX + ":"  # the prefix of the guided search: search:RUN


def near_paths(text: str) -> list[str]:
    """The files and folders beside a path that does not exist (its folder's entries, as the path
    would be written), to suggest a misspelt run directory."""
    folder = Path(text).parent
    if not folder.is_dir():
        return []
    return [str(folder / entry.name) for entry in folder.iterdir()]


def is_path(name: str) -> bool:
    return bool(name) and Path(name).exists()


def info_of(game) -> GameInfo:
    """The training package's view of the game a player is made for."""
    return game if isinstance(game, GameInfo) else spec_info(game.spec, game.game_config)


def run_player(
    name: str, game, seat: int = 0, greedy: bool = True, what: str = "the game it plays"
) -> Policy:
    """The trained policy of the run directory or checkpoint `name`, refused (CheckpointError) if it
    was trained on another game or configuration."""
    data = read_once(name, info_of(game))
    ckpt.check_played(data, info_of(game), what)
    return checkpoint_policy(data | {"train_config": copy.deepcopy(data["train_config"])}, greedy)


def read_once(name: str, info: GameInfo) -> dict:
    """`checkpoint.read_checkpoint(name, info)`, a file read once while it stays unchanged: a batch of
    games seats the same run in every game and seat (each seat still gets its own network). Unchanged
    means the same file, size and modification times, as Python's own bytecode cache judges; what a
    hit returns was verified when it was read."""
    path = ckpt.checkpoint_path(name, info)
    s = path.stat()
    return _read_file(str(path), (s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns))


@functools.lru_cache(maxsize=8)
def _read_file(path: str, identity: tuple) -> dict:
    return ckpt.read_checkpoint(path)


def guided_player(
    name: str,
    game,
    seat: int = 0,
    budget=None,
    rollout: str | None = None,
    seed="seat",
    batch: int = 1,
    root: str = "puct",
):
    """search:RUN, the search guided by the run's policy and critic, seeded by the seat unless `seed`
    is given ("search:" alone is the unguided search); `batch` leaves evaluated together; `root` how it
    chooses at its root ("puct" or "gumbel")."""
    seed = seat if seed == "seat" else seed
    return search_agent(name, info_of(game), budget, seed, rollout, batch, root)


def check_guided(name: str) -> None:
    """search:RUN names a run directory or checkpoint that exists, a reference agent (or nothing: the
    unguided search)."""
    source = name[len(GUIDED) :]
    if references.is_reference_name(source):
        references.parse(source)
    elif source and not Path(source).exists():
        raise ConfigError(
            f"{name!r}: no run directory or checkpoint at {source!r}"
            + did_you_mean(str(Path(source)), near_paths(source))
        )


def check_reference(name: str) -> None:
    """reference:... is a reference agent's name (which agent it is depends on the game it plays)."""
    references.parse(name)


def register(players: Players = PLAYERS) -> None:
    """Add this package's players to `players` (the entry point of the registry's plugin group)."""
    players.register(REFERENCE, run_player)
    players.register_prefix(REFERENCE + ":", run_player, placeholder="game", check=check_reference)
    players.register_prefix(GUIDED, guided_player, placeholder="run", check=check_guided)
    players.register_kind(
        RUN, ("a run directory", "a checkpoint file"), is_path, run_player, suggest=near_paths
    )
