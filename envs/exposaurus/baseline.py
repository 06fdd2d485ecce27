"""A scripted Exposaurus player that reads ONLY its observation (and the public tile table).

It plans each excavation for cost and circles: for every tile it may excavate it finds the best cell
and rotation in its museum (gems from the circles it closes, the growth of its fossil groups under the
exact gem-to-group scoring, semicircles left open for later) and takes the best one if it is worth the
scientists (and the paleontologist's 3 points). Otherwise it discovers a tile or two while it has
scientists, recruits when its camp runs low, uses the die to remove tiles its opponents prepared, and
spends yellow-circle gems on the colour that scores most.

    from envs.exposaurus.baseline import make_policy
    policy = make_policy()            # policy(observation, action_mask) -> action
"""

from __future__ import annotations

import numpy as np

from .data import (
    MAX_DISCOVERIES,
    NUM_GEM_COLOURS,
    NUM_KINDS,
    TILE_COST,
    TILE_KIND,
    YELLOW,
    paleontologist_allowed,
    rotated_edges,
)
from .rules import (
    A_DIE_KEEP,
    A_DIE_REMOVE,
    A_DISCOVER,
    A_EXCAVATE,
    A_EXCAVATE_PALEO,
    A_GEM,
    A_NO_RECRUIT,
    A_PLACE,
    A_QUIT,
    A_RECRUIT,
    CELLS,
    DIE,
    EXPEDITION,
    GEM,
    MUSEUM_LIMIT,
    NEIGHBOURS,
    PLACE,
    RECRUIT,
    SIDE,
    best_assignment,
    observation_layout,
)

SCIENTIST_VALUE = 0.6  # a spent scientist can come back by recruitment (losing one), so < 1 point
OPEN_EDGE_VALUE = 0.3  # a semicircle that may still close
TILE_VALUE = 0.3  # a tile is a tie-break and a group seed
PALEONTOLOGIST_VALUE = 3.0  # its end bonus


class _Reader:
    """Slices of the observation for one player count."""

    def __init__(self, n: int):
        layout = observation_layout(n)
        self.n = n
        self.sl = {p.name: (p.slice, p.shape) for p in layout}

    def get(self, obs: np.ndarray, name: str) -> np.ndarray:
        sl, shape = self.sl[name]
        return obs[sl].reshape(shape)


_READERS: dict[int, _Reader] = {}


def _reader(size: int) -> _Reader:
    if size not in _READERS:
        for n in (2, 3, 4):
            if observation_layout(n).size == size:
                _READERS[size] = _Reader(n)
                break
        else:
            raise ValueError(f"not an Exposaurus observation: {size} floats")
    return _READERS[size]


class Museum:
    """My museum as read from the observation: kinds and placed edge colours per cell, groups."""

    def __init__(self, grid: np.ndarray):
        flat = grid.reshape(CELLS, -1)
        occupied = flat[:, :NUM_KINDS].sum(axis=1) > 0
        self.kind = [-1] * CELLS
        self.edges: list[tuple[int, ...] | None] = [None] * CELLS
        self.cells = [int(c) for c in np.flatnonzero(occupied)]
        for c in self.cells:
            self.kind[c] = int(np.argmax(flat[c, :NUM_KINDS]))
            sides = flat[c, NUM_KINDS:].reshape(4, 4)
            self.edges[c] = tuple(int(np.argmax(s)) + 1 if s.any() else 0 for s in sides)
        rows = [c // SIDE for c in self.cells]
        cols = [c % SIDE for c in self.cells]
        self.box = (min(rows), max(rows), min(cols), max(cols))
        # fossil groups: label per cell, size per label
        self.label = [-1] * CELLS
        self.sizes: list[int] = []
        for start in self.cells:
            if self.label[start] >= 0 or self.kind[start] >= 6:
                continue
            lab = len(self.sizes)
            self.label[start] = lab
            stack, size = [start], 0
            while stack:
                here = stack.pop()
                size += 1
                for _d, nb in NEIGHBOURS[here]:
                    if self.label[nb] < 0 and self.kind[nb] == self.kind[start]:
                        self.label[nb] = lab
                        stack.append(nb)
            self.sizes.append(size)
        self.free = self._free_cells()

    def _inside(self, c: int) -> bool:
        r, col = divmod(c, SIDE)
        rmin, rmax, cmin, cmax = self.box
        return max(rmax, r) - min(rmin, r) < MUSEUM_LIMIT and max(cmax, col) - min(cmin, col) < MUSEUM_LIMIT

    def _free_cells(self) -> list[int]:
        out = []
        for c in self.cells:
            for _d, nb in NEIGHBOURS[c]:
                if self.kind[nb] < 0 and nb not in out and self._inside(nb):
                    out.append(nb)
        return out

    def sizes_with(self, cell: int, kind: int) -> list[int]:
        """Group sizes after a tile of `kind` joins at `cell`."""
        if kind >= 6:
            return self.sizes
        merged = {self.label[nb] for _d, nb in NEIGHBOURS[cell] if self.kind[nb] == kind}
        sizes = [s for i, s in enumerate(self.sizes) if i not in merged]
        sizes.append(1 + sum(self.sizes[i] for i in merged))
        return sizes

    def place_value(self, tile: int, cell: int, rot: int, gems: list[int], supply: list[int]):
        """(value of my scoring after the placement incl. circles and open edges, gems after)."""
        edges = rotated_edges(tile, rot)
        gems = gems[:]
        supply = supply[:]
        yellow = 1 if TILE_KIND[tile] == 7 else 0
        open_delta = 0.0
        for d, nb in NEIGHBOURS[cell]:
            other = self.edges[nb]
            if other is None:
                if edges[d] and self._inside(nb):
                    open_delta += OPEN_EDGE_VALUE
                continue
            facing = other[(d + 2) % 4]
            if facing:
                open_delta -= OPEN_EDGE_VALUE  # that semicircle is settled now
            if edges[d] and edges[d] == facing:
                if edges[d] == YELLOW:
                    yellow += 1
                elif supply[edges[d] - 1] > 0:
                    supply[edges[d] - 1] -= 1
                    gems[edges[d] - 1] += 1
        sizes = self.sizes_with(cell, TILE_KIND[tile])
        for _ in range(yellow):
            choices = [c for c in range(NUM_GEM_COLOURS) if supply[c] > 0]
            if not choices:
                break
            best = max(choices, key=lambda c: best_assignment(_plus(gems, c), sizes))
            supply[best] -= 1
            gems[best] += 1
        return best_assignment(gems, sizes) + open_delta, gems

    def best_placement(self, tile: int, gems: list[int], supply: list[int]) -> tuple[float, int]:
        """(value, action) of the best legal cell and rotation for `tile`."""
        best = (-1e9, -1)
        for cell in self.free:
            for rot in range(4):
                value, _ = self.place_value(tile, cell, rot, gems, supply)
                if value > best[0]:
                    best = (value, A_PLACE + 4 * cell + rot)
        return best


def _plus(gems: list[int], colour: int) -> list[int]:
    out = gems[:]
    out[colour] += 1
    return out


def make_policy(game_config=None, seat: int = 0, discoveries_per_move: int = 2):
    """A scripted player: policy(observation, action_mask) -> action (the config is read from the
    observation's size; seat is accepted for the GameSpec hook)."""

    def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = np.asarray(observation)
        mask = np.asarray(action_mask).astype(bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        rd = _reader(obs.size)
        phase = int(np.argmax(rd.get(obs, "phase")))
        me = rd.get(obs, "seat_info")[0]
        camp = int(round(me[0] * 10))
        out = int(round((me[1] + me[2]) * 10))
        gems = [int(round(x * 12)) for x in me[4:7]]
        supply = [int(round(x * 12)) for x in rd.get(obs, "gem_supply")]
        museum = Museum(rd.get(obs, "museum")[0])
        if phase == PLACE:
            tile = int(np.flatnonzero(rd.get(obs, "tile_where")[:, 2])[0])
            best_value, best_action = -1e9, int(legal[0])
            for a in legal:
                cell, rot = divmod(int(a) - A_PLACE, 4)
                value, _ = museum.place_value(tile, cell, rot, gems, supply)
                if value > best_value:
                    best_value, best_action = value, int(a)
            return best_action
        if phase == GEM:
            sizes = museum.sizes
            options = [int(a) - A_GEM for a in legal]
            return A_GEM + max(options, key=lambda c: best_assignment(_plus(gems, c), sizes))
        if phase == RECRUIT:
            return A_RECRUIT if camp <= 3 and out >= 3 else A_NO_RECRUIT
        if phase == DIE:
            markers = rd.get(obs, "tile_marker")
            targets = [int(a) - A_DIE_REMOVE for a in legal if a < A_DIE_KEEP]
            theirs = [t for t in targets if markers[t, 0, 1:].any()]
            if theirs:
                return A_DIE_REMOVE + max(theirs, key=lambda t: TILE_KIND[t])
            return A_DIE_KEEP
        if phase == EXPEDITION:
            base = best_assignment(gems, museum.sizes)
            markers = rd.get(obs, "tile_marker")
            best_net, best_action = 0.0, -1
            for a in legal:
                a = int(a)
                if not A_EXCAVATE <= a < A_QUIT:
                    continue
                paleo = a >= A_EXCAVATE_PALEO
                t = a - (A_EXCAVATE_PALEO if paleo else A_EXCAVATE)
                cost = TILE_COST[t]
                cost -= 1 if markers[t, 0].any() else 0
                if paleo:
                    if not paleontologist_allowed(t):
                        continue
                    cost -= 2
                value, _ = museum.best_placement(t, gems, supply)
                net = value - base + TILE_VALUE - SCIENTIST_VALUE * max(cost, 0)
                if paleo:
                    net -= PALEONTOLOGIST_VALUE
                if net > best_net:
                    best_net, best_action = net, a
            if best_action >= 0:
                return best_action
            discovered = int(round(rd.get(obs, "misc")[4] * MAX_DISCOVERIES))
            if mask[A_DISCOVER] and camp >= 3 and discovered < discoveries_per_move:
                return A_DISCOVER
            return A_QUIT
        return int(legal[0])

    return policy
