"""Exposaurus, the fossil-museum building game, as a pure engine.

The rulebook's order: set-up (starting tiles, the display, the stock, gems 18/27/36); a move is
(die: remove a displayed tile, variant) -> (recruitment, optional) -> expedition: any number of
Discoveries, then one Excavation (pay scientists, place the tile in the museum, take gems for closed
circles) or Quit. The game ends after the 16th museum tile or the last gem (each other player has one
more move), or at once after a full round of quitting. Scoring matches each gem colour to a distinct
group of adjoining identical fossils, the best assignment computed exactly. Readings of what the text
leaves open are marked "Reading" and listed in RULES.md.

The turn flow (`envs.core.flow.TurnFlow`, attribute `flow`): a move pushes its frames in reverse,
`END_MOVE` (a step), the expedition decision, `OFFER_RECRUITMENT` (a step) and, with the die variant,
the die decision. Each decision is a `Decide` frame whose kind is the rulebook's phase (DIE, RECRUIT,
EXPEDITION, PLACE, GEM from data.py; the observation's `phase` piece reads it) and whose mask and
effect are the functions of `DECISIONS` (checked at import against the phase names); a discovery
pushes another expedition decision, an excavation the placement, a yellow circle a gem choice. After
each action the steps run until the next decision waits; the game is over when no frame is left.

Every decision is one AEC step over one flat action space (see `action_groups`). The public part of
the table is kept in one float32 vector in absolute seats, updated as the game changes: the state
setters (`_set_where`, `_set_marker`, `_reveal`, `_gain_gem`, `_put_in_museum`) write their entries,
a decision's effect writes the decider's seat row after its rule ran, and `_apply` the turn pieces
once the flow stops; rule functions do no other bookkeeping (but `_scientist_goes_home`, for a seat
that may not be the decider's). Observations are one gather of it
built by `envs.core.observer.seat_gathers` from the layout's seat axes, and `check_invariants` proves
the vector equal to one rebuilt from scratch.

A game is its configuration's `ExposaurusDefinition` (shared, frozen) and its state (copied by
`clone()`, saved by `to_dict()`); the vector and the other caches of `DERIVED` are left out of a saved
position and `_derive` makes them again; `check_position` refuses a position that breaks a rule
(RULES.md, "Positions").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

from envs.core import ActionGroup, ConfigError, Game, GameType, Layout, PieceSpec, PositionError
from envs.core.config import require_choice, require_range
from envs.core.flow import Decide, Do, TurnFlow, check_handlers
from envs.core.observer import Observer
from envs.core.position import Definition, check_ints

from . import render
from .data import (
    CELLS,
    CENTRE,
    CLAIM_DISC_POINTS,
    DIE,
    DIE_SIDES,
    DISC_ON_TILE,
    DISC_SPENT,
    DISC_UNUSED,
    END_TILES,
    EXPEDITION,
    GEM,
    GEM_COLOURS,
    GEMS_PER_COLOUR,
    KINDS,
    M_DISC,
    M_NONE,
    M_SCIENTIST,
    MAX_DECISIONS,
    MAX_DISCOVERIES,
    MAX_GEM_CHOICES,
    MAX_PLAYERS,
    MAX_SCORE,
    MIN_PLAYERS,
    MUSEUM_LIMIT,
    NUM_FOSSILS,
    NUM_GEM_COLOURS,
    NUM_KINDS,
    NUM_PHASES,
    NUM_TILES,
    OVER,
    PALEONTOLOGIST_DISCOUNT,
    PALEONTOLOGIST_POINTS,
    PHASE_NAMES,
    PLACE,
    RECRUIT,
    REWARDS,
    SCIENTIST_ON_TILE_DISCOUNT,
    SCIENTISTS,
    SIDE,
    STARTING_TILES,
    TILE_COST,
    TILE_EDGES,
    TILE_KIND,
    TILE_START,
    W_BOX,
    W_DISPLAY,
    W_HAND,
    W_MUSEUM,
    W_STOCK,
    YELLOW,
    YELLOW_GEM_TILE,
    max_score,
    paleontologist_allowed,
    rotated_edges,
    tile_name,
)

DR = (-1, 0, 1, 0)  # north, east, south, west
DC = (0, 1, 0, -1)
NEIGHBOURS = tuple(
    tuple(
        (d, (r + DR[d]) * SIDE + c + DC[d])
        for d in range(4)
        if 0 <= r + DR[d] < SIDE and 0 <= c + DC[d] < SIDE
    )
    for r in range(SIDE)
    for c in range(SIDE)
)

# ----- the flat action space -------------------------------------------------------------------
A_DIE_REMOVE = 0  # + tile: remove that displayed tile (die variant)
A_DIE_KEEP = A_DIE_REMOVE + NUM_TILES  # remove nothing
A_RECRUIT = A_DIE_KEEP + 1
A_NO_RECRUIT = A_RECRUIT + 1
A_DISCOVER = A_NO_RECRUIT + 1  # turn a stock tile up, put a scientist on it
A_DISCOVER_DISC = A_DISCOVER + 1  # ... put the claim disc on it
A_EXCAVATE = A_DISCOVER_DISC + 1  # + tile
A_EXCAVATE_PALEO = A_EXCAVATE + NUM_TILES  # + tile, with the paleontologist
A_QUIT = A_EXCAVATE_PALEO + NUM_TILES
A_PLACE = A_QUIT + 1  # + cell * 4 + rotation
A_GEM = A_PLACE + CELLS * 4  # + colour (red, green, blue): the gem of a yellow circle
NUM_ACTIONS = A_GEM + NUM_GEM_COLOURS
# the decision that offers each action (the illegal-action reason names it when another one waits)
ACTION_DECISION = (
    (DIE,) * (A_DIE_KEEP + 1)
    + (RECRUIT,) * 2
    + (EXPEDITION,) * (A_PLACE - A_DISCOVER)
    + (PLACE,) * (CELLS * 4)
    + (GEM,) * NUM_GEM_COLOURS
)
assert len(ACTION_DECISION) == NUM_ACTIONS

SEAT_INFO = (
    "scientists in the base camp",
    "scientists on the museum tile",
    "scientists on displayed tiles",
    "scientists in the national museum",
    "red gems",
    "green gems",
    "blue gems",
    "paleontologist unused",
    "claim disc unused",
    "claim disc on a displayed tile",
    "claim disc spent",
    "dino tiles in the museum",
    "score if the game ended now",
)
SEAT_SCALE = (10, 10, 10, 10, 12, 12, 12, 1, 1, 1, 1, 16, MAX_SCORE)
NUM_SEAT_INFO = len(SEAT_INFO)
GRID_CHANNELS = NUM_KINDS + 4 * 4  # kind one-hot, then per side (N, E, S, W) the colour R, G, B, Y
MISC = (
    f"yellow-circle gems still to choose / {MAX_GEM_CHOICES}",
    "the end is triggered (final round)",
    "moves left in the final round / players",
    "quitting moves in a row / players",
    f"discoveries made this move / {MAX_DISCOVERIES}",
)


@dataclass(frozen=True)
class ExposaurusConfig:
    num_players: int = 4
    die: bool | None = None  # the die variant; None: on for 2 players, off otherwise
    reward: str = "rank"  # rank: winner +1, others -1 (ties split); margin: score - mean of the others
    max_decisions: int = MAX_DECISIONS  # the faces truncate past this many (the rules bound games below it)

    def validate(self) -> None:
        require_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        if self.die is not None and not isinstance(self.die, bool):
            raise ConfigError(f"die must be True, False or None, got {self.die!r}")
        require_choice("reward", self.reward, REWARDS)
        require_range("max_decisions", self.max_decisions, 1, 10**9)

    @property
    def die_variant(self) -> bool:
        return self.num_players == 2 if self.die is None else self.die


def _pieces(n: int) -> list[tuple[str, tuple[int, ...], str, tuple[str, ...]]]:
    """(name, shape, description, axis kinds) of the public vector; every value in [0, 1]. Every axis
    declared "seat" is relative to the observer (0 = the observer): the observer rotates exactly those."""
    return [
        (
            "tile_where",
            (NUM_TILES, 4),
            "per tile id: face down in the stock (unseen) / in the display / "
            "being placed / removed to the box (museum tiles: see tile_museum)",
            ("tile", "feature"),
        ),
        ("tile_museum", (NUM_TILES, n), "per tile id: in the museum of seat s", ("tile", "seat")),
        (
            "tile_marker",
            (NUM_TILES, 2, n),
            "per displayed tile: a scientist / the claim disc of seat s on it",
            ("tile", "feature", "seat"),
        ),
        (
            "museum",
            (n, SIDE, SIDE, GRID_CHANNELS),
            f"each seat's museum on a {SIDE}x{SIDE} grid, starting tile "
            f"in the centre: kind one-hot ({', '.join(KINDS)}), then per side N,E,S,W the semicircle colour "
            "R,G,B,Y as placed (rotation applied)",
            ("seat", "row", "col", "feature"),
        ),
        (
            "seat_info",
            (n, NUM_SEAT_INFO),
            "per seat: "
            + "; ".join(
                f"{name}/{scale}" if scale != 1 else name for name, scale in zip(SEAT_INFO, SEAT_SCALE)
            ),
            ("seat", "feature"),
        ),
        (
            "gem_supply",
            (NUM_GEM_COLOURS,),
            "gems of each colour (red, green, blue) left in the supply / 12",
            ("item",),
        ),
        (
            "stock",
            (1 + NUM_KINDS,),
            "tiles left in the stock / 64, then the unseen tiles of each kind "
            "(" + ", ".join(KINDS) + ") / 16",
            ("feature",),
        ),
        (
            "in_hand",
            (GRID_CHANNELS,),
            "the excavated tile waiting to be placed (placement decision): kind one-hot, then per side "
            "N,E,S,W its semicircle colour R,G,B,Y at rotation 0",
            ("feature",),
        ),
        ("to_move", (n,), "the seat to decide now", ("seat",)),
        ("phase", (NUM_PHASES,), "decision: " + ", ".join(PHASE_NAMES[:NUM_PHASES]), ("feature",)),
        ("die_roll", (DIE_SIDES,), "the die just rolled (1..6), during the die decision", ("feature",)),
        ("misc", (len(MISC),), "; ".join(MISC), ("feature",)),
    ]


def observation_layout(n: int) -> Layout:
    """The observation's pieces for n players (the public vector, seats relative to the observer)."""
    return Layout([PieceSpec(name, shape, desc, 0, 1, axes) for name, shape, desc, axes in _pieces(n)])


class ExposaurusDefinition(Definition):
    """What a configuration fixes (the player count and the die variant), built once and shared by
    every game of it and every copy: layouts, the observer's gathers, where each piece starts in the
    public vector, and each seat's decision frames."""

    def __init__(self, n: int, die_variant: bool):
        self.num_players = n
        self.die_variant = die_variant
        self.num_actions = NUM_ACTIONS
        obs = self.observation_layout = observation_layout(n)
        self.state_layout = Layout(
            # the observation's pieces with their axes, seats absolute (an auxiliary target rotates them)
            [
                PieceSpec(name, shape, desc.replace("seat s", "absolute seat s"), axes=axes)
                for name, shape, desc, axes in _pieces(n)
            ]
            + [("stock_order", (NUM_TILES,), "the stock from the top: tile id + 1 (0 = empty); hidden")]
        )
        handlers = [DECISIONS[PHASE_NAMES[kind]] for kind in range(NUM_PHASES)]
        # _decisions[p][kind]: seat p's decision frame of that kind
        self._decisions = tuple(
            tuple(Decide(kind, p, h.legal, h.then) for kind, h in enumerate(handlers)) for p in range(n)
        )
        # observation(p) = public vector .take(_gathers[p]) (envs.core.observer; one owned index per seat)
        self._gathers = Observer(obs, n).rows
        off = {piece.name: piece.offset for piece in obs}  # where each piece starts in the public vector
        self._o_where = off["tile_where"]
        self._o_tmus = off["tile_museum"]
        self._o_mark = off["tile_marker"]
        self._o_mus = off["museum"]
        self._o_seat = off["seat_info"]
        self._o_gems = off["gem_supply"]
        self._o_stock = off["stock"]
        self._o_hand = off["in_hand"]
        self._o_move = off["to_move"]
        self.freeze()


@cache
def definition(n: int, die_variant: bool) -> ExposaurusDefinition:
    return ExposaurusDefinition(n, die_variant)


# the edges (N, E, S, W) of each tile at each rotation
ROTATED = tuple(tuple(rotated_edges(t, rot) for rot in range(4)) for t in range(NUM_TILES))


def _row_of(name: str, row: object, kind: type) -> None:
    """A museum or gem row is the container the rules change it as (a tuple replaced whole, a list)."""
    if type(row) is not kind:
        raise PositionError(f"{name} must be a {kind.__name__} of integers")


def best_assignment(gems: list[int], sizes: list[int]) -> int:
    """Points of the best matching of gem colours to distinct groups: gems x group size summed.

    Exact by the rearrangement inequality: pairing the largest gem count with the largest group, the
    second with the second, ... maximises a sum of products of non-negative numbers over all
    injective assignments (tests check it against brute force).
    """
    g = sorted(gems, reverse=True)
    s = sorted(sizes, reverse=True)
    return sum(a * b for a, b in zip(g, s))


def fossil_groups(kinds_by_cell: dict[int, int]) -> list[tuple[int, int]]:
    """(kind, size) of every group of orthogonally adjoining tiles with the same fossil."""
    seen = set()
    groups = []
    for cell, kind in kinds_by_cell.items():
        if cell in seen or kind >= NUM_FOSSILS:
            continue
        seen.add(cell)
        stack, size = [cell], 0
        while stack:
            here = stack.pop()
            size += 1
            for _d, nb in NEIGHBOURS[here]:
                if nb not in seen and kinds_by_cell.get(nb, -1) == kind:
                    seen.add(nb)
                    stack.append(nb)
        groups.append((kind, size))
    return groups


class Exposaurus(Game):
    name = "exposaurus"
    config_class = ExposaurusConfig

    def __init__(
        self, config: ExposaurusConfig | None = None, rng: np.random.Generator | None = None, **options
    ):
        super().__init__(config, rng, **options)
        self._pub = np.zeros(self.observation_layout.size, dtype=np.float32)
        self._setup()

    @classmethod
    def definition(cls, config: ExposaurusConfig) -> ExposaurusDefinition:
        return definition(config.num_players, config.die_variant)

    # ================================================================ set-up
    def _setup(self) -> None:
        n, rng = self.num_players, self.rng
        self.where = [W_STOCK] * NUM_TILES
        self.marker = [M_NONE] * NUM_TILES
        self.marker_owner = [-1] * NUM_TILES
        self.display: list[int] = []
        # each seat's museum: a row per seat of tile ids and rotations by cell, its cells in placement
        # order, its bounding box (rmin, rmax, cmin, cmax). Rows are tuples, replaced whole by a
        # placement: a copy shares them (placements are rare, copies are made by every simulation)
        self.grid = [(-1,) * CELLS] * n
        self.rotation = [(0,) * CELLS] * n
        self.tiles_of = [()] * n
        self.box = [(0, 0, 0, 0)] * n
        self.camp = [SCIENTISTS] * n
        self.museum_sci = [0] * n
        self.field_sci = [0] * n
        self.national = [0] * n
        self.gems = [[0] * NUM_GEM_COLOURS for _ in range(n)]
        self.supply = [GEMS_PER_COLOUR[n]] * NUM_GEM_COLOURS
        self.paleo = [True] * n
        self.disc = [DISC_UNUSED] * n
        self.group_points = [0] * n
        self.group_sizes = [()] * n
        self.unseen = [0] * NUM_KINDS
        for t in range(NUM_TILES):
            self.unseen[TILE_KIND[t]] += 1
        # each player blindly draws one of the 6 starting tiles; the rest join the stock
        starts = [int(t) for t in rng.permutation(STARTING_TILES)][:n]
        self.stock = [t for t in range(NUM_TILES) if t not in starts]
        rng.shuffle(self.stock)
        self.stock = [int(t) for t in self.stock]
        self.flow = TurnFlow()
        self.player = 0  # whose move it is
        self.die_value = 0
        self.pending = -1
        self.yellow = 0
        self.discoveries = 0
        self.acted = False
        self.end_triggered = False
        self.final_left = 0
        self.quits = 0
        self.winners: list[int] = []
        pub = self._pub
        for t in range(NUM_TILES):
            pub[self._o_where + 4 * t + W_STOCK] = 1.0
        for p, t in enumerate(starts):
            self._reveal(t)
            self._put_in_museum(p, t, CENTRE, 0)
        # as many tiles as players, face up in the middle
        for _ in range(n):
            self._turn_up_from_stock()
        for p in range(n):
            self._sync_seat(p)
        self._sync_supply()
        # the highest starting tile begins
        self.player = max(range(n), key=lambda p: TILE_START[starts[p]])
        self._start_move()
        self.flow.run(self)
        self._sync_turn()
        if not self.die_variant:
            self.rng = None  # nothing is drawn after set-up without the die: the game keeps no generator

    # ================================================================ public-vector helpers
    def _set_where(self, t: int, where: int) -> None:
        pub, base = self._pub, self._o_where + 4 * t
        pub[base : base + 4] = 0.0
        self.where[t] = where
        if where != W_MUSEUM:
            pub[base + where] = 1.0

    def _set_marker(self, t: int, kind: int, owner: int) -> None:
        n, pub = self.num_players, self._pub
        old = self.marker[t]
        if old != M_NONE:
            pub[self._o_mark + t * 2 * n + (old - 1) * n + self.marker_owner[t]] = 0.0
        self.marker[t] = kind
        self.marker_owner[t] = owner if kind != M_NONE else -1
        if kind != M_NONE:
            pub[self._o_mark + t * 2 * n + (kind - 1) * n + owner] = 1.0

    def _show_in_hand(self, t: int, value: float) -> None:
        pub, base = self._pub, self._o_hand
        pub[base + TILE_KIND[t]] = value
        for d, colour in enumerate(TILE_EDGES[t]):
            if colour:
                pub[base + NUM_KINDS + 4 * d + colour - 1] = value

    def _reveal(self, t: int) -> None:
        """A tile leaves the unseen ones (turned up, or a starting tile): the stock piece follows."""
        kind = TILE_KIND[t]
        self.unseen[kind] -= 1
        pub, base = self._pub, self._o_stock
        pub[base] = len(self.stock) / 64
        pub[base + 1 + kind] = self.unseen[kind] / 16

    def _gain_gem(self, p: int, colour: int) -> None:
        """A gem (0 red, 1 green, 2 blue) from the supply to player p."""
        self.supply[colour] -= 1
        self.gems[p][colour] += 1
        self._pub[self._o_gems + colour] = self.supply[colour] / 12

    def _sync_seat(self, p: int) -> None:
        base = self._o_seat + p * NUM_SEAT_INFO
        g = self.gems[p]
        disc = self.disc[p]
        self._pub[base : base + NUM_SEAT_INFO] = (
            self.camp[p] / 10,
            self.museum_sci[p] / 10,
            self.field_sci[p] / 10,
            self.national[p] / 10,
            g[0] / 12,
            g[1] / 12,
            g[2] / 12,
            float(self.paleo[p]),
            float(disc == DISC_UNUSED),
            float(disc == DISC_ON_TILE),
            float(disc == DISC_SPENT),
            len(self.tiles_of[p]) / 16,
            self.score(p) / MAX_SCORE,
        )

    def _sync_supply(self) -> None:
        """The gem supply and the stock pieces in full (set-up; later changes write single entries)."""
        pub = self._pub
        s = self.supply
        pub[self._o_gems : self._o_gems + 3] = (s[0] / 12, s[1] / 12, s[2] / 12)
        o = self._o_stock
        pub[o] = len(self.stock) / 64
        pub[o + 1 : o + 1 + NUM_KINDS] = [u / 16 for u in self.unseen]

    def _sync_turn(self) -> None:
        """to_move, phase, die_roll and misc, the last pieces of the vector, read from the waiting
        decision (none once the game is over): written once per action, after the rules ran."""
        n, frames = self.num_players, self.flow.frames
        tail = [0.0] * (n + NUM_PHASES + DIE_SIDES)
        if frames:
            top = frames[-1]
            tail[top.player] = 1.0
            tail[n + top.kind] = 1.0
            if top.kind == DIE:
                tail[n + NUM_PHASES + self.die_value - 1] = 1.0
        tail += (
            self.yellow / MAX_GEM_CHOICES,
            float(self.end_triggered),
            self.final_left / n,
            self.quits / n,
            self.discoveries / MAX_DISCOVERIES,
        )
        self._pub[self._o_move :] = tail

    def _public_from_scratch(self) -> np.ndarray:
        """The public vector rebuilt from the engine's state (check_invariants compares it)."""
        n = self.num_players
        v = self.observation_layout.views(np.zeros(self.observation_layout.size, dtype=np.float32))
        for t in range(NUM_TILES):
            if self.where[t] != W_MUSEUM:
                v["tile_where"][t, self.where[t]] = 1
            if self.marker[t] != M_NONE:
                v["tile_marker"][t, self.marker[t] - 1, self.marker_owner[t]] = 1
        for p in range(n):
            for cell in self.tiles_of[p]:
                t = self.grid[p][cell]
                v["tile_museum"][t, p] = 1
                r, c = divmod(cell, SIDE)
                v["museum"][p, r, c, TILE_KIND[t]] = 1
                for d, colour in enumerate(rotated_edges(t, self.rotation[p][cell])):
                    if colour:
                        v["museum"][p, r, c, NUM_KINDS + 4 * d + colour - 1] = 1
            disc = self.disc[p]
            v["seat_info"][p] = np.array(
                [
                    self.camp[p],
                    self.museum_sci[p],
                    self.field_sci[p],
                    self.national[p],
                    *self.gems[p],
                    self.paleo[p],
                    disc == DISC_UNUSED,
                    disc == DISC_ON_TILE,
                    disc == DISC_SPENT,
                    len(self.tiles_of[p]),
                    self.score(p),
                ],
                dtype=np.float64,
            ) / np.array(SEAT_SCALE)
        v["gem_supply"][:] = np.array(self.supply) / 12
        v["stock"][0] = len(self.stock) / 64
        v["stock"][1:] = np.array(self.unseen) / 16
        if self.pending >= 0:
            v["in_hand"][TILE_KIND[self.pending]] = 1
            for d, colour in enumerate(TILE_EDGES[self.pending]):
                if colour:
                    v["in_hand"][NUM_KINDS + 4 * d + colour - 1] = 1
        decision = self.flow.decision
        if decision is not None:
            v["to_move"][decision.player] = 1
            v["phase"][decision.kind] = 1
            if decision.kind == DIE:
                v["die_roll"][self.die_value - 1] = 1
        v["misc"][:] = (
            self.yellow / MAX_GEM_CHOICES,
            self.end_triggered,
            self.final_left / n,
            self.quits / n,
            self.discoveries / MAX_DISCOVERIES,
        )
        return np.concatenate([v[p.name].reshape(-1) for p in self.observation_layout])

    # ================================================================ the museum
    def _put_in_museum(self, p: int, t: int, cell: int, rot: int) -> list[int]:
        """Place tile t in p's museum; return the colours of the circles it closes (edge codes)."""
        grid, rotation = self.grid[p], self.rotation[p]
        self.grid[p] = grid[:cell] + (t,) + grid[cell + 1 :]
        self.rotation[p] = rotation[:cell] + (rot,) + rotation[cell + 1 :]
        cells = self.tiles_of[p] = self.tiles_of[p] + (cell,)
        edges = ROTATED[t][rot]
        self._set_where(t, W_MUSEUM)
        pub = self._pub
        pub[self._o_tmus + t * self.num_players + p] = 1.0
        base = self._o_mus + (p * CELLS + cell) * GRID_CHANNELS
        pub[base + TILE_KIND[t]] = 1.0
        for d in range(4):
            if edges[d]:
                pub[base + NUM_KINDS + 4 * d + edges[d] - 1] = 1.0
        r, c = divmod(cell, SIDE)
        if len(cells) == 1:
            self.box[p] = (r, r, c, c)
        else:
            rmin, rmax, cmin, cmax = self.box[p]
            self.box[p] = (min(rmin, r), max(rmax, r), min(cmin, c), max(cmax, c))
        circles = []
        for d, nb in NEIGHBOURS[cell]:  # (the rows before this placement: nb is another cell)
            other = grid[nb]
            if other >= 0 and edges[d] and edges[d] == ROTATED[other][rotation[nb]][(d + 2) % 4]:
                circles.append(edges[d])
        self._update_groups(p)
        return circles

    def _update_groups(self, p: int) -> None:
        """Recount p's fossil groups (after a placement) and the gem-group points."""
        grid = self.grid[p]
        kinds = {cell: TILE_KIND[grid[cell]] for cell in self.tiles_of[p]}
        self.group_sizes[p] = tuple(size for _kind, size in fossil_groups(kinds))
        self._update_points(p)

    def _update_points(self, p: int) -> None:
        """The best gem-colour-to-group points (after new gems)."""
        self.group_points[p] = best_assignment(self.gems[p], self.group_sizes[p])

    def placement_problem(self, p: int, cell: int) -> str | None:
        """None if the excavated tile may go on `cell` of p's museum: an empty cell touching a museum
        tile by a side, keeping the tiles within a 4x4 box; else why not. The one statement of the
        rule: the mask and the illegal-action reason read it."""
        grid = self.grid[p]
        if grid[cell] >= 0:
            return "that museum cell is taken"
        if not any(grid[nb] >= 0 for _d, nb in NEIGHBOURS[cell]):
            return "a new tile must touch a museum tile by a side"
        if not self._keeps_4x4(p, cell):
            return "the museum's dino tiles may not exceed 4x4"
        return None

    def _keeps_4x4(self, p: int, cell: int) -> bool:
        """A tile on `cell` keeps p's museum within a 4x4 box."""
        r, c = divmod(cell, SIDE)
        rmin, rmax, cmin, cmax = self.box[p]
        return max(rmax, r) - min(rmin, r) < MUSEUM_LIMIT and max(cmax, c) - min(cmin, c) < MUSEUM_LIMIT

    # ================================================================ scoring
    def score(self, p: int) -> int:
        """Points if the game ended now (every scientist outside the national museum returns to camp)."""
        return (
            self.group_points[p]
            + (SCIENTISTS - self.national[p])
            + CLAIM_DISC_POINTS * (self.disc[p] == DISC_UNUSED)
            + PALEONTOLOGIST_POINTS * self.paleo[p]
        )

    def scores(self) -> list[int]:
        return [self.score(p) for p in range(self.num_players)]

    def rank_key(self, p: int) -> tuple[int, int, int]:
        """Points, then tiles in the museum, then scientists in camp after the final return."""
        return (self.score(p), len(self.tiles_of[p]), SCIENTISTS - self.national[p])

    # ================================================================ a move
    def _start_move(self) -> None:
        """The mover's frames, pushed in reverse: (die) -> (recruitment) -> expedition -> end of move."""
        self.discoveries = 0
        self.acted = False
        self.yellow = 0
        frames, mine = self.flow.frames, self._decisions[self.player]
        frames.append(END_MOVE)
        frames.append(mine[EXPEDITION])
        frames.append(OFFER_RECRUITMENT)
        if self.die_variant:
            self.die_value = int(self.rng.integers(1, DIE_SIDES + 1))
            # Reading: the die decision is skipped when no displayed tile can be removed
            if any(self.die_removal_problem(t) is None for t in self.display):
                frames.append(mine[DIE])

    def _offer_recruitment(self) -> None:
        """Reading: recruitment is offered only with at least one scientist out."""
        p = self.player
        if self.museum_sci[p] + self.field_sci[p] > 0:
            self.flow.frames.append(self._decisions[p][RECRUIT])

    def _end_move(self) -> None:
        """Count quitting moves, trigger / run down the end, then the next player's move."""
        n, p = self.num_players, self.player
        self.quits = 0 if self.acted else self.quits + 1
        if self.end_triggered:
            self.final_left -= 1
        elif len(self.tiles_of[p]) >= END_TILES or sum(self.supply) == 0:
            self.end_triggered = True
            self.final_left = n - 1
        if self.quits >= n or (self.end_triggered and self.final_left <= 0):
            self._game_over()
            return
        self.player = (p + 1) % n
        self._start_move()

    def _game_over(self) -> None:
        self.flow.clear()
        self.pending = -1
        self.yellow = 0
        self.winners = self._best_ranked()

    def _best_ranked(self) -> list[int]:
        """The seats with the best `rank_key`: the winners once the game is over."""
        keys = [self.rank_key(p) for p in range(self.num_players)]
        best = max(keys)
        return [p for p in range(self.num_players) if keys[p] == best]

    # ----- the phases as the rulebook names them ---------------------------------------------
    def die_removal_problem(self, t: int) -> str | None:
        """None if the die lets the mover remove tile t: a displayed tile costing at most the pips
        and without a claim disc; else why not (the mask, the reason and the skip read it)."""
        if self.where[t] != W_DISPLAY:
            return f"tile {t} is not in the display"
        if self.marker[t] == M_DISC:
            return "a tile with a claim disc cannot be removed"
        if TILE_COST[t] > self.die_value:
            return f"the tile costs {TILE_COST[t]} cubes, more than the {self.die_value} rolled"
        return None

    def throw_die_remove(self, t: int | None) -> None:
        """Die variant: remove a displayed tile costing at most the pips (its scientist goes home)."""
        if t is not None:
            if self.marker[t] == M_SCIENTIST:
                self._scientist_goes_home(self.marker_owner[t])
            self._set_marker(t, M_NONE, -1)
            self.display.remove(t)
            self._set_where(t, W_BOX)

    def _scientist_goes_home(self, q: int) -> None:
        """A scientist of player q leaves a displayed tile for q's base camp."""
        self.field_sci[q] -= 1
        self.camp[q] += 1
        self._sync_seat(q)

    def recruitment(self) -> None:
        """All scientists from the museum tile and the dino tiles return; one goes to the national museum."""
        p = self.player
        for t in self.display:
            if self.marker[t] == M_SCIENTIST and self.marker_owner[t] == p:
                self._set_marker(t, M_NONE, -1)
        back = self.museum_sci[p] + self.field_sci[p]
        self.museum_sci[p] = self.field_sci[p] = 0
        self.camp[p] += back - 1
        self.national[p] += 1

    def _turn_up_from_stock(self) -> int:
        t = self.stock.pop()
        self._reveal(t)
        self._set_where(t, W_DISPLAY)
        self.display.append(t)
        return t

    def discovery_problem(self, with_disc: bool) -> str | None:
        """None if the mover may make a Discovery now: a stock tile and a scientist in the camp (or
        the unused claim disc); else why not (the mask and the reason read it)."""
        if not self.stock:
            return "the stock is empty"
        p = self.player
        if with_disc:
            return None if self.disc[p] == DISC_UNUSED else "the claim disc is already used"
        return None if self.camp[p] > 0 else "no scientist in the base camp"

    def discovery(self, with_disc: bool) -> None:
        """Turn a stock tile up into the display and put a scientist (or the claim disc) on it."""
        p = self.player
        t = self._turn_up_from_stock()
        if with_disc:
            self.disc[p] = DISC_ON_TILE
            self._set_marker(t, M_DISC, p)
        else:
            self.camp[p] -= 1
            self.field_sci[p] += 1
            self._set_marker(t, M_SCIENTIST, p)
        self.discoveries += 1
        self.acted = True

    def excavation_cost(self, t: int, with_paleontologist: bool) -> int:
        """Scientists from the camp: cost, -2 with the paleontologist, -1 if a scientist lies on it."""
        cost = TILE_COST[t]
        if with_paleontologist:
            cost -= PALEONTOLOGIST_DISCOUNT
        if self.marker[t] == M_SCIENTIST:
            cost -= SCIENTIST_ON_TILE_DISCOUNT
        return max(0, cost)

    def excavation_problems(self, t: int) -> tuple[tuple | None, tuple | None]:
        """(without, with the paleontologist): None if the current player may excavate displayed tile
        t now that way, else what stands in the way, as data (`excavation_refusal` words it). The one
        statement of the rule: the legal mask (both ways at once) and the illegal-action reason read
        it."""
        p = self.player
        if self.where[t] != W_DISPLAY:
            problem = ("not displayed", t)
            return problem, problem
        if len(self.tiles_of[p]) >= END_TILES:
            problem = ("museum complete", END_TILES)
            return problem, problem
        if self.marker[t] == M_DISC and self.marker_owner[t] != p:
            problem = ("claimed", t, self.marker_owner[t])
            return problem, problem
        camp = self.camp[p]
        need = self.excavation_cost(t, False)
        plain = None if need <= camp else ("too few scientists", need, camp)
        if not self.paleo[p]:
            return plain, ("paleontologist used",)
        if not paleontologist_allowed(t):
            return plain, ("paleontologist kind", KINDS[TILE_KIND[t]])
        need = self.excavation_cost(t, True)
        return plain, (None if need <= camp else ("too few scientists", need, camp))

    def excavation_problem(self, t: int, with_paleontologist: bool) -> tuple | None:
        """What stands in the way of excavating t that way (None: nothing); see excavation_problems."""
        return self.excavation_problems(t)[with_paleontologist]

    @staticmethod
    def excavation_refusal(problem: tuple) -> str:
        what, *details = problem
        words = {
            "not displayed": "tile {} is not in the display",
            "museum complete": "the museum already holds {} tiles",
            "claimed": "tile {} carries player {}'s claim disc",
            "paleontologist used": "the paleontologist is already used",
            "paleontologist kind": "the paleontologist only helps with bones, claws and footprints, not a {}",
            "too few scientists": "it needs {} scientists and the base camp has {}",
        }
        return words[what].format(*details)

    def excavation(self, t: int, with_paleontologist: bool) -> None:
        """Pay the scientists, take the tile from the display; it is placed next (a placement decision)."""
        p = self.player
        need = self.excavation_cost(t, with_paleontologist)
        if self.marker[t] == M_SCIENTIST:
            q = self.marker_owner[t]
            if q == p:  # an own scientist joins the payment
                self.field_sci[p] -= 1
                self.museum_sci[p] += 1
            else:  # another player's scientist returns to its base camp
                self._scientist_goes_home(q)
        elif self.marker[t] == M_DISC:
            self.disc[p] = DISC_SPENT
        self._set_marker(t, M_NONE, -1)
        if with_paleontologist:
            self.paleo[p] = False  # used paleontologists leave the game
        self.camp[p] -= need
        self.museum_sci[p] += need
        self.display.remove(t)
        self._set_where(t, W_HAND)
        self.pending = t
        self._show_in_hand(t, 1.0)
        self.acted = True

    def placement(self, cell: int, rot: int) -> None:
        """Put the excavated tile in the museum; closed circles give gems (yellow: the player's choice,
        `yellow` of them, taken by gem decisions)."""
        p, t = self.player, self.pending
        self.pending = -1
        self._show_in_hand(t, 0.0)
        circles = self._put_in_museum(p, t, cell, rot)
        yellow = 1 if TILE_KIND[t] == YELLOW_GEM_TILE else 0
        for colour in circles:
            if colour == YELLOW:
                yellow += 1
            elif self.supply[colour - 1] > 0:  # Reading: a colour run out gives nothing
                self._gain_gem(p, colour - 1)
        self._update_points(p)
        self.yellow = yellow

    def take_gem(self, colour: int) -> None:
        """One gem of the chosen colour for a yellow circle (or the yellow gem tile)."""
        p = self.player
        self._gain_gem(p, colour)
        self.yellow -= 1
        self._update_points(p)

    def _gems_of_choice_next(self) -> None:
        """The next gem of choice is a decision while any is owed and the supply has one."""
        if self.yellow and sum(self.supply):
            self.flow.frames.append(self._decisions[self.player][GEM])
        else:
            self.yellow = 0

    # ----- the decisions: each kind's mask, effect and refusal (the table DECISIONS lists them);
    # an effect runs the rule, writes the decider's row of the public vector, then pushes what follows
    def _die_mask(self, mask: np.ndarray) -> None:
        for t in self.display:
            if self.die_removal_problem(t) is None:
                mask[A_DIE_REMOVE + t] = True
        mask[A_DIE_KEEP] = True

    def _die_choice(self, action: int) -> None:
        self.throw_die_remove(None if action == A_DIE_KEEP else action - A_DIE_REMOVE)

    def _die_refusal(self, action: int) -> str:
        return self.die_removal_problem(action - A_DIE_REMOVE) or "not allowed"

    def _recruitment_mask(self, mask: np.ndarray) -> None:
        mask[A_RECRUIT] = mask[A_NO_RECRUIT] = True

    def _recruitment_choice(self, action: int) -> None:
        if action == A_RECRUIT:
            self.recruitment()
            self._sync_seat(self.player)

    def _recruitment_refusal(self, action: int) -> str:
        return "the rules do not allow it now"

    def _expedition_mask(self, mask: np.ndarray) -> None:
        mask[A_DISCOVER] = self.discovery_problem(False) is None
        mask[A_DISCOVER_DISC] = self.discovery_problem(True) is None
        problems = self.excavation_problems
        for t in self.display:
            plain, paleo = problems(t)
            mask[A_EXCAVATE + t] = plain is None
            mask[A_EXCAVATE_PALEO + t] = paleo is None
        mask[A_QUIT] = True

    def _expedition_choice(self, action: int) -> None:
        """Discovery (then the expedition goes on), Excavation (then the placement) or Quit."""
        if action == A_QUIT:
            return  # the move ends: END_MOVE is next
        p = self.player
        if action < A_EXCAVATE:
            self.discovery(action == A_DISCOVER_DISC)
            self.flow.frames.append(self._decisions[p][EXPEDITION])
        else:
            paleo = action >= A_EXCAVATE_PALEO
            self.excavation(action - (A_EXCAVATE_PALEO if paleo else A_EXCAVATE), paleo)
            self.flow.frames.append(self._decisions[p][PLACE])
        self._sync_seat(p)

    def _expedition_refusal(self, action: int) -> str:
        if action in (A_DISCOVER, A_DISCOVER_DISC):
            return self.discovery_problem(action == A_DISCOVER_DISC) or "not allowed"
        paleo = action >= A_EXCAVATE_PALEO
        problem = self.excavation_problem(action - (A_EXCAVATE_PALEO if paleo else A_EXCAVATE), paleo)
        return self.excavation_refusal(problem) if problem else "not allowed"

    def _placement_mask(self, mask: np.ndarray) -> None:
        """`placement_problem` enumerated: the empty cells touching a museum tile, within the 4x4 box."""
        p = self.player
        grid, keeps_4x4, seen = self.grid[p], self._keeps_4x4, set()
        for cell in self.tiles_of[p]:
            for _d, nb in NEIGHBOURS[cell]:
                if grid[nb] < 0 and nb not in seen:
                    seen.add(nb)
                    if keeps_4x4(p, nb):
                        mask[A_PLACE + 4 * nb : A_PLACE + 4 * nb + 4] = True

    def _placement_choice(self, action: int) -> None:
        cell, rot = divmod(action - A_PLACE, 4)
        self.placement(cell, rot)
        self._sync_seat(self.player)
        self._gems_of_choice_next()

    def _placement_refusal(self, action: int) -> str:
        return self.placement_problem(self.player, (action - A_PLACE) // 4) or "not allowed"

    def _gem_mask(self, mask: np.ndarray) -> None:
        for c in range(NUM_GEM_COLOURS):
            if self.supply[c]:
                mask[A_GEM + c] = True

    def _gem_choice(self, action: int) -> None:
        self.take_gem(action - A_GEM)
        self._sync_seat(self.player)
        self._gems_of_choice_next()

    def _gem_refusal(self, action: int) -> str:
        return f"no {GEM_COLOURS[action - A_GEM]} gem is left in the supply"

    # ================================================================ the Game contract
    @property
    def phase(self) -> int:
        """The waiting decision's kind (DIE, RECRUIT, EXPEDITION, PLACE, GEM), OVER once the game is over."""
        decision = self.flow.decision
        return OVER if decision is None else decision.kind

    def current_player(self) -> int:
        frames = self.flow.frames  # between actions a decision waits on top, or nothing is left
        return frames[-1].player if frames else -1

    def is_terminal(self) -> bool:
        return not self.flow.frames

    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        self.flow.frames[-1].legal(self, mask)  # flow.fill_mask inlined: this game's frames carry no args
        return mask

    def _apply(self, action: int) -> None:
        # flow.choose and flow.run, inlined (the hot path): this game's frames carry no args
        frames = self.flow.frames
        frames.pop().then(self, action)
        while frames and type(frames[-1]) is Do:
            frames.pop().run(self)
        self._sync_turn()  # the turn pieces of the observation, once the rules ran

    def illegal_reason(self, action: int) -> str:
        kind, wanted = self.phase, ACTION_DECISION[action]
        if wanted != kind:
            return f"this is the {PHASE_NAMES[kind]} decision, not the {PHASE_NAMES[wanted]}"
        return REFUSALS[kind](self, action)

    def observation(self, player: int) -> np.ndarray:
        """The public vector with seats rotated so that `player` is seat 0 (one precomputed gather)."""
        return self._pub.take(self._gathers[player])

    def state_tensor(self) -> np.ndarray:
        out = np.zeros(self.state_layout.size, dtype=np.float32)
        size = self._pub.size
        out[:size] = self._pub
        stock = self.stock
        if stock:
            out[size : size + len(stock)] = np.array(stock[::-1], dtype=np.float32) + 1
        return out

    def game_type(self) -> GameType:
        """rank: the returns add up to 2 - n in every game (k tied winners share 2/k - 1 each, the others
        -1): constant-sum within [-1, 1], zero-sum with 2 players. margin: own score minus the mean of
        the others adds up to 0: zero-sum, within +-max_score(n) (scores lie in [0, max_score(n)])."""
        n, limit = self.num_players, self.config.max_decisions
        if self.config.reward == "margin":
            top = float(max_score(n))
            return GameType("zero_sum", "none", -top, top, limit)
        # rank: k tied winners get 2/k - 1 each, the others -1: the returns add up to 2 - n
        return GameType("zero_sum" if n == 2 else "constant_sum", "none", -1.0, 1.0, limit, 2.0 - n)

    def returns(self) -> np.ndarray:
        n = self.num_players
        if self.flow.frames:
            return np.zeros(n)
        if self.config.reward == "margin":
            s = np.array(self.scores(), dtype=np.float64)
            return s - (s.sum() - s) / (n - 1)
        out = np.full(n, -1.0)
        k = len(self.winners)
        for p in self.winners:  # Reading: k tied winners share: each gets 2/k - 1
            out[p] = 2.0 / k - 1.0
        return out

    def resample_hidden(self, player: int, rng: np.random.Generator) -> Exposaurus:
        """Everyone sees the same table: only the stock's order and future die rolls are hidden."""
        game = self.clone()
        game.stock = sorted(game.stock)  # the draw must not depend on the true order
        rng.shuffle(game.stock)
        game.stock = [int(t) for t in game.stock]
        seed = int(rng.integers(2**63))  # drawn in every configuration (the caller's stream is the same)
        if self.die_variant:  # future rolls differ (without the die the game keeps no generator)
            game.rng = np.random.default_rng(seed)
        return game

    # ================================================================ the state as a value
    # A position holds the engine's state (tile lists, museums, markers, seat counters, gems, the turn
    # flow, the generator); these caches are left out of it and `_derive` makes them again from it.
    DERIVED = frozenset(("where", "box", "group_sizes", "group_points", "unseen", "winners", "_pub"))

    def edges_at(self, p: int, cell: int) -> tuple[int, int, int, int] | None:
        """The edge colours (N, E, S, W) of the tile on seat p's museum cell as placed (None: empty)."""
        t = self.grid[p][cell]
        return None if t < 0 else ROTATED[t][self.rotation[p][cell]]

    @property
    def start_tile(self) -> list[int]:
        """Each seat's starting tile: the first tile of its museum."""
        return [self.grid[p][cells[0]] if cells else -1 for p, cells in enumerate(self.tiles_of)]

    def _derive(self) -> None:
        """The caches of DERIVED from the state (a loaded position), after `check_stored` proved the
        stored values well-formed."""
        self.check_stored()
        self._rebuild()

    def _rebuild(self) -> None:
        """Every DERIVED cache made again from the state: where each tile is (a tile in no list is in
        the box), each museum's box, fossil groups and points, the unseen tiles by kind, the winners of
        a finished game, and the public vector."""
        n = self.num_players
        where = [W_BOX] * NUM_TILES
        for t in self.stock:
            where[t] = W_STOCK
        for t in self.display:
            where[t] = W_DISPLAY
        if self.pending >= 0:
            where[self.pending] = W_HAND
        self.box = [(0, 0, 0, 0)] * n
        self.group_sizes = [()] * n
        self.group_points = [0] * n
        for p in range(n):
            grid, cells = self.grid[p], self.tiles_of[p]
            for cell in cells:
                where[grid[cell]] = W_MUSEUM
            if cells:
                rows, cols = [cell // SIDE for cell in cells], [cell % SIDE for cell in cells]
                self.box[p] = (min(rows), max(rows), min(cols), max(cols))
            self._update_groups(p)
        self.where = where
        self.unseen = [0] * NUM_KINDS
        for t in self.stock:
            self.unseen[TILE_KIND[t]] += 1
        self.winners = [] if self.flow.frames else self._best_ranked()
        self._pub = self._public_from_scratch()

    def check_stored(self) -> None:
        """Raise PositionError unless every stored value has its shape and range (list lengths, tile
        ids, cells, seats, counts, the turn flow's frames), so that deriving the caches reads nothing
        out of range. The rules relating the values are `check_position`'s."""
        n, top = self.num_players, GEMS_PER_COLOUR[self.num_players]
        check_ints("player", [self.player], 0, n - 1, 1)
        check_ints("die_value", [self.die_value], 0, DIE_SIDES, 1)
        check_ints("pending", [self.pending], -1, NUM_TILES - 1, 1)
        check_ints("yellow", [self.yellow], 0, MAX_GEM_CHOICES, 1)
        check_ints("discoveries", [self.discoveries], 0, MAX_DISCOVERIES, 1)
        check_ints("final_left", [self.final_left], 0, n - 1, 1)
        check_ints("quits", [self.quits], 0, n, 1)
        check_ints("num_decisions", [self.num_decisions], 0, 10**9, 1)
        for name in ("stock", "display"):
            tiles = getattr(self, name)
            check_ints(name, tiles, 0, NUM_TILES - 1, len(tiles))
        check_ints("marker", self.marker, M_NONE, M_DISC, NUM_TILES)
        check_ints("marker_owner", self.marker_owner, -1, n - 1, NUM_TILES)
        for name in ("camp", "museum_sci", "field_sci", "national"):
            check_ints(name, getattr(self, name), 0, SCIENTISTS, n)
        check_ints("disc", self.disc, DISC_UNUSED, DISC_SPENT, n)
        check_ints("supply", self.supply, 0, top, NUM_GEM_COLOURS)
        if not (type(self.gems) is list and len(self.gems) == n):
            raise PositionError(f"gems must hold one list per seat ({n})")
        for p, row in enumerate(self.gems):
            _row_of(f"gems[{p}]", row, list)
            check_ints(f"gems[{p}]", row, 0, top, NUM_GEM_COLOURS)
        if not (
            type(self.paleo) is list and len(self.paleo) == n and all(type(x) is bool for x in self.paleo)
        ):
            raise PositionError(f"paleo must be a list of {n} booleans (the paleontologist unused)")
        for name, length, low, high in (
            ("grid", CELLS, -1, NUM_TILES - 1),
            ("rotation", CELLS, 0, 3),
            ("tiles_of", None, 0, CELLS - 1),
        ):
            rows = getattr(self, name)
            if not (type(rows) is list and len(rows) == n):
                raise PositionError(f"{name} must hold one list per seat ({n})")
            for p, row in enumerate(rows):
                _row_of(f"{name}[{p}]", row, tuple)
                check_ints(f"{name}[{p}]", row, low, high, len(row) if length is None else length)
        for p, cells in enumerate(self.tiles_of):
            filled = [cell for cell in range(CELLS) if self.grid[p][cell] >= 0]
            if sorted(cells) != filled or len(cells) > END_TILES:
                raise PositionError(
                    f"seat {p}: tiles_of must list the filled cells of its grid (at most {END_TILES}), "
                    f"each once: it lists {cells}, the grid fills {filled}"
                )
        if (self.rng is None) == self.die_variant:
            raise PositionError(
                "rng: the die variant rolls the die with the game's generator; without it the game keeps "
                "none (null)"
            )
        self._check_flow()

    def _check_flow(self) -> None:
        """The turn flow is one of the stacks a move builds, every decision the mover's own (its kind
        and functions those of `_decisions`), or empty once the game is over."""
        frames = self.flow.frames
        if not frames:
            return
        mine = self._decisions[self.player]
        stacks = (
            [END_MOVE, mine[EXPEDITION], OFFER_RECRUITMENT, mine[DIE]],
            [END_MOVE, mine[EXPEDITION], mine[RECRUIT]],
            [END_MOVE, mine[EXPEDITION]],
            [END_MOVE, mine[PLACE]],
            [END_MOVE, mine[GEM]],
        )
        if frames not in stacks:
            raise PositionError(
                f"the turn flow is not a stack of seat {self.player}'s move (end of move at the bottom, "
                f"its decisions in the rulebook's order, each of its own kind): {self.flow!r}"
            )

    def check_position(self) -> None:
        """Raise PositionError naming the rule a position breaks: malformed values (`check_stored`), a
        tile in two places, a museum that placement could not build, markers off the display, seat
        counters that do not add up, gems created or lost, a decision the rules would not offer, end
        counters out of step; then the conservation laws (`check_invariants`) and a decision waiting
        while the game goes on."""
        self.check_stored()
        n = self.num_players
        self._check_tiles()
        for p in range(n):
            self._check_museum(p)
            scientists = self.camp[p] + self.museum_sci[p] + self.field_sci[p] + self.national[p]
            if scientists != SCIENTISTS:
                raise PositionError(f"seat {p} has {scientists} scientists, not {SCIENTISTS}")
        for t in range(NUM_TILES):
            if self.marker[t] != M_NONE and self.where[t] != W_DISPLAY:
                raise PositionError(f"tile {t} carries a marker but is not in the display")
            if (self.marker[t] == M_NONE) != (self.marker_owner[t] < 0):
                raise PositionError(f"tile {t}: a marker has an owner and an owner a marker")
        for p in range(n):
            on_tiles = sum(
                1 for t in self.display if self.marker[t] == M_SCIENTIST and self.marker_owner[t] == p
            )
            if on_tiles != self.field_sci[p]:
                raise PositionError(
                    f"seat {p} has {on_tiles} scientists on displayed tiles, field_sci says {self.field_sci[p]}"
                )
            discs = sum(1 for t in self.display if self.marker[t] == M_DISC and self.marker_owner[t] == p)
            if discs != (self.disc[p] == DISC_ON_TILE):
                raise PositionError(
                    f"seat {p}'s claim disc: {discs} on displayed tiles, disc status {self.disc[p]}"
                )
        for c in range(NUM_GEM_COLOURS):
            total = self.supply[c] + sum(self.gems[p][c] for p in range(n))
            if total != GEMS_PER_COLOUR[n]:
                raise PositionError(f"{total} {GEM_COLOURS[c]} gems in play, not {GEMS_PER_COLOUR[n]}")
        if self.die_variant != (self.die_value > 0):
            raise PositionError(
                f"die_value {self.die_value}: the die is rolled every move with the die variant, never without"
            )
        self._check_turn()
        super().check_position()

    def _check_tiles(self) -> None:
        seen: dict[int, str] = {}
        places = [("the stock", self.stock), ("the display", self.display)]
        places += [
            (f"seat {p}'s museum", [self.grid[p][c] for c in cells]) for p, cells in enumerate(self.tiles_of)
        ]
        places.append(("the hand", [self.pending] if self.pending >= 0 else []))
        for place, tiles in places:
            for t in tiles:
                if t in seen:
                    raise PositionError(f"tile {t} is in {seen[t]} and in {place}")
                seen[t] = place
        if not self.die_variant and len(seen) < NUM_TILES:
            missing = sorted(set(range(NUM_TILES)) - set(seen))
            raise PositionError(f"tiles {missing} are nowhere: only the die variant removes tiles to the box")

    def _check_museum(self, p: int) -> None:
        """Seat p's museum is one placement could build: the starting tile in the centre, each later
        tile touching an earlier one, within 4x4 (`check_stored` proved tiles_of the filled cells)."""
        grid, cells = self.grid[p], self.tiles_of[p]
        if not cells or cells[0] != CENTRE or not TILE_START[grid[CENTRE]]:
            raise PositionError(
                f"seat {p}'s museum must begin with a starting tile in the centre cell {CENTRE}"
            )
        for i, cell in enumerate(cells[1:], 1):
            if not any(nb in cells[:i] for _d, nb in NEIGHBOURS[cell]):
                raise PositionError(f"seat {p}: the tile on cell {cell} touches no tile placed before it")
        rmin, rmax, cmin, cmax = self.box[p]
        if rmax - rmin >= MUSEUM_LIMIT or cmax - cmin >= MUSEUM_LIMIT:
            raise PositionError(f"seat {p}'s museum exceeds {MUSEUM_LIMIT}x{MUSEUM_LIMIT}")
        if any(self.rotation[p][cell] for cell in range(CELLS) if grid[cell] < 0):
            raise PositionError(f"seat {p}: an empty museum cell has a rotation")

    def _check_turn(self) -> None:
        """The waiting decision is one the rules offer now, with the move's counters in step."""
        n, p, frames = self.num_players, self.player, self.flow.frames
        kind = frames[-1].kind if frames else OVER
        if (self.pending >= 0) != (kind == PLACE):
            raise PositionError("a tile is in hand exactly while its placement decision waits")
        if (self.yellow > 0) != (kind == GEM):
            raise PositionError("gems of choice are owed exactly while a gem decision waits")
        if kind == OVER:
            if not (self.quits == n or (self.end_triggered and self.final_left == 0)):
                raise PositionError(
                    "the game is over, but neither a round of quitting nor the final round ended it"
                )
            return
        if self.quits >= n:
            raise PositionError(f"{self.quits} quitting moves in a row end the game: it cannot go on")
        if self.end_triggered != (self.final_left > 0):
            raise PositionError("moves are left in the final round exactly while the end is triggered")
        if not self.end_triggered:
            full = [
                q for q in range(n) if len(self.tiles_of[q]) >= END_TILES and not (q == p and kind == GEM)
            ]
            if full:
                raise PositionError(f"seat {full[0]}'s museum is complete but the end is not triggered")
            if not sum(self.supply):
                raise PositionError("the gem supply is empty but the end is not triggered")
        if kind in (DIE, RECRUIT) and (self.acted or self.discoveries):
            raise PositionError("a die or recruitment decision comes before any discovery or excavation")
        if kind == EXPEDITION and self.acted != (self.discoveries > 0):
            raise PositionError("in an expedition, acted says whether a discovery was made this move")
        if kind in (PLACE, GEM) and not self.acted:
            raise PositionError("a placement or gem decision follows an excavation: the move has acted")
        if kind == DIE and not self.die_variant:
            raise PositionError("a die decision waits, but this game is played without the die variant")
        if kind == DIE and not any(self.die_removal_problem(t) is None for t in self.display):
            raise PositionError("the die decision waits only when a displayed tile can be removed")
        if kind == RECRUIT and self.museum_sci[p] + self.field_sci[p] == 0:
            raise PositionError(f"recruitment is offered only with a scientist out, and seat {p} has none")
        if kind == PLACE and len(self.tiles_of[p]) >= END_TILES:
            raise PositionError(f"seat {p}'s museum is complete: no tile can be placed")
        if kind == GEM and not sum(self.supply):
            raise PositionError("a gem decision waits with no gem in the supply")

    def check_invariants(self) -> None:
        n = self.num_players
        frames = self.flow.frames
        if frames:  # one move at a time: its end at the bottom, only the mover's decisions, one waiting
            assert frames[0] == END_MOVE and type(frames[-1]) is Decide, f"flow out of order: {self.flow!r}"
            assert all(f.player == self.player for f in frames if type(f) is Decide), (
                "another seat's decision"
            )
        for p in range(n):
            total = self.camp[p] + self.museum_sci[p] + self.field_sci[p] + self.national[p]
            assert total == SCIENTISTS, f"player {p} has {total} scientists"
            assert min(self.camp[p], self.museum_sci[p], self.field_sci[p], self.national[p]) >= 0
            on_tiles = sum(
                1 for t in self.display if self.marker[t] == M_SCIENTIST and self.marker_owner[t] == p
            )
            assert on_tiles == self.field_sci[p], f"player {p}: {on_tiles} scientists on tiles"
            discs = sum(1 for t in self.display if self.marker[t] == M_DISC and self.marker_owner[t] == p)
            assert discs == (self.disc[p] == DISC_ON_TILE)
            cells = self.tiles_of[p]
            assert len(cells) <= END_TILES
            rows = [c // SIDE for c in cells]
            cols = [c % SIDE for c in cells]
            assert max(rows) - min(rows) < MUSEUM_LIMIT and max(cols) - min(cols) < MUSEUM_LIMIT
            assert sum(g >= 0 for g in self.grid[p]) == len(cells)
        for c in range(NUM_GEM_COLOURS):
            total = self.supply[c] + sum(self.gems[p][c] for p in range(n))
            assert total == GEMS_PER_COLOUR[n] and self.supply[c] >= 0, f"{GEM_COLOURS[c]} gems: {total}"
        places = sorted(
            self.stock
            + self.display
            + [t for p in range(n) for t in (self.grid[p][c] for c in self.tiles_of[p])]
            + [t for t in range(NUM_TILES) if self.where[t] == W_BOX]
            + ([self.pending] if self.pending >= 0 else [])
        )
        assert places == list(range(NUM_TILES)), "every tile is in exactly one place"
        for t in self.stock:
            assert self.where[t] == W_STOCK
        for t in self.display:
            assert self.where[t] == W_DISPLAY
        unseen = [0] * NUM_KINDS
        for t in self.stock:
            unseen[TILE_KIND[t]] += 1
        assert unseen == self.unseen
        for p in range(n):
            kinds = {cell: TILE_KIND[self.grid[p][cell]] for cell in self.tiles_of[p]}
            sizes = [size for _kind, size in fossil_groups(kinds)]
            assert self.group_points[p] == best_assignment(self.gems[p], sizes), "group points stale"
        assert np.array_equal(self._pub, self._public_from_scratch()), "public vector out of sync"

    # ================================================================ text
    def action_groups(self) -> list[tuple[str, int, int, str]]:
        return [
            (
                "die: remove",
                A_DIE_REMOVE,
                NUM_TILES,
                "remove displayed tile id (cost <= pips, no claim disc)",
            ),
            ("die: keep", A_DIE_KEEP, 1, "remove no tile"),
            ("recruit", A_RECRUIT, 1, "return all scientists; one goes to the national museum"),
            ("no recruitment", A_NO_RECRUIT, 1, "go on to the expedition"),
            ("discover", A_DISCOVER, 1, "turn up a stock tile, put a scientist on it"),
            ("discover with disc", A_DISCOVER_DISC, 1, "turn up a stock tile, put the claim disc on it"),
            ("excavate", A_EXCAVATE, NUM_TILES, "excavate displayed tile id"),
            (
                "excavate with paleontologist",
                A_EXCAVATE_PALEO,
                NUM_TILES,
                "excavate tile id, paleontologist -2",
            ),
            ("quit", A_QUIT, 1, "end the move"),
            ActionGroup(
                "place",
                A_PLACE,
                CELLS * 4,
                f"put the excavated tile on museum cell (row*{SIDE}+col)*4 + rotation",
                cells="museum",
                depth=4,
            ),
            ("gem", A_GEM, NUM_GEM_COLOURS, "take a red / green / blue gem for a yellow circle"),
        ]

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            return f"invalid action {a}"
        if a < A_DIE_KEEP:
            return f"die: remove {tile_name(a)}"
        if a == A_DIE_KEEP:
            return "die: remove nothing"
        if a == A_RECRUIT:
            return "recruit"
        if a == A_NO_RECRUIT:
            return "no recruitment"
        if a == A_DISCOVER:
            return "discover (scientist)"
        if a == A_DISCOVER_DISC:
            return "discover (claim disc)"
        if a < A_EXCAVATE_PALEO:
            return f"excavate {tile_name(a - A_EXCAVATE)}"
        if a < A_QUIT:
            return f"excavate {tile_name(a - A_EXCAVATE_PALEO)} with the paleontologist"
        if a == A_QUIT:
            return "quit"
        if a < A_GEM:
            cell, rot = divmod(a - A_PLACE, 4)
            r, c = divmod(cell, SIDE)
            return f"place at row {r} col {c} turned {90 * rot} degrees"
        return f"gem: {GEM_COLOURS[a - A_GEM]}"

    def museum_text(self, p: int) -> list[str]:
        return render.museum_lines(self, p)

    def to_string(self, player: int | None = None) -> str:
        """The table as text from `player`'s point of view (None: the whole table, the stock's order too)."""
        return render.text(self, player)

    def render_rgb(self, player: int | None = None) -> np.ndarray:
        """The table as a picture from `player`'s point of view (None: the whole table)."""
        return render.draw(self, player)


class Handlers(NamedTuple):
    """A decision kind's functions: its turn-flow frame names `legal` and `then`."""

    legal: Callable[..., None]  # (game, mask): mark the allowed actions
    then: Callable[..., None]  # (game, action): carry the choice out
    refusal: Callable[..., str]  # (game, action): why a masked-out action of this kind is refused


# every decision of the game, by its phase name in data.py (PHASE_NAMES): RULES.md -> here -> the code
DECISIONS: dict[str, Handlers] = {
    "die": Handlers(Exposaurus._die_mask, Exposaurus._die_choice, Exposaurus._die_refusal),
    "recruitment": Handlers(
        Exposaurus._recruitment_mask, Exposaurus._recruitment_choice, Exposaurus._recruitment_refusal
    ),
    "expedition": Handlers(
        Exposaurus._expedition_mask, Exposaurus._expedition_choice, Exposaurus._expedition_refusal
    ),
    "placement": Handlers(
        Exposaurus._placement_mask, Exposaurus._placement_choice, Exposaurus._placement_refusal
    ),
    "gem choice": Handlers(Exposaurus._gem_mask, Exposaurus._gem_choice, Exposaurus._gem_refusal),
}
check_handlers(DECISIONS, PHASE_NAMES[:NUM_PHASES], "Exposaurus decisions")
REFUSALS = tuple(DECISIONS[name].refusal for name in PHASE_NAMES[:NUM_PHASES])  # by kind

# the steps a move pushes (they run when no decision waits above them)
END_MOVE = Do(Exposaurus._end_move)
OFFER_RECRUITMENT = Do(Exposaurus._offer_recruitment)
