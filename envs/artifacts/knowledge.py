"""What each seat knows, and the hidden information it does not: awareness, Revealed roles, public
clears and private side checks (rulebook: roles and awareness, Revealed, the Detective's and the
events' side checks, Greece), as one rule for the whole table (`learn`, `Artifacts.knowledge`,
cached); and the draws resample_hidden makes from it: a deal of the roles a seat cannot tell from
the true one, the draw pile in a canonical order."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .data import (
    ACADEMICS,
    APPARENT_SIDE,
    AWARE_OF,
    LOOTERS,
    NUM_ARTIFACT_CARDS,
    NUM_ARTIFACTS,
    NUM_EVENTS,
    NUM_ROLES,
    PIECES_PER_ARTIFACT,
    ROLE_SIDE,
)


class Knowledge(NamedTuple):
    """What every player knows of every seat, [observer, seat] in absolute seats (-1: unknown)."""

    role: np.ndarray  # the exact role p knows s to hold
    side: np.ndarray  # the side p knows s to have


AWARE = np.array([[r in AWARE_OF[holder] for r in range(NUM_ROLES)] for holder in range(NUM_ROLES)])
TRUE_SIDE = np.array(ROLE_SIDE)
SEEN_SIDE = np.array(APPARENT_SIDE)  # the side a check sees
ROLE_IDS = np.arange(NUM_ROLES)  # (one-hot columns)
SIDE_IDS = np.arange(2)  # known_sides' columns [Academic, Looter]
assert (ACADEMICS, LOOTERS) == (0, 1)


def learn(
    roles: np.ndarray, revealed: list[bool], cleared: list[bool], peeks: list[tuple[int, int]]
) -> Knowledge:
    """Artifacts.knowledge's rule for a whole table at once: roles known (own, Revealed, awareness),
    then sides: a known role's true side, else a public clear's (Academic), else a private check's
    apparent side."""
    n = len(roles)
    knows = AWARE[roles[:, None], roles[None, :]]  # [observer, seat]: aware of the seat's role
    knows |= np.array(revealed)
    knows.flat[:: n + 1] = True  # one's own role
    learnt = np.full((n, n), -1)
    for who, whom in peeks:
        learnt[who, whom] = SEEN_SIDE[roles[whom]]
    if True in cleared:
        learnt[:, np.array(cleared)] = ACADEMICS
    role = np.where(knows, roles[None, :], -1)
    return Knowledge(role, np.where(knows, TRUE_SIDE[roles][None, :], learnt))


EVERY_ROLE = frozenset(range(NUM_ROLES))
ACADEMIC_ROLES = frozenset(r for r in EVERY_ROLE if ROLE_SIDE[r] == ACADEMICS)
APPEARING_AS = {
    side: frozenset(r for r in EVERY_ROLE if APPARENT_SIDE[r] == side) for side in (ACADEMICS, LOOTERS)
}


def canonical_pile(in_pile: list[int], events_gone: list[bool]) -> list[int]:
    """The draw pile's cards in a canonical order, from what it holds: `in_pile[a]` pieces of each
    artifact (the lowest card ids: the card in hand, if any, takes the highest) and every event not
    yet drawn."""
    pile = [a * PIECES_PER_ARTIFACT + k for a in range(NUM_ARTIFACTS) for k in range(in_pile[a])]
    return pile + [NUM_ARTIFACT_CARDS + e for e in range(NUM_EVENTS) if not events_gone[e]]


def constrained_deal(
    pool: list[int], allowed: list[frozenset[int] | None], rng: np.random.Generator
) -> list[int]:
    """A deal of the multiset `pool` (sorted) to as many seats, seat i taking a role in allowed[i]
    (None: any), drawn uniformly among the distinct deals allowed. The constrained seats draw first,
    seat by seat, each role weighted by the number of deals it leaves (counted exactly: the free seats
    take any arrangement of what remains); the free seats then take a uniform arrangement of the rest.
    The draw depends on the pool and rng alone."""
    kinds = sorted(set(pool))
    bound = [i for i, ok in enumerate(allowed) if ok is not None]
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def takes(j: int, counts: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        """(role, counts left) for each role the j-th constrained seat may take now."""
        ok = allowed[bound[j]]
        return [
            (kinds[k], counts[:k] + (c - 1,) + counts[k + 1 :])
            for k, c in enumerate(counts)
            if c and kinds[k] in ok
        ]

    def ways(j: int, counts: tuple[int, ...]) -> int:
        if j == len(bound):  # the free seats: every arrangement of the rest
            return math.factorial(sum(counts)) // math.prod(math.factorial(c) for c in counts)
        if (j, counts) not in memo:
            memo[j, counts] = sum(ways(j + 1, rest) for _, rest in takes(j, counts))
        return memo[j, counts]

    deal = [-1] * len(pool)
    counts = tuple(pool.count(k) for k in kinds)
    for j, seat in enumerate(bound):
        options = takes(j, counts)
        weights = [ways(j + 1, rest) for _, rest in options]
        pick = int(rng.integers(sum(weights)))
        for (role, rest), w in zip(options, weights):
            if pick < w:
                deal[seat], counts = role, rest
                break
            pick -= w
    rest = [k for k, c in zip(kinds, counts) for _ in range(c)]
    for seat, i in zip((i for i, ok in enumerate(allowed) if ok is None), rng.permutation(len(rest))):
        deal[seat] = rest[i]
    return deal


class KnowledgeRules:
    """What each player knows of each seat (a mixin of rules.Artifacts)."""

    def knowledge(self) -> Knowledge:
        """What every player knows of every seat (absolute seats), the rule in one place: p knows s's
        exact role if s is p, is Revealed, or holds a role p is aware of; p knows s's side from a
        known role (the true side), else from a public clear (Academic), else from a private check
        of p's (the apparent side: the Forger shows as an Academic). Cached until a reveal, a clear,
        a check or the deal changes (they change only with the table; resample_hidden drops it)."""
        key = (tuple(self.revealed), tuple(self.cleared), len(self.peeks), self.roles.tobytes())
        memo = self._know_memo  # (the key it was computed for, the knowledge, the one the source holds)
        if key != memo[0]:
            know = learn(self.roles, self.revealed, self.cleared, self.peeks)
            self._know_memo = (key, know, memo[2])
            return know
        return memo[1]

    def knows_role(self, p: int, s: int) -> bool:
        """Does player p know seat s's exact role? (own, Revealed, or awareness)."""
        return bool(self.knowledge().role[p, s] >= 0)

    def known_side(self, p: int, s: int) -> int:
        """The side p knows seat s to have (-1: unknown); private checks see apparent sides."""
        return int(self.knowledge().side[p, s])

    def _consistent_roles(self, p: int, rng: np.random.Generator) -> np.ndarray:
        """A deal drawn uniformly from those p cannot tell from the true one: every role p knows (own,
        Revealed, awareness) kept, the rest of the chart re-dealt so that each publicly cleared seat
        is an Academic and each side p checked privately shows the side p saw (the Forger's apparent
        side). All constraints hold together (a cleared seat p also checked stays a true Academic)."""
        n = self.num_players
        known = self.knowledge().role[p]
        free = [s for s in range(n) if known[s] < 0]
        pool = sorted(int(self.roles[s]) for s in free)  # the chart less the known roles
        seen = {whom: APPARENT_SIDE[int(self.roles[whom])] for who, whom in self.peeks if who == p}
        allowed: list[frozenset[int] | None] = []
        for s in free:
            ok = EVERY_ROLE
            if self.cleared[s]:
                ok &= ACADEMIC_ROLES
            if s in seen:
                ok &= APPEARING_AS[seen[s]]
            allowed.append(None if ok == EVERY_ROLE else ok)
        roles = self.roles.copy()
        roles[free] = constrained_deal(pool, allowed, rng)
        return roles
