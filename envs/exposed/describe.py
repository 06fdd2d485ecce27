"""Exposed: the engine describing itself (a mixin of `rules.Exposed`: every method is still
`Exposed._name`).

Rules held: none is played here, but each is said in words: the flat action space (`action_groups`,
`action_to_string`), why an action is not allowed now (`illegal_reason`: the Steal's refusals are
actions.py's `_steal_conditions`, the FAQ's no reversal, who may Snitch), the table as text and picture
(render.py) and the rulebook's conservation laws as invariants (`check_invariants`: Wallets, cards,
exposure, one Cop card).
"""

from __future__ import annotations

import numpy as np

from envs.core import ActionGroup

from .data import COPS_MAX, GUESTS
from .decisions import ACTION, B_STEAL, DECISION_NAMES, MOVE1, MOVE2, PICK


class DescribeRules:
    """Action names and groups, illegal-action reasons, the table as text, the invariants."""

    # ================================================================ invariants and text
    def check_invariants(self) -> None:
        t, n = self.num_tiles, self.num_players
        total = int(self.wallets_on.sum()) + sum(self.stash) + self.lost_found
        assert total == self.initial_wallets + self.created, "Wallets created or lost"
        assert (self.wallets_on >= 0).all() and min(self.stash) >= 0 and self.lost_found >= 0
        assert (np.sort(self.guest_on) == self._arange_t).all()
        assert (self.cell_of_guest[self.guest_on] == self._arange_t).all()
        cards = [*self.ident, *self.deck, *self.marks, *self.stolen, *self.discard]
        assert sorted(cards) == list(range(t)), "every Identity card is in exactly one place"
        assert len(self.deck) == len(self.deck_seen)
        assert len(self.marks) <= self.num_marks
        assert self.tile_exposed[self.cell_of_guest[self.discard]].all(), "a discarded card's tile is exposed"
        assert self.n_unexposed == n - sum(self.player_exposed)
        assert self.kept_any or not self.kept.any()
        assert self.cop.sum() <= COPS_MAX, "one Cop card: a Mark once, and once more by the Actor"
        assert self.items_any or not (self.last_seats.any() or self.last_items.any())
        for q in range(n):
            assert self.holder_of[self.ident[q]] == q
            assert self.player_exposed[q] == bool(self.tile_exposed[self._guest_cell(q)])
            if self.player_exposed[q]:
                assert self.stash[q] == 0, "an exposed player's Wallets are on their Guest"
            else:
                assert self.public_candidates[q, self.ident[q]], "a public deduction excludes the true Guest"
        for asker, target, epoch, _line, _snap in self.dentist_records:
            if epoch == self.epoch[target]:
                assert self.dentist_candidates[asker, target, self.ident[target]]
        if not self.over:
            assert self.flow.decision is not None, "a game going on waits for a decision"
            assert self.legal_action_mask().any()

    def guest_name(self, g: int) -> str:
        return GUESTS[g].name

    def _cell_name(self, c: int) -> str:
        return f"r{c // self.side}c{c % self.side}({GUESTS[self.guest_on[c]].name})"

    def action_to_string(self, action: int) -> str:
        a = int(action)
        _t, _n = self.num_tiles, self.num_players
        if a < self.OFF_STEAL:
            x, y = self.edges[a]
            return f"swap {self._cell_name(x)}<->{self._cell_name(y)}"
        if a < self.OFF_EXPOSE:
            return f"steal from {self._cell_name(a - self.OFF_STEAL)}"
        if a < self.OFF_SNITCH:
            return f"expose {self._cell_name(a - self.OFF_EXPOSE)}"
        if a < self.OFF_CELL:
            return f"snitch to seat +{a - self.OFF_SNITCH}"
        if a < self.OFF_LINE:
            return f"choose tile {self._cell_name(a - self.OFF_CELL)}"
        if a < self.OFF_SEAT:
            i = a - self.OFF_LINE
            return f"choose row {i}" if i < self.side else f"choose column {i - self.side}"
        if a < self.OFF_GUEST:
            return f"choose player seat +{a - self.OFF_SEAT}"
        if a < self.A_USE:
            return f"choose card {GUESTS[a - self.OFF_GUEST].name}"
        if a == self.A_USE:
            return "use the item"
        if a == self.A_PASS:
            return "pass / stop"
        return f"action {a} (out of range 0..{self.num_actions - 1})"

    def illegal_reason(self, action: int) -> str:
        decision = self.flow.decision
        if decision is None:
            return super().illegal_reason(action)
        kind, p = decision.kind, decision.player
        where = f"the current decision is '{DECISION_NAMES[kind]}'"
        a = int(action)
        if kind in (ACTION, MOVE1, MOVE2) and a < self.OFF_STEAL:
            return f"{where}; that swap would undo a swap of a player's latest Move (FAQ: no reversal)"
        steal = kind == ACTION or (kind == PICK and decision.args[1].block == B_STEAL)
        if steal and self.OFF_STEAL <= a < self.OFF_EXPOSE:
            return f"{where}; {self._steal_refusal(p, a - self.OFF_STEAL)}"
        if kind == ACTION and a < self.OFF_SNITCH:
            return f"{where}; you may expose only an unexposed tile in your row or column, not your own"
        if kind == ACTION and a < self.OFF_CELL:
            if self.player_exposed[p]:
                return f"{where}; only unexposed players may Snitch"
            return f"{where}; you may Snitch only to another unexposed player"
        if a == self.A_PASS:
            return f"{where}; this step is not optional"
        return f"{where}; this choice is not among the allowed ones for it"

    def action_groups(self) -> list[tuple | ActionGroup]:
        t, n, s = self.num_tiles, self.num_players, self.side
        return [
            (
                "swap",
                0,
                self.num_edges,
                "swap two orthogonally adjacent tiles (Move action, Soldier/Magician/Server moves)",
            ),
            ActionGroup(
                "steal", self.OFF_STEAL, t, "Steal action (or the Mechanic's steal) from a cell", cells="grid"
            ),
            ActionGroup("expose", self.OFF_EXPOSE, t, "Expose action on a cell", cells="grid"),
            ActionGroup(
                "snitch",
                self.OFF_SNITCH,
                n,
                "Snitch: show your card to the player at relative seat k (k >= 1)",
                seats=True,
            ),
            ActionGroup(
                "tile", self.OFF_CELL, t, "choose a cell (Snitch flip, item steps, Pilot swap)", cells="grid"
            ),
            ("line", self.OFF_LINE, 2 * s, "choose a row (first) or a column (item steps, Dentist answer)"),
            ActionGroup(
                "player", self.OFF_SEAT, n, "choose the player at relative seat k (item steps)", seats=True
            ),
            ("card", self.OFF_GUEST, t, "choose a card by Guest (Actor: a discarded card; Judge: a Mark)"),
            ("use", self.A_USE, 1, "use the stolen Mark's item"),
            ("pass", self.A_PASS, 1, "decline the item / stop an 'up to' item / skip Pilot or Soldier"),
        ]

    def to_string(self, player: int | None = None) -> str:
        """The table as text: with `player`, only what that player may see (render.table_view)."""
        from .render import table_text

        return table_text(self, player)

    def render_rgb(self, player: int | None = None) -> np.ndarray:
        """The table as a picture, from the same view as `to_string(player)`."""
        from .render import table_picture

        return table_picture(self, player)
