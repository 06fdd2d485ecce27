"""Exposed: writing what a seat sees (a mixin of `rules.Exposed`: every method is still
`Exposed._name`; `Exposed.observation` and `state_tensor` themselves are rules.py's).

No rule of the rulebook is played here; what it holds is what the rulebook lets each player see: the
table (public), their own card, cards shown to them (Snitch) or seen in the deck (Astronaut, Mayor),
the Dentist answers given to them and the public deductions, the current decision. `_ObsPlan` (the
index tables, one per player count, in the `ExposedDefinition`) and `_ObsSource` (a game's source
vector) make an observation one gather; `wallet_scale` is how every Wallet count is shown.
"""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING

import numpy as np

from envs.core.observer import seat_gathers

from .data import COPS_MAX, ITEM_CHOICES, MOST_REPEATS, WALLET_SCALE
from .decisions import DENTIST, KIND_NAMES, NUM_DECISIONS, OFFER, PICK

if TYPE_CHECKING:
    from .definition import ExposedDefinition
    from .items import ItemStep
    from .rules import Exposed


_KEPT_SCALE = np.array([1.0, 1.0, 1.0 / COPS_MAX])  # Pilot, Soldier flags; Cops / COPS_MAX


def wallet_scale(w: float) -> float:
    """A count of w Wallets as the observations show it: w / (w + WALLET_SCALE), in [0, 1)."""
    return w / (w + WALLET_SCALE)


class _ObsPlan:
    """Index tables for `Exposed.observation`, one per player count (in its `ExposedDefinition`).

    A game's source vector holds the table in absolute seats: first the packed boolean tables
    (`Exposed._flags`, same order), then the other per-Guest pieces, then numbers and one-hot
    pieces; each call rewrites it, turns the per-Guest block into a per-cell block with one take
    along the current cell -> Guest map, writes the one-hot grid, and the observation of player p
    is then a single gather `source[index[p]]`: `seat_gathers` rotates every axis the observation
    layout declares "seat" so that seats are relative to p.
    """

    def __init__(self, game: ExposedDefinition) -> None:
        n, t, e = game.num_players, game.num_tiles, game.num_edges
        flag_regions = [
            ("cexp", (t,)),
            ("knows", (n, n)),
            ("lkind", (n, len(KIND_NAMES))),
            ("lseat", (n, n)),
            ("litem", (n, t)),
            ("gmark", (t,)),  # the per-Guest block starts here ...
            ("gdisc", (t,)),
            ("lguest", (n, t)),
        ]
        assert [s for _, s in flag_regions] == [s for _, s in game._flag_shapes()]
        regions = flag_regions + [
            ("dcells", (t,)),
            ("seen", (t,)),  # what the observer knows: from here ...
            ("ident", (n, t)),
            ("told", (n, t)),
            ("cand", (n, t)),  # ... to here; the per-Guest block ends here
            ("cwal", (t,)),
            ("nums", (2 * n + 4,)),  # stashes, exposed players, counts (3), own total
            ("kept", (n, 3)),
            ("blocked", (n, e)),
            ("turn", (n,)),
            ("decision", (NUM_DECISIONS,)),
            ("ditem", (t,)),
            ("dseat", (n,)),
            ("ichoice", (len(ITEM_CHOICES),)),
            ("iline", (2 * game.side,)),
            ("itile", (t,)),
            ("iplayer", (n,)),
            ("ileft", (1,)),
        ]
        off = 0
        self.regions: dict[str, tuple[int, tuple[int, ...]]] = {}
        for name, shape in regions:
            self.regions[name] = (off, shape)
            off += int(np.prod(shape))
        r = {name: reg[0] for name, reg in self.regions.items()}
        self.flags = (0, r["dcells"])
        self.zero = (r["seen"], r["cand"])  # what the observer knows, but candidates (rewritten)
        self.knowledge = (r["seen"], r["cwal"])  # what the observer knows, candidates included
        self.dcells = (r["dcells"], r["seen"])
        self.blocked_zero = (r["blocked"], off)  # blocked swaps and the decision pieces
        self.guest_block = (r["gmark"], r["cwal"])
        rows = (r["cwal"] - r["gmark"]) // t
        self.cells = off  # the per-cell copy of the per-Guest block
        self.grid = self.cells + rows * t
        self.size = self.grid + t * t
        self.eye = np.eye(t, dtype=np.float32)
        self.eye.flags.writeable = False
        self.at = {name: off for name, (off, _shape) in self.regions.items()}
        self.nums = slice(r["nums"], r["nums"] + 2 * n + 3)  # all but the observer's own total
        self.own = r["nums"] + 2 * n + 3

        def cell_region(name: str) -> int:  # where the per-cell copy of a per-Guest region starts
            return self.cells + r[name] - r["gmark"]

        nums = r["nums"]
        # observation piece -> where its absolute-seat copy starts in the source
        pieces = {
            "grid": self.grid,
            "exposed_tiles": r["cexp"],
            "tile_wallets": r["cwal"],
            "marks": cell_region("gmark"),
            "discarded": cell_region("gdisc"),
            "seen_in_deck": cell_region("seen"),
            "identity": cell_region("ident"),
            "candidates": cell_region("cand"),
            "dentist_told": cell_region("told"),
            "stashes": nums,
            "exposed_players": nums + n,
            "own_total": nums + 2 * n + 3,
            "knows": r["knows"],
            "kept_items": r["kept"],
            "blocked_swaps": r["blocked"],
            "counts": nums + 2 * n,
            "last_kinds": r["lkind"],
            "last_cells": cell_region("lguest"),
            "last_seats": r["lseat"],
            "last_items": r["litem"],
            "turn": r["turn"],
            "decision": r["decision"],
            "decision_item": r["ditem"],
            "decision_cells": cell_region("dcells"),
            "decision_seats": r["dseat"],
            "item_choice": r["ichoice"],
            "item_choice_line": r["iline"],
            "item_choice_tile": r["itile"],
            "item_choice_player": r["iplayer"],
            "item_choice_left": r["ileft"],
        }
        layout = game.observation_layout
        assert [p.name for p in layout] == list(pieces), "observation layout and plan disagree"
        # every seat axis the layout declares is rotated to the observer (envs.core.observer)
        self.index = seat_gathers(layout, n, starts=pieces)
        self.starts = pieces


class _ObsSource:
    """One game's source vector and the views `Exposed.observation` writes through (made on first
    use, never copied)."""

    def __init__(self, game: Exposed) -> None:
        n, t = game.num_players, game.num_tiles
        plan = self.plan = game._obs_plan
        self.at = plan.at
        buf = self.buf = np.zeros(plan.size, dtype=np.float32)

        def view(name: str) -> np.ndarray:
            off, shape = plan.regions[name]
            return buf[off : off + prod(shape)].reshape(shape)

        self.cwal = view("cwal")
        self.kept = view("kept")
        self.told = view("told")
        self.cand_f = view("cand")
        self.flags = buf[slice(*plan.flags)]
        self.guest_block = buf[slice(*plan.guest_block)].reshape(-1, t)
        self.cells = buf[plan.cells : plan.grid].reshape(-1, t)
        self.grid = buf[plan.grid :].reshape(t, t)
        self.cand = np.empty((n, t), dtype=bool)
        self.public = np.empty(t, dtype=bool)
        self.nums = plan.nums
        self.own = plan.own
        self.nums_key: tuple | None = None  # what the numbers were written from
        self.zero = buf[slice(*plan.zero)]
        self.dcells = buf[slice(*plan.dcells)]
        self.blocked_zero = buf[slice(*plan.blocked_zero)]
        self.dcells_set = False  # whether decision cells are written
        self.known: tuple[int, int] | None = None  # (observer, knowledge stamp) the knowledge is written for
        # each observer's knowledge as last written, and the stamp it was written at: in a round of
        # plain Moves the stamp stays, and each seat's knowledge is copied back instead of rewritten
        self.knowledge = buf[slice(*plan.knowledge)]
        self.kept_knowledge = np.empty((n, self.knowledge.size), dtype=np.float32)
        self.kept_at: list[int | None] = [None] * n


_SCALE = [np.zeros(0, dtype=np.float32)]  # wallet_scale(w) for w = 0, 1, ... (float32), grown on demand


def _scale_table(most: int) -> np.ndarray:
    """wallet_scale as a table covering 0..most Wallets (the same float32 values as the formula)."""
    table = _SCALE[0]
    if len(table) <= most:
        w = np.arange(max(2 * most, 64))
        table = _SCALE[0] = (w / (w + WALLET_SCALE)).astype(np.float32)
        table.flags.writeable = False
    return table


class ObservationRules:
    """The observation's and the state's writing, piece by piece."""

    # ================================================================ observations
    def _scratch(self, which: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """A scratch buffer with its piece views, made once per game (not copied by clone)."""
        cache = self.__dict__.get("_obs_cache")
        if cache is None:
            cache = self._obs_cache = {}
        if which not in cache:
            layout = self.observation_layout if which == "obs" else self.state_layout
            buf = np.zeros(layout.size, dtype=np.float32)
            cache[which] = (buf, layout.views(buf))
        return cache[which]

    def _write_numbers(self, src: _ObsSource, player: int) -> None:
        """Stashes, exposed players and the counts (rewritten only when they changed), and the
        observer's own total."""
        S, stash, player_exposed = src.buf, self.stash, self.player_exposed
        key = (*stash, *player_exposed, len(self.deck), self.lost_found, self.over)
        if key != src.nums_key:
            src.nums_key = key
            S[src.nums] = [
                *[w / (w + WALLET_SCALE) for w in stash],  # wallet_scale, inlined
                *player_exposed,
                len(self.deck) / self.num_tiles,
                wallet_scale(self.lost_found),
                self.over,
            ]
        S[src.own] = wallet_scale(self._total(player))

    def _write_decision(self, src: _ObsSource) -> None:
        """Whose turn it is and what is being decided (the one-hot pieces, absolute seats): the item
        offered or in use, the Dentist's asker, an item step's choices so far and its kind."""
        S, at = src.buf, src.at
        S[at["turn"] + self.turn] = 1.0
        decision = self.flow.frames[-1]
        kind = decision.kind
        S[at["decision"] + kind] = 1.0
        if kind == OFFER:  # the item offered: args (thief, Guest)
            S[at["ditem"] + decision.args[1]] = 1.0
        elif self.item_in_use >= 0:  # its steps, or a Move or a Dentist answer it asks for
            S[at["ditem"] + self.item_in_use] = 1.0
        if kind == DENTIST:  # who asked: args (target, asker)
            S[at["dseat"] + decision.args[1]] = 1.0
        elif kind == PICK:
            step: ItemStep = decision.args[1]
            for q in self.item_seats:
                S[at["dseat"] + q] = 1.0
            starts = src.plan.starts
            for piece, i in self._item_choice_hot(step):
                S[starts[piece] + i] = 1.0
            S[at["ileft"]] = step.left / MOST_REPEATS
            for g in self.item_cells:
                S[at["dcells"] + g] = 1.0
            if self.item_cells:
                src.dcells_set = True

    @staticmethod
    def _item_choice_hot(step: ItemStep) -> list[tuple[str, int]]:
        """(piece, index) of each 1 in an item step's one-hot `item_choice` pieces (absolute seats)."""
        entries = (
            ("item_choice", step.kind),
            ("item_choice_line", step.line),
            ("item_choice_tile", step.tile),
            ("item_choice_player", step.player),
        )
        return [(piece, i) for piece, i in entries if i >= 0]

    def _recall_knowledge(self, src: _ObsSource, player: int) -> None:
        """The observer's knowledge into the source: copied back from the last time it was written
        if the knowledge stamp has not moved since (nothing anyone knows changed), else written."""
        if src.kept_at[player] == self._stamp:
            src.knowledge[...] = src.kept_knowledge[player]
            return
        self._write_knowledge(src, player)
        src.kept_knowledge[player] = src.knowledge
        src.kept_at[player] = self._stamp

    def _write_knowledge(self, src: _ObsSource, player: int) -> None:
        """Identities, candidates, cards seen in the deck and Dentist answers, as `player` knows
        them, into the source (per Guest)."""
        S, at, t = src.buf, src.at, self.num_tiles
        src.zero.fill(0.0)
        ident = self.ident
        known = self._known_players(player)
        # Guests that cannot be anyone's unknown card: Marks, discards, exposed tiles, known cards
        public = src.public
        self.tile_exposed.take(self.cell_of_guest, 0, public, "wrap")
        public |= self.is_mark
        public |= self.is_discarded
        at_ident, at_cand = at["ident"], at["cand"]
        for q in known:
            g = ident[q]
            public[g] = True
            S[at_ident + q * t + g] = 1.0
        if any(self.deck_seen):  # cards I have seen in the deck (Astronaut / Mayor)
            bit, at_seen = 1 << player, at["seen"]
            for g, flags in zip(self.deck, self.deck_seen):
                if flags & bit:
                    public[g] = True
                    S[at_seen + g] = 1.0
        # candidates: what the public deductions and the Dentist answers given to `player` allow,
        # less the public Guests, written as 0/1 straight into the source
        allowed = self.public_candidates
        if self.dentist_records:  # (with none, every Dentist candidate is still True)
            allowed = np.logical_and(allowed, self.dentist_candidates[player], out=src.cand)
        cand = src.cand_f
        np.greater(allowed, public, out=cand)
        for q in known:  # a known card is its holder's only candidate
            cand[q].fill(0.0)
            S[at_cand + q * t + ident[q]] = 1.0
        if self.dentist_records:
            told = src.told
            epoch = self.epoch[player]
            for asker, target, ep, _line, _snap in self.dentist_records:
                if target == player and ep == epoch:
                    told[asker] = self.dentist_candidates[asker, player]

    def _known_players(self, player: int) -> list[int]:
        """The players whose card `player` knows: their own, the exposed, those shown by a Snitch;
        every one once the game is over."""
        if self.over:
            return list(range(self.num_players))
        player_exposed = self.player_exposed
        krow = self.knows[player].tolist()
        return [q for q, shown in enumerate(krow) if q == player or player_exposed[q] or shown]

    def _fill_public(self, v: dict) -> None:
        """Everything on the table, in absolute seats (the state tensor's public part)."""
        cg = self.guest_on
        v["grid"][self._arange_t, cg] = 1.0
        v["exposed_tiles"][:] = self.tile_exposed
        v["tile_wallets"][:] = self.wallets_on
        v["marks"][:] = self.is_mark[cg]
        v["discarded"][:] = self.is_discarded[cg]
        v["stashes"][:] = self.stash
        v["exposed_players"][:] = self.player_exposed
        v["knows"][:] = self.knows
        v["kept_items"][:] = self.kept
        for q, e in self._undoable_swaps():
            v["blocked_swaps"][q, e] = 1.0
        v["last_kinds"][:] = self.last_kind
        v["last_cells"][:] = self.last_guests[:, cg]
        v["last_seats"][:] = self.last_seats
        v["last_items"][:] = self.last_items
        v["counts"][:3] = (len(self.deck), self.lost_found, self.over)
        if not self.over:
            v["turn"][self.turn] = 1.0
            decision = self.flow.frames[-1]
            kind = decision.kind
            v["decision"][kind] = 1.0
            if kind == OFFER:
                v["decision_item"][decision.args[1]] = 1.0
            elif self.item_in_use >= 0:
                v["decision_item"][self.item_in_use] = 1.0
            if kind == DENTIST:
                v["decision_seats"][decision.args[1]] = 1.0
            elif kind == PICK:
                step: ItemStep = decision.args[1]
                for g in self.item_cells:
                    v["decision_cells"][self.cell_of_guest[g]] = 1.0
                for q in self.item_seats:
                    v["decision_seats"][q] = 1.0
                for piece, i in self._item_choice_hot(step):
                    v[piece][i] = 1.0
                v["item_choice_left"][0] = step.left / MOST_REPEATS
