"""The one observer: `observation(p)` is a single gather from a source vector in absolute seats.

A game keeps one source vector holding the table with seats in absolute order (cheap scalar updates,
written once per change, not once per observer) and declares its observation pieces with their axes
(`envs.core.layout`). Every axis declared `seat` means "relative seat, 0 = the observer", so the
gather that turns the source into player p's view follows from the declarations alone: each seat
axis is rotated by p. Nothing else is needed to describe a view, so the network built from the
layout, the documentation and the observer read the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from envs.core.layout import Layout


def seat_gathers(
    layout: Layout,
    num_players: int,
    starts: Mapping[str, int] | None = None,
    own: Mapping[str, int] | None = None,
    rotate: Mapping[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] | None = None,
) -> np.ndarray:
    """index[p] gathers observation(p) from the source vector: `source.take(index[p])`.

    - Every axis of a piece declared `seat` (its length must be the player count) is rotated so that
      position k reads absolute seat (p + k) % n.
    - `starts[name]`: where the piece's absolute-seat copy begins in the source (default: the piece's
      own offset, for a source laid out like the observation).
    - `own[name]`: the piece is the observer's own row of a source block [n, *shape] starting there
      (a hand among every hand), taken as stored: seat axes inside a row are not rotated, so a row
      that names seats keeps them relative to its owner.
    - `rotate[name](block, perm)`: for a piece whose seats do not fill whole axes (some columns of
      a record are seats), the rotation of its index block; `perm[k]` is the absolute seat at
      relative position k.
    """
    n = num_players
    starts, own, rotate = starts or {}, own or {}, rotate or {}
    unknown = (set(starts) | set(own) | set(rotate)) - set(layout.names())
    if unknown:
        raise ValueError(f"seat_gathers: no observation piece named {sorted(unknown)}")
    index = np.empty((n, layout.size), dtype=np.intp)
    for piece in layout:
        seat_axes = [axis for axis, kind in enumerate(piece.axes) if kind == "seat"]
        for axis in seat_axes:
            if piece.shape[axis] != n:
                raise ValueError(
                    f"piece {piece.name!r}: axis {axis} is declared a seat axis but has "
                    f"{piece.shape[axis]} entries for {n} players"
                )
        for p in range(n):
            perm = (p + np.arange(n)) % n
            if piece.name in own:
                start = own[piece.name] + p * piece.size
                index[p, piece.slice] = np.arange(start, start + piece.size)
                continue
            block = np.arange(piece.size).reshape(piece.shape) + starts.get(piece.name, piece.offset)
            for axis in seat_axes:
                block = np.take(block, perm, axis=axis)
            if piece.name in rotate:
                block = rotate[piece.name](block, perm)
            index[p, piece.slice] = block.reshape(-1)
    # left writeable on purpose: numpy's take is about 40% slower with a read-only index array
    return index


class Observer:
    """A game configuration's gathers (`seat_gathers`), shared by every game of that configuration."""

    __slots__ = ("index", "rows")

    def __init__(self, layout: Layout, num_players: int, **options):
        self.index = seat_gathers(layout, num_players, **options)
        self.rows = tuple(row.copy() for row in self.index)  # one owned index per seat (faster takes)

    def observe(self, source: np.ndarray, player: int) -> np.ndarray:
        """Player's view of the source vector (a new array)."""
        return source.take(self.rows[player])
