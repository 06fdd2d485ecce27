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
