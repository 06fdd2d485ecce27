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
        n = self.num_players
        player_exposed = self.player_exposed
        unexposed = [p for p in range(n) if not player_exposed[p]]
        if len(unexposed) == 1:
            self.winners = unexposed
        else:
            cell = self.cell_of_guest.tolist()
            totals = [stash[p] + wal[cell[g]] for p, g in enumerate(self.ident)]
            rich = [p for p in range(n) if totals[p] >= WIN_WALLETS]
            if not unexposed:  # cannot happen (one exposure per step); most Wallets then
                rich = list(range(n))
            if not rich:
                self._wallet_deductions(unexposed, top)
                return False
            best = max(totals[p] for p in rich)
            self.winners = [p for p in rich if totals[p] == best]  # ties share the win
        self.over = True
        self.flow.clear()
        return True

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
