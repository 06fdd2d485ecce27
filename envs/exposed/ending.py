"""Exposed: the end of the game (a mixin of `rules.Exposed`: every method is still `Exposed._name`).

Rules held: the game ends at once when one player is left unexposed or a player holds 7 Wallets
(Stash plus Guest tile), the most Wallets winning and ties sharing the win; while it goes on, no
unexposed player's Stash plus tile reaches 7, a public deduction (`_wallet_deductions`). When it is
checked is the turn's (rules.py: `_advance`, `_apply`, `_end_action`).
"""

from __future__ import annotations

import numpy as np

from .data import WIN_WALLETS


class EndRules:
    """Both ways to win, and the deduction while nobody has."""

    def _check_end(self) -> bool:
        """Both ways to win, after every step. Returns True when the game is over."""
        if self.over:
            return True
        self._end_unchecked = False
        stash = self.stash
        wal = self.wallets_on.tolist()
        top = max(wal)
        if self.n_unexposed > 1 and max(stash) + top < WIN_WALLETS:
            return False  # nobody can hold 7 (and no deduction follows): the common case, fast
        unexposed = [p for p in range(self.num_players) if not self.player_exposed[p]]
        winners = self._winners(unexposed, wal)
        if winners is None:
            self._wallet_deductions(unexposed, top)
            return False
        self.winners = winners
        self.over = True
        self.flow.clear()
        return True

    def _winners(self, unexposed: list[int], wal: list[int]) -> tuple[int, ...] | None:
        """Who wins if the game ends now (the only unexposed player, else the most Wallets among those
        with 7+: ties share the win); None while it goes on. `wal`: the Wallets on each tile."""
        if len(unexposed) == 1:
            return tuple(unexposed)
        n, stash = self.num_players, self.stash
        cell = self.cell_of_guest.tolist()
        totals = [stash[p] + wal[cell[g]] for p, g in enumerate(self.ident)]
        rich = [p for p in range(n) if totals[p] >= WIN_WALLETS]
        if not unexposed:  # cannot happen (one exposure per step); most Wallets then
            rich = list(range(n))
        if not rich:
            return None
        best = max(totals[p] for p in rich)
        return tuple(p for p in rich if totals[p] == best)  # ties share the win

    def _wallet_deductions(self, unexposed: list[int], top: int) -> None:
        """The game goes on, so no unexposed player's Stash + tile reaches 7: a public deduction
        (`top`: the most Wallets on a tile)."""
        stash = self.stash
        deducing = [p for p in unexposed if top >= WIN_WALLETS - stash[p]]  # (others: nothing to learn)
        if deducing:
            on_guest = self.wallets_on[self.cell_of_guest]  # Wallets on each Guest's tile
            for p in deducing:  # (row by row: cheaper than one broadcast over every player)
                row = self.public_candidates[p]
                np.logical_and(row, on_guest < WIN_WALLETS - stash[p], out=row)
