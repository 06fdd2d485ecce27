"""Exposed: what is told in private, and redrawing what a seat cannot know (a mixin of
`rules.Exposed`: every method is still `Exposed._name`).

Rules held: the Dentist (choose another player; an unexposed target privately tells you one line, its
row or its column, holding their Guest: a DENTIST decision of the target, known to the two of them
alone). For `Exposed.resample_hidden` (rules.py): the players whose card a seat does not know, the
Guests each of them could hold as far as that seat knows (unexposed, within every public deduction and
every Dentist answer given to it, short of 7 Wallets), a distinct draw among them (`_draw_distinct`),
and the Dentist answers it was no part of, redrawn.
"""

from __future__ import annotations

import numpy as np

from .data import WIN_WALLETS
from .decisions import DENTIST


def _draw_distinct(players: list[int], options: dict[int, list[int]], rng: np.random.Generator) -> dict:
    """Each player, in the given order, a distinct Guest drawn at random among their options, keeping
    at every step a distinct choice possible for the players still to draw (so it never fails when
    one assignment exists, and never needs the true one)."""
    chosen: dict[int, int] = {}
    for i, q in enumerate(players):
        later = players[i + 1 :]
        left = [x for x in options[q] if x not in chosen.values()]
        while True:
            x = left.pop(int(rng.integers(len(left))))
            if not later or _matchable(later, options, {*chosen.values(), x}):
                break
        chosen[q] = x
    return chosen


def _matchable(players: list[int], options: dict[int, list[int]], used: set[int]) -> bool:
    """Whether the players can hold distinct Guests from their options outside `used` (a bipartite
    matching by augmenting paths; at most 5 players)."""
    holder: dict[int, int] = {}

    def place(q: int, visited: set[int]) -> bool:
        for x in options[q]:
            if x in used or x in visited:
                continue
            visited.add(x)
            if x not in holder or place(holder[x], visited):
                holder[x] = q
                return True
        return False

    return all(place(q, set()) for q in players)


class HiddenRules:
    """The Dentist's private answer; what `resample_hidden` redraws."""

    # ================================================================ the Dentist (its answer: DENTIST)
    def _item_dentist(self, p: int, g: int) -> None:
        self._item_step(p, HiddenRules._dentist_target, p)

    def _dentist_target(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        if not self.player_exposed[q]:  # an exposed player has nothing to tell
            self.flow.decide(DENTIST, q, HiddenRules._dentist_mask, HiddenRules._dentist_told, q, p)

    def _dentist_mask(self, mask: np.ndarray, q: int, asker: int) -> None:
        """The target's two lines: the row and the column of their Guest."""
        c = self._guest_cell(q)
        mask[self.OFF_LINE + c // self.side] = True
        mask[self.OFF_LINE + self.side + c % self.side] = True

    def _dentist_told(self, action: int, q: int, asker: int) -> None:
        self._dentist_answer(q, asker, action - self.OFF_LINE)

    def _dentist_answer(self, q: int, asker: int, line: int) -> None:
        """The target privately tells the asker one line holding their Guest (not public)."""
        self.dentist_records += ((asker, q, self.epoch[q], line, self.guest_on.copy()),)
        self._dentist_allowed()

    # ================================================================ what `resample_hidden` redraws
    def _unknown_players(self, player: int) -> list[int]:
        """Players whose card `player` does not know: not `player`, unexposed, never shown it."""
        bit = 1 << player
        n = self.num_players
        return [
            q for q in range(n) if q != player and not self.player_exposed[q] and not self.known_by[q] & bit
        ]

    def _could_hold(self, player: int, unknown: list[int]) -> dict[int, list[bool]]:
        """For each unknown player q, by Guest: whether, as far as `player` knows, q can hold it: its
        tile unexposed, every public deduction and every Dentist answer q gave `player` allow it,
        and q would not hold 7 Wallets with it (the game goes on)."""
        if not unknown:
            return {}
        cells = self.cell_of_guest
        room = WIN_WALLETS - np.array([self.stash[q] for q in unknown])
        ok = self.public_candidates[unknown] & self.dentist_candidates[player, unknown]
        ok &= ~self.tile_exposed[cells]
        ok &= self.wallets_on[cells] < room[:, None]
        return dict(zip(unknown, ok.tolist()))

    def _redraw_dentist_answers(self, player: int, rng: np.random.Generator) -> None:
        """The line of every Dentist answer `player` neither gave nor received is redrawn (the row
        or the column of the target's Guest, as it stood), and what the answers allow rebuilt."""
        if not self.dentist_records:
            return
        s = self.side
        records = []
        for asker, target, epoch, line, snap in self.dentist_records:
            if player not in (asker, target):
                where = int(np.flatnonzero(snap == self.ident[target])[0])
                line = where // s if rng.random() < 0.5 else s + where % s
            records.append((asker, target, epoch, line, snap))
        self.dentist_records = tuple(records)
        self._dentist_allowed()

    def _dentist_allowed(self) -> None:
        """What the Dentist answers allow, [asker, target] by Guest (`dentist_candidates`), made again
        from their records whenever they change (rarely): each answer keeps the Guests that were on its
        line when it was given. Never changed in place (read-only), so copies share it."""
        if not self.dentist_records:
            self.dentist_candidates = self.no_answers  # everything allowed (the definition's table)
            return
        cand = np.ones_like(self.no_answers)
        for asker, target, _epoch, line, snap in self.dentist_records:
            cand[asker, target, snap[~self.line_mask[line]]] = False
        cand.flags.writeable = False
        self.dentist_candidates = cand
