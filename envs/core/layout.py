"""Named pieces of a flat vector: the observation and state layouts every game declares once."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    description: str
    offset: int

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.size)


class Layout:
    """An ordered list of (name, shape, description) pieces laid end to end in one flat vector.

    Games fill a preallocated vector through `views(buffer)` (reshaped views, no copies), and the
    README and docstrings are generated from `rows()`, so the documentation never drifts.
    """

    def __init__(self, pieces: list[tuple[str, tuple[int, ...], str]]):
        offset = 0
        self.pieces: list[Piece] = []
        for name, shape, description in pieces:
            piece = Piece(name, tuple(int(s) for s in shape), description, offset)
            self.pieces.append(piece)
            offset += piece.size
        self.size = offset
        self._by_name = {p.name: p for p in self.pieces}
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
        lead = buffer.shape[:-1]
        return {p.name: buffer[..., p.slice].reshape(lead + p.shape) for p in self.pieces}

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The pieces of one vector, by name (copies nothing)."""
        return self.views(vector)

    def rows(self) -> list[tuple[str, str, str]]:
        """(name, shape, description) rows for documentation tables."""
        return [(p.name, "x".join(map(str, p.shape)) or "1", p.description) for p in self.pieces]

    def markdown(self) -> str:
        lines = ["| piece | shape | meaning |", "|---|---|---|"]
        lines += [f"| `{n}` | {s} | {d} |" for n, s, d in self.rows()]
        return "\n".join(lines)


def seat_rotation_index(
    obs: Layout,
    source: Layout,
    num_players: int,
    seat_axes: dict[str, int],
    renamed: dict[str, str] | None = None,
) -> np.ndarray:
    """Gather indexes that turn one absolute-seat source vector into every player's observation.

    Games keep a single `source` vector with seats in absolute order (cheap scalar updates) and
    build `observation(p)` as `source.take(index[p])`. For each observation piece, `seat_axes[name]`
    leading axes are seats (0 for shared pieces), rotated so that seat 0 is the observer; a piece
    named in `renamed` reads another source piece indexed by the observer first (e.g. "hand" reads
    row p of "hands").
    """
    n, renamed = num_players, renamed or {}
    index = np.empty((n, obs.size), dtype=np.intp)
    for piece in obs:
        for p in range(n):
            if piece.name in renamed:
                src = source[renamed[piece.name]]
                start = src.offset + p * (src.size // n)
                index[p, piece.slice] = np.arange(start, start + piece.size)
                continue
            src = source[piece.name]
            axes = seat_axes.get(piece.name, 0)
            grid = np.arange(src.size).reshape(src.shape)
            for axis in range(axes):
                grid = np.take(grid, (np.arange(n) + p) % n, axis=axis)
            index[p, piece.slice] = src.offset + grid.reshape(-1)
    return index
