"""What a policy network reads of its game, as data: the sizes, the observation's pieces with their axes,
the action blocks laid over a grid's cells or over the seats.

It is taken from the game when a run starts (`NetShape.of(game)`), built into the network
(`PolicyNet(shape, net_config)`: the user's settings stay in `NetConfig`), stored in every checkpoint as
plain data (`to_dict`) and read back with every value checked (`from_dict`), so a checkpoint rebuilds
its network without the game's code.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from envs.core.layout import AXIS_KINDS, ActionGroup


@dataclass(frozen=True)
class Piece:
    """One observation piece: `name`, its `shape`, what each axis indexes (`axes`, envs.core.layout)."""

    name: str
    shape: tuple[int, ...]
    axes: tuple[str, ...]


@dataclass(frozen=True)
class CellBlock:
    """Actions laid over the cells of the grid piece `grid`: start + cell * depth + k, k < depth."""

    name: str
    start: int
    depth: int
    grid: str


@dataclass(frozen=True)
class SeatBlock:
    """Actions that are the `seats` seats (relative): start + seat * depth + k, k < depth."""

    name: str
    start: int
    depth: int
    seats: int


@dataclass(frozen=True)
class NetShape:
    obs_dim: int
    num_actions: int
    state_dim: int = 0
    pieces: tuple[Piece, ...] = ()
    cell_blocks: tuple[CellBlock, ...] = ()
    seat_blocks: tuple[SeatBlock, ...] = ()

    @classmethod
    def of(cls, game) -> NetShape:
        """The shape of a game: its observation layout's pieces and its structured action blocks."""
        groups = [ActionGroup(*g) for g in game.action_groups()]
        return cls(
            obs_dim=game.observation_layout.size,
            num_actions=game.num_actions,
            state_dim=game.state_layout.size,
            pieces=tuple(Piece(p.name, tuple(p.shape), tuple(p.axes)) for p in game.observation_layout),
            cell_blocks=tuple(CellBlock(g.name, g.start, g.depth, g.cells) for g in groups if g.cells),
            seat_blocks=tuple(
                SeatBlock(g.name, g.start, g.depth, g.count // g.depth) for g in groups if g.seats
            ),
        )

    def layout(self) -> list[tuple[str, tuple[int, ...], tuple[str, ...]]]:
        """The pieces as (name, shape, axes), as the layout encoder reads them."""
        return [(p.name, p.shape, p.axes) for p in self.pieces]

    def to_dict(self) -> dict:
        """Plain data: dicts, lists, strings and integers (as a checkpoint and JSON hold them)."""
        return _lists(asdict(self))

    @classmethod
    def from_dict(cls, data: Any) -> NetShape:
        """A shape `to_dict` wrote; ValueError naming the first bad value for anything else."""
        if not isinstance(data, dict):
            raise ValueError(f"a network shape is a dict, got {type(data).__name__}")
        known = {"obs_dim", "num_actions", "state_dim", "pieces", "cell_blocks", "seat_blocks"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"a network shape has no {unknown}")
        sizes = {name: _count(data.get(name), name, minimum=0 if name == "state_dim" else 1)
                 for name in ("obs_dim", "num_actions", "state_dim")}  # fmt: skip
        shape = cls(
            **sizes,
            pieces=tuple(_piece(p) for p in _rows(data, "pieces")),
            cell_blocks=tuple(CellBlock(*_block(b, "grid", _text)) for b in _rows(data, "cell_blocks")),
            seat_blocks=tuple(SeatBlock(*_block(b, "seats", _count)) for b in _rows(data, "seat_blocks")),
        )
        described = sum(_size(p.shape) for p in shape.pieces)
        if shape.pieces and described != shape.obs_dim:
            raise ValueError(f"the pieces describe {described} numbers, the observation has {shape.obs_dim}")
        return shape


def _lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(item) for item in value]
    return value


def _size(shape: tuple[int, ...]) -> int:
    out = 1
    for n in shape:
        out *= n
    return out


def _rows(data: dict, name: str) -> list[dict]:
    rows = data.get(name, [])
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{name} must be a list of dicts, got {rows!r}")
    return list(rows)


def _block(row: dict, last: str, check) -> tuple:
    """A block's name, first action and actions per cell or seat, then its grid or number of seats."""
    return (
        _text(row.get("name"), "name"),
        _count(row.get("start"), "start", 0),
        _count(row.get("depth"), "depth"),
        check(row.get(last), last),
    )


def _piece(row: dict) -> Piece:
    name = _text(row.get("name"), "piece name")
    shape = tuple(_count(n, f"piece {name!r} size") for n in _sequence(row.get("shape"), name))
    axes = tuple(_sequence(row.get("axes"), name))
    if len(axes) != len(shape) or any(a not in AXIS_KINDS for a in axes):
        raise ValueError(
            f"piece {name!r}: axes {list(axes)} must name each axis by one of {list(AXIS_KINDS)}"
        )
    return Piece(name, shape, axes)


def _sequence(value: Any, name: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"piece {name!r}: shape and axes are lists, got {value!r}")
    return list(value)


def _count(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return value
