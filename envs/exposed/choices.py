"""Exposed: what an item step may choose (a mixin of `rules.Exposed`: every method is still
`Exposed._name`).

Rules held: the targets the item texts allow, each as booleans over cells, lines, absolute seats or
Guests: any tile, or one with a Wallet (but the item's own Guest's, or tiles the item already chose),
unexposed tiles, the tiles surrounding a Guest, a line, other players, neighbours, exposed players,
Marks, discarded cards (the Actor's: any but an Actor); and the record of what an item has chosen so
far (`_ctx_cell`, `_ctx_seat`: public, the touched tiles and targeted players).
"""

from __future__ import annotations

import numpy as np

from .data import GUESTS


class ChoiceRules:
    """The choices an item step allows, and the record of those made."""

    # --- what an item step may choose: booleans over cells, lines, seats (absolute) or Guests
    def _except(self, cells: np.ndarray, guests: tuple[int, ...] | list[int]) -> np.ndarray:
        for x in guests:  # the current cells of these Guests are excluded
            cells[self.cell_of_guest[x]] = False
        return cells

    def _any_cell_except(self, *guests: int) -> np.ndarray:
        return self._except(np.ones(self.num_tiles, dtype=bool), guests)

    def _wallet_cells_except(self, *guests: int) -> np.ndarray:
        return self._except(self._has_wallet(), guests)

    def _unexposed_cells(self) -> np.ndarray:
        return ~self.tile_exposed

    def _exposed_wallet_cells_except(self, *guests: int) -> np.ndarray:
        return self._except(self._has_wallet() & self.tile_exposed, guests)

    def _cells_surrounding(self, g: int) -> np.ndarray:
        return self.surround[int(self.cell_of_guest[g])].copy()

    def _line_from(self, line: int, i: int) -> np.ndarray:
        """The cells of a line from its i-th on."""
        cells = np.zeros(self.num_tiles, dtype=bool)
        cells[self.line_cells[line][i:]] = True
        return cells

    def _cells_but_own(self, p: int) -> np.ndarray:
        cells = np.ones(self.num_tiles, dtype=bool)
        cells[self._guest_cell(p)] = False
        return cells

    def _cells_not_chosen(self) -> np.ndarray:
        """Any cell but those already chosen in this item."""
        return self._except(np.ones(self.num_tiles, dtype=bool), self.item_cells)

    def _exposed_wallet_cells_not_chosen(self, g: int) -> np.ndarray:
        return self._except(self._exposed_wallet_cells_except(g), self.item_cells)

    def _any_line(self) -> np.ndarray:
        return np.ones(2 * self.side, dtype=bool)

    def _other_seats(self, p: int) -> np.ndarray:
        seats = np.ones(self.num_players, dtype=bool)
        seats[p] = False
        return seats

    def _neighbour_seats(self, p: int) -> np.ndarray:
        n = self.num_players
        seats = np.zeros(n, dtype=bool)
        seats[(p + 1) % n] = seats[(p - 1) % n] = True
        return seats

    def _exposed_seats_except(self, *exclude: int) -> np.ndarray:
        seats = np.array(self.player_exposed, dtype=bool)
        seats[list(exclude)] = False
        return seats

    def _player_wallets(self, q: int) -> int:
        return int(self.wallets_on[self._guest_cell(q)]) if self.player_exposed[q] else self.stash[q]

    def _marks_except(self, g: int) -> np.ndarray:
        guests = np.zeros(self.num_tiles, dtype=bool)
        guests[self.marks] = True
        guests[g] = False
        return guests

    def _actor_cards(self) -> np.ndarray:
        """Any discarded card but an Actor (an Actor through the Actor would do nothing)."""
        guests = np.zeros(self.num_tiles, dtype=bool)
        for g in self.discard:
            if GUESTS[g].item != "actor":
                guests[g] = True
        return guests

    def _ctx_cell(self, cell: int) -> None:
        self.item_cells += (int(self.guest_on[cell]),)
        self._touch(cell)

    def _ctx_seat(self, q: int) -> None:
        self.item_seats += (q,)
        self.last_seats[self.turn, q] = True
        self.items_any = True

    def _any_wallet(self, p: int, g: int) -> bool:
        """Whether some tile holds a Wallet (the can-act check of items that take one from a tile)."""
        return bool(self._has_wallet().any())
