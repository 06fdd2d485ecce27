"""Resources (rulebook: Resources, the purchase vote, the cost paid from Sold; Ballot Box, Lawyer,
Red Tape and Insurance, Cancel Status): when a resource may be suggested, the vote to agree, and
what buying it does. RESOURCE_RULES holds each resource's own rule (checked at import against
data.RESOURCES)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from envs.core.flow import check_handlers

from .data import ELECTION, EVENTS, NO_WINNER, NUM_ARTIFACT_CARDS, NUM_RESOURCES, PH_AGREE, RANDOM, RESOURCES

if TYPE_CHECKING:
    from .rules import Artifacts


class ResourceRules:
    """Suggesting and buying resources (a mixin of rules.Artifacts)."""

    def suggestion_refusal(self, s: int, r: int) -> str:
        """Why resource r may not be suggested now ("" if it may): each resource at most once a
        round, only while Sold holds its cost, only when the current card lists it (Insurance
        aside), and its own rule (RESOURCE_RULES: fitting the card, or Insurance for a Delayed event
        in play)."""
        # (constant texts: the mask asks this for every resource at every window step)
        if self.bought_now >> r & 1:
            return "that resource was bought this round already"
        if sum(self.sold) < RESOURCE_COST[r]:
            return "Sold holds fewer pieces than that resource costs"
        if RESOURCES[r].listed:  # offered only by the current card listing it
            ev = self.card - NUM_ARTIFACT_CARDS
            if ev < 0 or r not in EVENTS[ev].resources:
                return "the current card does not list that resource"
            if self.nulled:
                return "the current card is nulled"
        return RESOURCE_RULE[r].refusal(self, r)

    def suggestable(self) -> list[int]:
        """Resources that may be suggested now."""
        return [r for r in range(NUM_RESOURCES) if not self.suggestion_refusal(-1, r)]

    def _ballot_box_refusal(self, r: int) -> str:
        """Ballot Box (listed on the card): a Random event whose targets are not elected already."""
        if EVENTS[self.card - NUM_ARTIFACT_CARDS].type != RANDOM:
            return "the Ballot Box applies to a Random event"
        return "this event's targets are elected already" if self.ballot_box else ""

    def _election_resource_refusal(self, r: int) -> str:
        """Lawyer, Red Tape (listed on the card): an Election not yet skipped or delayed."""
        if EVENTS[self.card - NUM_ARTIFACT_CARDS].type != ELECTION:
            return "Lawyer and Red Tape apply to an Election"
        return "this Election is skipped or delayed already" if self.skipped or self.red_tape else ""

    def _insurance_refusal(self, r: int) -> str:
        """Insurance: a Delayed event in play drawn in an earlier round (Cancel Status)."""
        if any(self.cancel_status_applies(d) for d in self.delayed):
            return ""
        return "no Delayed event drawn in an earlier round is in play"

    def _suggest(self, s: int, r: int) -> None:
        """Seat s suggests buying resource r: the table votes to agree."""
        self.suggested = r
        self._open_vote(PH_AGREE, r, s)

    def _close_agree(self, r: int, suggester: int) -> None:
        voters = self.voting
        yes = [s for s in voters if self.ballots[s] == self.A_YES]
        self._record_vote([(s, 0 if self.ballots[s] == self.A_YES else 1) for s in voters], kind=PH_AGREE)
        need = math.ceil(len(self.living()) / 3)
        bought = len(yes) >= need and self.sold_total() >= RESOURCES[r].cost
        self._china([s for s in voters if (self.ballots[s] == self.A_YES) != bought])
        self.suggested = -1
        self.log += (
            f"{RESOURCES[r].name}: {len(yes)} agree (need {need}) -> {'bought' if bought else 'not bought'}",
        )
        if not bought:
            return
        self.bought_now |= 1 << r
        times = self.resources_bought
        self.resources_bought = (*times[:r], times[r] + 1, *times[r + 1 :])
        self._pay(RESOURCES[r].cost)
        if self.winner != NO_WINNER:
            return
        RESOURCE_RULE[r].buy(self)

    def _buy_ballot_box(self) -> None:
        self.ballot_box = True

    def _buy_lawyer(self) -> None:
        self.skipped = True

    def _buy_red_tape(self) -> None:
        self.red_tape = True

    def _buy_insurance(self) -> None:
        for d in self.delayed:  # the oldest first
            if self.cancel_status_applies(d):
                self._cancel_status(d)
                break

    def cancel_status_applies(self, d: tuple[int, ...]) -> bool:
        """Glossary, Cancel Status: "negate the effect of a Delayed event in play AFTER the turn it was
        drawn". A Delayed event is a card with the Delayed icon; a resource never changes a card's type
        (FAQ, Ballot Box), so an Election delayed by Red Tape is no Delayed event: neither Insurance nor
        Police Raid cancels it."""
        return EVENTS[d[0]].delay > 0 and d[2] < self.round

    def _cancel_status(self, d: tuple[int, ...]) -> None:
        self.delayed = tuple(other for other in self.delayed if other != d)
        if self.storage_event == d[0]:
            self.storage_event = -1
        self.log += (f"Cancel Status: {EVENTS[d[0]].name}",)


class ResourceRule(NamedTuple):
    """A resource's own rule: why it may not be suggested now ("" when it may; the once-a-round,
    cost and listing rules, data.RESOURCES' `listed`, are common: Artifacts.suggestion_refusal), and
    what buying it does."""

    refusal: Callable[[Artifacts, int], str]
    buy: Callable[[Artifacts], None]


# A resource (data.RESOURCES, by name)
RESOURCE_RULES: dict[str, ResourceRule] = {
    "Ballot Box": ResourceRule(ResourceRules._ballot_box_refusal, ResourceRules._buy_ballot_box),
    "Lawyer": ResourceRule(ResourceRules._election_resource_refusal, ResourceRules._buy_lawyer),
    "Red Tape": ResourceRule(ResourceRules._election_resource_refusal, ResourceRules._buy_red_tape),
    "Insurance": ResourceRule(ResourceRules._insurance_refusal, ResourceRules._buy_insurance),
}
check_handlers(RESOURCE_RULES, [r.name for r in RESOURCES], "resources (data.RESOURCES)")
RESOURCE_RULE = tuple(RESOURCE_RULES[r.name] for r in RESOURCES)  # by resource id
RESOURCE_COST = tuple(r.cost for r in RESOURCES)
