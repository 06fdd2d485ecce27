"""Exposed: moving tiles (a mixin of `rules.Exposed`: every method is still `Exposed._name`).

Rules held: the Move action, two swaps of orthogonally adjacent tiles, also the Move of the Soldier (an
optional one at the start of the holder's turns), the Magician and the Server's target; the FAQ's no
reversal (no swap may undo a swap of another player's latest Move, nor a second swap the first); the
Pilot kept under a card (at the start of each of the holder's turns: swap the Pilot tile with any
tile, or pass).
"""

from __future__ import annotations

import numpy as np

from .decisions import K_MOVE, MOVE1


class MovementRules:
    """The Move, its swaps and the no-reversal rule; the Pilot's swap."""

    # --- MOVE: two swaps (also the Soldier's, the Magician's and the Server target's Move)
    def _decide_move(self, p: int, optional: bool) -> None:
        """p's first swap of a Move (`optional`: p may pass instead)."""
        self.flow.decide(MOVE1, p, MovementRules._first_swap_mask, MovementRules._first_swap, p, optional)

    def _first_swap_mask(self, mask: np.ndarray, p: int, optional: bool) -> None:
        self._swaps_mask(mask, p)
        mask[self.A_PASS] = optional

    def _first_swap(self, action: int, p: int, optional: bool) -> None:
        if action != self.A_PASS:
            self._move_first(p, action)

    def _move_first(self, p: int, e: int) -> None:
        """MOVE: a new Move action replaces p's record; then the first of two swaps."""
        self.last_kind[self.turn, K_MOVE] = True
        self.latest_move[p] = ()
        self._swap(p, e)
        self.flow.frames.append(self._second_swap_frames[p][e])  # MOVE2, args (p, e)

    def _second_swap(self, e: int, p: int, first: int) -> None:
        self._swap(p, e)

    def _swap(self, p: int, e: int) -> None:
        a, b = self.edges[e]
        self._swap_cells(a, b)
        cg = self.guest_on
        ga, gb = cg.item(a), cg.item(b)
        self.latest_move[p] += ((e, ga, gb),)
        touched = self.last_guests[self.turn]  # both tiles touched (`_touch`)
        touched[ga] = touched[gb] = True

    def _swaps_mask(self, mask: np.ndarray, p: int, first: int | None = None) -> None:
        """Every swap (mask[:num_edges]) except one that exactly undoes a swap of another player's
        latest Move (or, on the second swap, your own `first`): also the MOVE2 decision's mask."""
        mask[: self.num_edges] = True
        for q, e in self._undoable_swaps():
            if q != p:
                mask[e] = False
        if first is not None:
            mask[first] = False  # swapping the same two cells again undoes the first swap

    def _undoable_swaps(self) -> list[tuple[int, int]]:
        """(player, edge) of every swap of a player's latest Move whose two tiles are still where it
        put them (swapping them again would undo it). Read by the masks and the observation: kept
        for the position it was computed in (the decision count and `touch` stamp)."""
        position = (self.num_decisions, self._stamp)
        if self._undoable[0] == position:
            return self._undoable[1]
        found = []
        if any(self.latest_move):
            cg = self.guest_on.tolist()
            edges = self.edges
            for q, recs in enumerate(self.latest_move):
                for e, ga, gb in recs:
                    a, b = edges[e]
                    if cg[a] == ga and cg[b] == gb:
                        found.append((q, e))
        self._undoable = (position, found)  # (a new tuple: a clone may share the old one)
        return found

    # --- the Pilot's turn-start swap (PILOT)
    def _pilot_mask(self, mask: np.ndarray, p: int, pilot: int) -> None:
        off = self.OFF_CELL
        mask[off : off + self.num_tiles] = True
        mask[off + self.cell_of_guest[pilot]] = False
        mask[self.A_PASS] = True

    def _pilot_swap(self, action: int, p: int, pilot: int) -> None:
        if action != self.A_PASS:
            self._swap_cells(int(self.cell_of_guest[pilot]), action - self.OFF_CELL)
            self._touch(action - self.OFF_CELL)
