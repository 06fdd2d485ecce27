"""Exposed: the ACTION decision and three of its four actions (a mixin of `rules.Exposed`: every
method is still `Exposed._name`; the Move is movement.py's).

Rules held: on your turn one action of Move, Steal, Expose or Snitch; Steal (a Wallet from a tile
surrounding your Guest, or from your own while you are unexposed: FAQ) and the stolen Mark (no longer
a Mark, its item offered, its card discarded once the item is over); Expose (an unexposed tile in
your row or column; a Cop under your card costs a Wallet first); Snitch (show your card to another
unexposed player, then flip any unexposed tile but your own).
"""

from __future__ import annotations

import numpy as np

from .decisions import K_EXPOSE, K_ITEM, K_SNITCH, K_STEAL, OFFER, SNITCH_FLIP
from .table import replaced


class ActionRules:
    """The four actions' decision; Steal with the stolen Mark's offer, Expose, Snitch."""

    # ================================================================ the four actions
    def _action_mask(self, mask: np.ndarray, p: int) -> None:
        """ACTION: a swap (Move), a Steal, an Expose or (unexposed) a Snitch."""
        t = self.num_tiles
        self._swaps_mask(mask, p)
        self._steal_targets(p, out=mask[self.OFF_STEAL : self.OFF_EXPOSE])
        c = self._guest_cell(p)
        off = self.OFF_EXPOSE
        np.greater(self.rowcol[c], self.tile_exposed, out=mask[off : off + t])  # in line and unexposed
        player_exposed = self.player_exposed
        if not player_exposed[p]:
            n = self.num_players
            off = self.OFF_SNITCH
            for k in range(1, n):
                if not player_exposed[(p + k) % n]:
                    mask[off + k] = True

    def _action(self, a: int, p: int) -> None:
        if a < self.OFF_STEAL:
            self._move_first(p, a)
        elif a < self.OFF_EXPOSE:
            self.last_kind[p, K_STEAL] = True
            self._steal(p, a - self.OFF_STEAL)
        elif a < self.OFF_SNITCH:
            self._expose(p, a - self.OFF_EXPOSE)
        else:
            self._snitch(p, (p + a - self.OFF_SNITCH) % self.num_players)

    # --- STEAL
    def _steal_conditions(self, p: int) -> tuple[tuple[np.ndarray, str], tuple[np.ndarray, str]]:
        """STEAL (the action and the Mechanic's extra Steal), written once: by tile, each condition
        with why a tile failing it may not be robbed. The legal mask is every condition met
        (`_steal_targets`); an illegal Steal's reason is the first one failed (`_steal_refusal`)."""
        c = self._guest_cell(p)
        # the tiles surrounding your Guest, and your Guest itself only while you are unexposed (FAQ;
        # printed rulebook)
        reach = self.surround[c] if self.player_exposed[p] else self.near[c]
        return (
            (reach, "you may steal only from a tile surrounding your Guest, or your own while unexposed"),
            (self._has_wallet(), "that tile has no Wallet to steal"),
        )

    def _steal_targets(self, p: int, out: np.ndarray | None = None) -> np.ndarray:
        """The tiles p may steal from (the Steal block of the mask, as tile booleans; into `out`
        if given)."""
        (reach, _), (wallets, _) = self._steal_conditions(p)
        return np.logical_and(reach, wallets, out=out)

    def _steal_refusal(self, p: int, cell: int) -> str:
        return next((why for allowed, why in self._steal_conditions(p) if not allowed[cell]), "it is allowed")

    def _steal(self, p: int, cell: int) -> None:
        """STEAL: a Wallet from a tile within reach (`_steal_conditions`)."""
        self._touch(cell)
        # what the reach tells the table: the thief's Guest is the robbed tile or surrounds it
        # (`near` is the rule's reach, and symmetric)
        self._constrain(p, self._guests_where(self.near[cell]))
        self.wallets_on[cell] -= 1
        self._give(p, 1)
        g = int(self.guest_on[cell])
        if self.is_mark[g]:
            # a Mark stops being a Mark at its first theft (another Steal from its tile during its own
            # item, by the Mechanic, triggers nothing); its card is discarded once the item is over
            self._unmark(g)
            self.stolen += (g,)
            self._flip(cell, p)
            self.flow.do(ActionRules._discard_stolen, g)
            # Reading: the item is always offered; one with no possible first step does nothing
            # (whether it could act is then public: the offer tells nothing about the thief's Guest)
            self.flow.decide(OFFER, p, ActionRules._offer_mask, ActionRules._offer, p, g)

    # --- the stolen Mark's item offer (OFFER)
    def _offer_mask(self, mask: np.ndarray, p: int, g: int) -> None:
        mask[self.A_USE] = mask[self.A_PASS] = True

    def _offer(self, action: int, p: int, g: int) -> None:
        if action == self.A_USE:
            self.last_kind[self.turn, K_ITEM] = True
            self._use_item(p, g)

    def _discard_stolen(self, g: int) -> None:
        """The stolen Mark's card goes to the discard pile once its item is over (Steal, step 3): no
        item is in use any more (an item stolen inside another, by the Mechanic, is that item's last
        step)."""
        self.item_in_use = -1
        self.stolen = tuple(x for x in self.stolen if x != g)
        self._discard_card(g, self.turn)

    # --- EXPOSE
    def _expose(self, p: int, cell: int) -> None:
        """EXPOSE: a tile in your row or column; a Cop under your card costs a Wallet first."""
        self.last_kind[p, K_EXPOSE] = True
        self._touch(cell)
        if self.cop[p]:
            self.lost_found += self._take_from_player(p, self.cop[p])
        self._constrain(p, self._guests_where(self.rowcol[cell]))
        self._flip(cell, p)

    # --- SNITCH
    def _snitch(self, p: int, q: int) -> None:
        """SNITCH: show your Identity card to q, then flip any unexposed tile (not your own)."""
        self.last_kind[p, K_SNITCH] = True
        self.last_seats[p, q] = True
        self.known_by = replaced(self.known_by, p, self.known_by[p] | 1 << q)
        self.knows[q, p] = True
        self.items_any = True
        self.flow.decide(SNITCH_FLIP, p, ActionRules._snitch_flip_mask, ActionRules._snitch_flip, p)

    def _snitch_flip_mask(self, mask: np.ndarray, p: int) -> None:
        off = self.OFF_CELL
        m = mask[off : off + self.num_tiles]
        np.logical_not(self.tile_exposed, out=m)
        m[self._guest_cell(p)] = False

    def _snitch_flip(self, action: int, p: int) -> None:
        self._touch(action - self.OFF_CELL)
        self._flip(action - self.OFF_CELL, p)
