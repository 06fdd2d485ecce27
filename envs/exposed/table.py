"""Exposed: the pieces on the table and what happens to them, whichever rule moves them (a mixin of
`rules.Exposed`: every method is still `Exposed._name`).

Rules held: the Wallets (a player's Stash, the tiles, the Lost & Found, unlimited by the FAQ) given and
taken, an exposed player's Stash being their Guest tile (Reminders); swapping two tiles with their
Wallets and sides; the public deductions about a player's Guest; flipping a tile and If You Are Exposed
(the exposer's reward, the Stash onto the Guest, half of it lost); a discarded card exposing its tile
(Reminders), a Mark discarded; drawing a Mark (an empty one discarded and exposed, or given a Wallet:
the `empty_new_mark` option). Beside them: `touch` (the knowledge stamp) and the kept items' views.
"""

from __future__ import annotations

import numpy as np


def replaced(values: tuple, i: int, x) -> tuple:
    """`values` with item i replaced by x. The state's tuples (bookkeeping that changes rarely) are
    never changed in place but replaced whole, so a copy shares them."""
    return (*values[:i], x, *values[i + 1 :])


class TableRules:
    """Wallets, tiles, exposure, discards and Marks (see the module's docstring)."""

    # ================================================================ small helpers
    def touch(self) -> None:
        """Say that what players know may have changed (every rule step but a swap or a pass says
        it; call it after changing the state by hand, as tests do): the observation then writes
        the observer's knowledge again instead of reusing it, and the next clean-up checks the end
        of the game even if it changes nothing (see `_end_action`)."""
        self._stamp += 1
        self._end_unchecked = True

    def _keep(self, p: int, column: int, value: int) -> None:
        """p keeps an item: `kept[p, column]` (Pilot, Soldier: 1; Cops under the card: their count)
        becomes `value`. The table changes rarely: it is replaced whole (read-only), so copies share it."""
        kept = self.kept.copy()
        kept[p, column] = value
        kept.flags.writeable = False
        self.kept = kept
        self.kept_any = True

    @property
    def pilot(self) -> np.ndarray:
        return self.kept[:, 0]

    @property
    def soldier(self) -> np.ndarray:
        return self.kept[:, 1]

    @property
    def cop(self) -> np.ndarray:
        return self.kept[:, 2]

    def _from_lost_found(self, k: int) -> int:
        """Take k Wallets from the Lost & Found (unlimited: the shortfall is created)."""
        if self.lost_found >= k:
            self.lost_found -= k
        else:
            self.created += k - self.lost_found
            self.lost_found = 0
        return k

    def _has_wallet(self) -> np.ndarray:
        """By cell: whether the tile holds a Wallet. (Counts are never negative, so this is their
        truth value: numpy converts to bool faster than it compares with a Python 0.)"""
        return self.wallets_on.astype(bool)

    def _guest_cell(self, p: int) -> int:
        return self.cell_of_guest.item(self.ident[p])  # (`item`: a Python int, no numpy scalar)

    def _give(self, p: int, k: int) -> None:
        """Wallets given to a player: their Stash if unexposed, else their Guest tile (Reminders)."""
        if k <= 0:
            return
        if self.player_exposed[p]:
            self.wallets_on[self._guest_cell(p)] += k
        else:
            self.stash[p] += k

    def _take_from_player(self, p: int, k: int) -> int:
        """Up to k Wallets out of p's Stash (an exposed player's Stash is their Guest tile)."""
        if self.player_exposed[p]:
            c = self._guest_cell(p)
            got = min(k, int(self.wallets_on[c]))
            self.wallets_on[c] -= got
        else:
            got = min(k, self.stash[p])
            self.stash[p] -= got
        return got

    def _total(self, p: int) -> int:
        return self.stash[p] + int(self.wallets_on[self._guest_cell(p)])

    def _swap_cells(self, a: int, b: int) -> None:
        """Swap two tiles (with their Wallets and sides)."""
        if a == b:
            return
        cg, cw, ce = self.guest_on, self.wallets_on, self.tile_exposed
        ga, gb = cg[a], cg[b]
        cg[a], cg[b] = gb, ga
        cw[a], cw[b] = cw[b], cw[a]
        ce[a], ce[b] = ce[b], ce[a]
        self.cell_of_guest[ga], self.cell_of_guest[gb] = b, a

    def _touch(self, cell: int) -> None:
        self.last_guests[self.turn, self.guest_on[cell]] = True

    def _guests_where(self, cell_mask: np.ndarray) -> np.ndarray:
        return cell_mask[self.cell_of_guest]  # Guest g is where its cell is

    def _constrain(self, p: int, guest_mask: np.ndarray) -> None:
        """Public deduction: p's Guest is among guest_mask (kept for resampling and observations)."""
        if not self.player_exposed[p]:
            self.public_candidates[p] &= guest_mask

    # ================================================================ exposure and discards
    def _flip(self, cell: int, actor: int) -> None:
        """Flip a tile to its exposed side; a player holding that Guest is exposed."""
        if self.tile_exposed[cell]:
            return
        self.tile_exposed[cell] = True
        owner = self.holder_of[self.guest_on[cell]]
        if owner >= 0:
            self._exposed(owner, actor)

    def _exposed(self, p: int, actor: int) -> None:
        """If You Are Exposed: card face-up, reward to the exposer, Stash onto the Guest, half lost."""
        self.player_exposed = replaced(self.player_exposed, p, True)
        self.n_unexposed -= 1
        if actor >= 0 and actor != p:  # Reading: no reward for exposing yourself
            self._give(actor, self._from_lost_found(self.config.exposure_reward))
        c = self._guest_cell(p)
        self.wallets_on[c] += self.stash[p]
        self.stash[p] = 0
        half = int(self.wallets_on[c]) // 2
        self.wallets_on[c] -= half
        self.lost_found += half

    def _discard_card(self, g: int, actor: int) -> None:
        """A card to the discard pile; its Guest tile is exposed (Reminders)."""
        self.discard.append(g)
        self.is_discarded[g] = True
        self._flip(int(self.cell_of_guest[g]), actor)

    def _discard_mark(self, g: int) -> None:
        if self.is_mark[g]:
            self._unmark(g)
            self._discard_card(g, self.turn)

    def _unmark(self, g: int) -> None:
        self.marks.remove(g)
        self.is_mark[g] = False

    def _draw_mark(self) -> None:
        """Draw one Mark; an empty one is discarded and exposed and another drawn (or gets a Wallet)."""
        while self.deck:
            g = self.deck.pop(0)
            self.deck_seen.pop(0)
            c = int(self.cell_of_guest[g])
            if self.wallets_on[c] == 0:
                if self.config.empty_new_mark == "discard":
                    # (a deck card is nobody's identity: its flip exposes no player, whoever acts)
                    self._discard_card(g, self.turn if self.flow.frames else -1)
                    continue
                self.wallets_on[c] += self._from_lost_found(1)
            self.marks.append(g)
            self.is_mark[g] = True
            return
