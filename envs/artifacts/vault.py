"""Spain's hidden vault: what the whole table knows of the face-down Sold and Discard.

Under Spain only the sizes of Sold and Discard are shown, but the public history tells more: a piece
sold by vote is a known artifact, a search that finds nothing tells the draw pile lacks that artifact, a
wrong Call tells the Looters' condition did not hold. The table's knowledge is kept exactly, as the set
of count vectors (Sold per artifact, Discard per artifact) consistent with every public event so far;
the draw pile's content per artifact follows from them (`hidden[a]` = the pieces of artifact a that
are in none of the public places: 5 minus Storage minus the card in hand). `resample_hidden` draws from
this set, and `check_invariants` proves the true piles are in it.

The vault is part of a game's state: a dataclass of one field (the sorted tuple of vectors), so a
saved position writes it as data; `copy()` gives a clone its own (sharing the immutable tuple).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .data import LOOTER_EACH, NUM_ARTIFACTS

A = NUM_ARTIFACTS
Config = tuple[int, ...]  # Sold per artifact, then Discard per artifact


def _splits(caps: Sequence[int], total: int) -> Iterable[tuple[int, ...]]:
    """Every vector of len(caps) non-negative counts, each within its cap, summing to `total`."""
    if not caps:
        if total == 0:
            yield ()
        return
    for k in range(min(caps[0], total) + 1):
        for rest in _splits(caps[1:], total - k):
            yield (k, *rest)


@dataclass
class Vault:
    """The vectors (Sold per artifact, then Discard per artifact) the public history allows: sorted,
    each once (`of` builds it from any iterable)."""

    configs: tuple[Config, ...]

    def __post_init__(self) -> None:
        self._ranges: np.ndarray | None = None  # (a cache of ranges(), not a field)

    @classmethod
    def of(cls, configs: Iterable[Config]) -> Vault:
        return cls(tuple(sorted(set(configs))))

    @classmethod
    def unknown(cls, hidden: Sequence[int], sold_size: int, discard_size: int) -> Vault:
        """Nothing known but the sizes: every split of the hidden pieces."""
        out = []
        for sold in _splits(hidden, sold_size):
            for discard in _splits([h - s for h, s in zip(hidden, sold)], discard_size):
                out.append(sold + discard)
        return cls.of(out)

    def copy(self) -> Vault:
        """An independent copy (the set is an immutable tuple: shared until one of them changes)."""
        out = Vault.__new__(Vault)
        out.configs, out._ranges = self.configs, self._ranges
        return out

    def __contains__(self, config: Config) -> bool:
        return tuple(config) in set(self.configs)

    def __len__(self) -> int:
        return len(self.configs)

    def _map(self, fn: Callable[[Config], Iterable[Config]]) -> None:
        self.configs = tuple(sorted({new for c in self.configs for new in fn(c)}))
        self._ranges = None

    def _keep(self, pred: Callable[[Config], bool]) -> None:
        self.configs = tuple(c for c in self.configs if pred(c))
        self._ranges = None

    @staticmethod
    def _moved(c: Config, src: int | None, dst: int | None) -> Config:
        out = list(c)
        if src is not None:
            out[src] -= 1
        if dst is not None:
            out[dst] += 1
        return tuple(out)

    @staticmethod
    def pile(c: Config, hidden: Sequence[int]) -> list[int]:
        return [hidden[a] - c[a] - c[A + a] for a in range(A)]

    # ----- public events ---------------------------------------------------------------------
    def sell(self, a: int) -> None:
        """A known piece of artifact a goes to Sold (voted, or from Storage)."""
        self._map(lambda c: [self._moved(c, None, a)])

    def discard(self, a: int) -> None:
        """A known piece of artifact a goes to Discard (from Storage)."""
        self._map(lambda c: [self._moved(c, None, A + a)])

    def pay_one(self, to_pile: bool) -> None:
        """A random piece of Sold is Discarded (a resource's cost), or shuffled into the draw pile
        (the Shaman's curse): which one, nobody sees."""
        self._map(lambda c: [self._moved(c, a, None if to_pile else A + a) for a in range(A) if c[a]])

    def sold_to_storage(self, a: int) -> None:
        """A random piece of Sold turns out to be artifact a as it enters Storage."""
        self._keep(lambda c: c[a] > 0)
        self._map(lambda c: [self._moved(c, a, None)])

    def discard_to_pile(self) -> None:
        """A random piece of Discard is shuffled into the draw pile (the Shaman's wrong guess)."""
        self._map(lambda c: [self._moved(c, A + a, None) for a in range(A) if c[A + a]])

    def discard_to_sold(self) -> None:
        """A random piece of Discard returns to Sold (a wrong Call)."""
        self._map(lambda c: [self._moved(c, A + a, a) for a in range(A) if c[A + a]])

    def call_failed(self) -> None:
        """A wrong Call: Sold + Discard did not hold 2 pieces of each artifact."""
        self._keep(lambda c: not all(c[a] + c[A + a] >= LOOTER_EACH for a in range(A)))

    def searched(self, a: int, hidden: Sequence[int], found: bool) -> None:
        """The draw pile was searched for artifact a (before the move): found or not, all see it."""
        self._keep(lambda c: (self.pile(c, hidden)[a] > 0) == found)

    def borrowed(self, a: int, hidden: Sequence[int], storage: Sequence[int]) -> None:
        """Borrow Exhibit took artifact a: among the artifacts in the pile, one with most in Storage."""

        def chosen(c: Config) -> bool:
            options = [b for b, k in enumerate(self.pile(c, hidden)) if k > 0]
            return a in options and storage[a] == max(storage[b] for b in options)

        self._keep(chosen)

    def black_market(self, hidden: Sequence[int]) -> None:
        """A piece of the artifact in the pile with fewest in Sold + Discard (ties random) is sold,
        face down: which one, nobody sees."""

        def sold(c: Config) -> list[Config]:
            options = [b for b, k in enumerate(self.pile(c, hidden)) if k > 0]
            if not options:
                return [c]
            low = min(c[b] + c[A + b] for b in options)
            return [self._moved(c, None, b) for b in options if c[b] + c[A + b] == low]

        self._map(sold)

    def prune(self, hidden: Sequence[int]) -> None:
        """Drop the vectors that leave a negative count in the draw pile (after a public draw)."""
        self._keep(lambda c: min(self.pile(c, hidden)) >= 0)

    def ranges(self) -> np.ndarray:
        """Per artifact [fewest, most] pieces in Sold, then [fewest, most] in Discard, over the set."""
        if self._ranges is None:  # cached until the set changes
            arr = np.array(self.configs, dtype=np.float32).reshape(-1, 2, A)
            lo, hi = arr.min(axis=0), arr.max(axis=0)
            self._ranges = np.stack([lo[0], hi[0], lo[1], hi[1]], axis=1)
        return self._ranges

    def draw(self, rng: np.random.Generator) -> Config:
        """One vector, uniformly among those consistent with the public history."""
        return self.configs[int(rng.integers(len(self.configs)))]
