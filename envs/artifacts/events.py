"""Events (rulebook: the event cards and their types, Random, Election, Storage, Action and Delayed;
whom an event targets and its effect; side checks and Foxfire; Reveal and death, with the dying
player's Active ability; Storage Expansion vs Borrow Exhibit). EVENT_TARGETS and EVENT_EFFECTS are
the handlers the data rows name (checked at import against data.TARGETS and data.EFFECTS)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from envs.core.flow import check_handlers

from .data import (
    ARTIFACTS,
    EFFECTS,
    EVENTS,
    EXTRA_SLOT,
    NO_WINNER,
    NUM_ARTIFACTS,
    PH_DEATH,
    PH_DONATION,
    PH_FOXFIRE,
    PH_PEEK,
    PH_RESTORE,
    PH_THEFT,
    ROLE_ACTIVE,
    ROLE_NAMES,
    STORAGE_LIMIT,
    TARGETS,
    replaced,
)

if TYPE_CHECKING:
    from .rules import Artifacts


class EventRules:
    """An event's targets and effect, checks, Reveals and deaths (a mixin of rules.Artifacts)."""

    def _resolve(self, ev: int, ballot_box: int) -> None:
        """An event's targets by the rule its row names (EVENT_TARGETS: none, the drawer, random living
        players or an Election), then its effect."""
        EVENT_TARGET[ev](self, ev, ballot_box)

    def _no_targets(self, ev: int, ballot_box: int) -> None:
        self._effect(ev, [])

    def _drawer_target(self, ev: int, ballot_box: int) -> None:
        """The drawer, if still alive when the event resolves (a Delayed one may find them dead)."""
        self._effect(ev, [self.drawer] if self.alive[self.drawer] else [])

    def _random_targets(self, ev: int, ballot_box: int) -> None:
        """`count` random living players; with the Ballot Box bought, elected instead (the card stays
        Random: FAQ)."""
        if ballot_box:
            self._elected_targets(ev, ballot_box)
            return
        living = self.living()
        picks = self.rng.choice(len(living), size=min(EVENTS[ev].count, len(living)), replace=False)
        self._effect(ev, [living[int(i)] for i in picks])

    def _elected_targets(self, ev: int, ballot_box: int) -> None:
        """An Election of `count` living players (discussion first), then the effect on them."""
        self._start_election(ev, EVENTS[ev].count)

    def _effect(self, ev: int, targets: list[int]) -> None:
        """The event's effect on its targets: the handler its row names (EVENT_EFFECTS)."""
        EVENT_EFFECT[ev](self, ev, targets)

    def _event_reveal(self, ev: int, targets: list[int]) -> None:
        for t in targets:
            self._reveal(t)

    def _event_silence(self, ev: int, targets: list[int]) -> None:
        for t in targets:
            su = self.silenced_until
            self.silenced_until = replaced(su, t, max(su[t], self.round + EVENTS[ev].param))

    def _event_kill(self, ev: int, targets: list[int]) -> None:
        for t in targets:
            self._kill(t)

    def _event_check_side(self, ev: int, targets: list[int]) -> None:
        """Each target privately checks the side of a living player of its choice (in target order)."""
        for t in reversed(targets):
            if self.alive[t] and len(self.living()) > 1:
                self.flow.do(EventRules._offer_check, t)

    def _event_foxfire(self, ev: int, targets: list[int]) -> None:
        if targets:
            t = targets[0]
            self.flow.decide(PH_FOXFIRE, t, EventRules._foxfire_options, EventRules._foxfire_choice, t)

    def _event_open_extra_slot(self, ev: int, targets: list[int]) -> None:
        self.capacity = STORAGE_LIMIT + EXTRA_SLOT

    def _event_borrow_exhibit(self, ev: int, targets: list[int]) -> None:
        """The Extra Storage Slot opens and holds a piece searched from the pile: of the artifact with
        most pieces in Storage among those the pile holds (ours: ties at random)."""
        if self.storage_event != ev:  # cancelled meanwhile
            return
        self.capacity = STORAGE_LIMIT + EXTRA_SLOT
        options = [a for a in range(NUM_ARTIFACTS) if self.pile_has(a)]
        if options:
            best = max(self.storage[a] for a in options)
            tied = [a for a in options if self.storage[a] == best]
            a = tied[int(self.rng.integers(len(tied)))]
            if self.vault is not None:
                self.vault.borrowed(a, self.hidden_pieces(), self.storage)
            self._search_pile(a)
            self.log += (f"Borrow Exhibit: {ARTIFACTS[a]} in the Extra Storage Slot",)
            self._add_to_storage(a)

    def _event_restore(self, ev: int, targets: list[int]) -> None:
        """A piece returns from Sold to Storage: chosen by vote (under Spain, a random piece)."""
        if self.sold_total() > 0:
            if self.spain:
                a = self._random_piece(self.sold)
                self.sold[a] -= 1
                self.vault.sold_to_storage(a)
                self._add_to_storage(a)
            else:
                self._piece_vote(PH_RESTORE)

    def _event_donation(self, ev: int, targets: list[int]) -> None:
        self._piece_vote(PH_DONATION)

    def _event_theft(self, ev: int, targets: list[int]) -> None:
        if self.storage_total() > 0:
            self._piece_vote(PH_THEFT)

    def _event_black_market(self, ev: int, targets: list[int]) -> None:
        """A piece of the artifact with fewest pieces in Sold + Discard among those the pile holds is
        sold (ours: ties at random; face down under Spain)."""
        options = [a for a in range(NUM_ARTIFACTS) if self.pile_has(a)]
        if options:
            low = min(self.sold[a] + self.discard[a] for a in options)
            tied = [a for a in options if self.sold[a] + self.discard[a] == low]
            a = tied[int(self.rng.integers(len(tied)))]
            if self.vault is not None:  # sold face down: which one, nobody sees
                self.vault.black_market(self.hidden_pieces())
            self._search_pile(a)
            self.log += (f"Black Market: {ARTIFACTS[a]} sold",)
            self._sell(a, seen=self.vault is None)

    def _event_cancel_every_delayed(self, ev: int, targets: list[int]) -> None:
        """Police Raid: Cancel Status of every Delayed event in play."""
        for d in [d for d in self.delayed if self.cancel_status_applies(d)]:
            self._cancel_status(d)

    def _event_unsilence(self, ev: int, targets: list[int]) -> None:
        self.silenced_until = (0,) * self.num_players

    def _event_nothing(self, ev: int, targets: list[int]) -> None:
        pass

    def _foxfire_options(self, mask: np.ndarray, s: int) -> None:
        for r in set(self.chart):
            mask[self.A_ROLE + r] = True

    def _foxfire_choice(self, action: int, s: int) -> None:
        self._foxfire(action - self.A_ROLE)

    def _check_side(self, who: int, whom: int) -> None:
        """A private side check of a living player of the checker's choice: everyone sees who checks
        among which players; only the checker knows whom (and the side seen)."""
        options = tuple(t for t in range(self.num_players) if t != who and self.alive[t])
        self.peek_options += (options,)
        self.peeks += ((who, whom),)

    def _offer_check(self, t: int) -> None:
        if self.alive[t] and len(self.living()) > 1:
            self.flow.decide(PH_PEEK, t, EventRules._other_living_options, EventRules._check_choice, t)

    def _other_living_options(self, mask: np.ndarray, s: int) -> None:
        n = self.num_players
        for t in range(n):
            if t != s and self.alive[t]:
                mask[self.A_SEAT + (t - s) % n] = True

    def _check_choice(self, action: int, s: int) -> None:
        self._check_side(s, (s + action - self.A_SEAT) % self.num_players)

    def _reveal(self, s: int) -> None:
        if not self.revealed[s]:
            self.revealed = replaced(self.revealed, s, True)
            self.log += (f"player {s} is Revealed: {ROLE_NAMES[self.roles[s]]}",)
            self._check_academics()

    def _kill(self, s: int) -> None:
        if not self.alive[s]:
            return
        self.alive = replaced(self.alive, s, False)
        self.log += (f"player {s} dies",)
        self._check_looters()
        self._reveal(s)
        if self.winner == NO_WINNER and ROLE_ACTIVE[self.roles[s]] and not self.ability_used[s]:
            self.flow.do(EventRules._offer_death_ability, s)

    def _offer_death_ability(self, s: int) -> None:
        """The dying player may at once use an unused Active ability (pass or use)."""
        if self.ability_targets(s):
            self.flow.decide(PH_DEATH, s, EventRules._death_options, EventRules._death_choice, s)

    def _death_options(self, mask: np.ndarray, s: int) -> None:
        mask[self.A_PASS] = mask[self.A_USE] = True

    def _death_choice(self, action: int, s: int) -> None:
        if action == self.A_USE:
            self._announce_ability(s)

    # ===== Foxfire names a role =====================================================================
    def _foxfire(self, role: int) -> None:
        holders = [t for t in range(self.num_players) if self.roles[t] == role]
        t = holders[int(self.rng.integers(len(holders)))]
        self.log += (f"Foxfire names the {ROLE_NAMES[role]}",)
        self._reveal(t)


# ===== what the data rows select: handler tables, checked at import ==============================
# An event's effect (data.EVENTS[i].effect names it)
EVENT_EFFECTS: dict[str, Callable[[Artifacts, int, list[int]], None]] = {
    "open_extra_slot": EventRules._event_open_extra_slot,
    "borrow_exhibit": EventRules._event_borrow_exhibit,
    "foxfire": EventRules._event_foxfire,
    "reveal": EventRules._event_reveal,
    "check_side": EventRules._event_check_side,
    "silence": EventRules._event_silence,
    "kill": EventRules._event_kill,
    "restore": EventRules._event_restore,
    "donation": EventRules._event_donation,
    "theft": EventRules._event_theft,
    "black_market": EventRules._event_black_market,
    "cancel_every_delayed": EventRules._event_cancel_every_delayed,
    "unsilence": EventRules._event_unsilence,
    "nothing": EventRules._event_nothing,
}
check_handlers(EVENT_EFFECTS, EFFECTS, "event effects (data.EFFECTS)")
EVENT_EFFECT = tuple(EVENT_EFFECTS[e.effect] for e in EVENTS)  # by event id

# Whom an event targets (data.EVENTS[i].target, a T_* index into data.TARGETS)
EVENT_TARGETS: dict[str, Callable[[Artifacts, int, int], None]] = {
    "none": EventRules._no_targets,
    "drawer": EventRules._drawer_target,
    "random": EventRules._random_targets,
    "elected": EventRules._elected_targets,
}
check_handlers(EVENT_TARGETS, TARGETS, "event targets (data.TARGETS)")
if any(not 0 <= e.target < len(TARGETS) for e in EVENTS):
    raise ValueError("data.EVENTS: every event's target is one of data.TARGETS (T_*)")
EVENT_TARGET = tuple(EVENT_TARGETS[TARGETS[e.target]] for e in EVENTS)  # by event id
