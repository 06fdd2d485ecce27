"""Named pieces of a flat vector: the observation and state layouts every game declares once."""

from __future__ import annotations

from dataclasses import dataclass
from math import inf, prod
from typing import NamedTuple

import numpy as np

# What an axis of a piece indexes, so networks and observers can be built from the declarations:
# seat (relative seats, 0 = the observer; weights shared across seats), card / tile / item (an entity
# id from the game's data tables), row / col (a grid), slot (ordered positions: a queue, a track),
# feature (anything else).
AXIS_KINDS = ("seat", "card", "tile", "item", "row", "col", "slot", "feature")


class PieceSpec(NamedTuple):
    """How a game declares one piece: `PieceSpec(name, shape, description, low, high, axes)`.

    A plain (name, shape, description) tuple is a PieceSpec without bounds (state layouts may stay
    unbounded; observation layouts declare finite bounds, which the generic checks enforce). `axes`
    names each axis of `shape` by one of AXIS_KINDS (default: every axis a feature).
    """

    name: str
    shape: tuple[int, ...]
    description: str
    low: float = -inf
    high: float = inf
    axes: tuple[str, ...] | None = None


piece = PieceSpec


class ActionGroup(NamedTuple):
    """One block of a game's flat action space: `ActionGroup(name, start, count, meaning, cells, depth,
    seats)`.

    A plain (name, start, count, meaning) tuple is an ActionGroup without structure. `cells` names an
    observation piece with row and col axes when the block's actions lie on that grid's cells, at the
    acting seat (seat 0 of a piece with a seat axis): action start + (row * cols + col) * depth + k, k <
    depth (a placement's rotations). `seats` says the block's actions are the seats, relative as the
    observation numbers them (0 = the acting seat): action start + seat * depth + k (a vote for a
    player, an accusation). Networks can then read a cell's or a seat's logits from its own features.
    """

    name: str
    start: int
    count: int
    meaning: str
    cells: str | None = None
    depth: int = 1
    seats: bool = False


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    description: str
    offset: int
    low: float = -inf
    high: float = inf
    axes: tuple[str, ...] = ()

    @property
    def bounded(self) -> bool:
        return np.isfinite(self.low) and np.isfinite(self.high)

    @property
    def bounds_text(self) -> str:
        if not self.bounded:
            return "unbounded"
        return f"{_number(self.low)}..{_number(self.high)}"

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.size)


class Layout:
    """An ordered list of (name, shape, description) pieces laid end to end in one flat vector.

    Games fill a preallocated vector through `views(buffer)` (reshaped views, no copies), and the
    games' pages and docstrings are generated from `rows()`, so the documentation never drifts.
    """

    def __init__(self, pieces: list[PieceSpec | tuple]):
        offset = 0
        self.pieces: list[Piece] = []
        for entry in pieces:
            spec = PieceSpec(*entry)
            shape = tuple(int(s) for s in spec.shape)
            axes = tuple(spec.axes) if spec.axes is not None else ("feature",) * len(shape)
            if len(axes) != len(shape) or any(a not in AXIS_KINDS for a in axes):
                raise ValueError(
                    f"piece {spec.name!r}: axes {axes} must name each of its {len(shape)} axes by one of {AXIS_KINDS}"
                )
            if not spec.low <= spec.high:
                raise ValueError(f"piece {spec.name!r}: low {spec.low} is above high {spec.high}")
            piece = Piece(spec.name, shape, spec.description, offset, float(spec.low), float(spec.high), axes)
            self.pieces.append(piece)
            offset += piece.size
        self.size = offset
        self._by_name = {p.name: p for p in self.pieces}
        # each piece's place, made once: a scripted player splits every observation it reads (in a
        # search's roll-outs, millions of times), so `views` must not recompute offsets and sizes
        self._cuts = tuple((p.name, p.slice, p.shape) for p in self.pieces)
        if len(self._by_name) != len(self.pieces):
            raise ValueError("layout piece names must be unique")

    def __getitem__(self, name: str) -> Piece:
        return self._by_name[name]

    def __iter__(self):
        return iter(self.pieces)

    def names(self) -> list[str]:
        return [p.name for p in self.pieces]

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Reshaped views of `buffer` (last axis = the layout) for each piece."""
        if buffer.shape[-1:] != (self.size,):
            raise ValueError(f"a vector of this layout has {self.size} entries, not shape {buffer.shape}")
        lead = buffer.shape[:-1]
        if not lead:  # one vector: a flat piece is its slice as it is
            return {
                name: buffer[at] if len(shape) == 1 else buffer[at].reshape(shape)
                for name, at, shape in self._cuts
            }
        return {name: buffer[..., at].reshape(lead + shape) for name, at, shape in self._cuts}

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The pieces of one vector, by name (copies nothing)."""
        return self.views(vector)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) float32 vectors over the whole layout, for Box spaces."""
        low = np.empty(self.size, dtype=np.float32)
        high = np.empty(self.size, dtype=np.float32)
        for p in self.pieces:
            low[p.slice], high[p.slice] = p.low, p.high
        return low, high

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(name, shape, range, description) rows for documentation tables."""
        return [(p.name, _shape_text(p), p.bounds_text, p.description) for p in self.pieces]

    def markdown(self) -> str:
        lines = ["| piece | shape | range | meaning |", "|---|---|---|---|"]
        lines += [f"| `{n}` | {s} | {r} | {d} |" for n, s, r, d in self.rows()]
        return "\n".join(lines)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _shape_text(p: Piece) -> str:
    """'4 seat x 50 card': each axis with its kind where it is not a plain feature."""
    if not p.shape:
        return "1"
    return " x ".join(str(n) if kind == "feature" else f"{n} {kind}" for n, kind in zip(p.shape, p.axes))
