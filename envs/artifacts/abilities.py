"""Role abilities (rulebook: Active abilities, used once from round ABILITY_FROM_ROUND on, the user
Revealed; Order of Execution: the Reveal counts after the effect; the Shaman's Seance, the
Curator's Restore, the Detective's Investigate, the Assassin's Hit, the Smuggler's Smuggle).
ABILITIES holds each Active ability's targets and effect (checked at import against data.ROLES)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from envs.core.flow import check_handlers

from .data import (
    ACTIVE_ABILITIES,
    LOOTERS,
    NUM_ARTIFACTS,
    PH_TARGET,
    ROLE_ACTIVE,
    ROLE_NAMES,
    ROLE_SIDE,
    ROLES,
    replaced,
)

if TYPE_CHECKING:
    from .rules import Artifacts


class AbilityRules:
    """Announcing and using an Active ability (a mixin of rules.Artifacts)."""

    def ability_targets(self, s: int) -> list[int]:
        """Legal targets of s's unused Active ability: seats (roles that target players) or artifacts."""
        role = int(self.roles[s])
        if not ROLE_ACTIVE[role] or self.ability_used[s]:
            return []
        return ROLE_ABILITY[role].targets(self, s)

    def _other_living(self, s: int) -> list[int]:
        return [t for t in range(self.num_players) if t != s and self.alive[t]]

    def _seance_targets(self, s: int) -> list[int]:
        return [t for t in range(self.num_players) if t != s and self.alive[t] and not self.revealed[t]]

    def _restore_targets(self, s: int) -> list[int]:
        if self.spain:
            return [-1] if self.sold_total() > 0 else []
        return [a for a in range(NUM_ARTIFACTS) if self.sold[a] > 0]

    def _smuggle_targets(self, s: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.storage[a] > 0]

    def _announce_ability(self, s: int) -> None:
        """The user shows their role card ("must Reveal their role, then use their Active ability");
        the Reveal counts for the win conditions only after the effect (Order of Execution)."""
        if not self.revealed[s]:
            self.revealed = replaced(self.revealed, s, True)
            self.log += (f"player {s} reveals {ROLE_NAMES[self.roles[s]]} to use the ability",)
        self.flow.decide(PH_TARGET, s, AbilityRules._target_options, AbilityRules._target_choice, s)

    def _target_options(self, mask: np.ndarray, s: int) -> None:
        n = self.num_players
        on_artifacts = ROLE_ABILITY[int(self.roles[s])].on_artifacts
        for t in self.ability_targets(s):
            if on_artifacts:
                mask[self.A_ART + t if t >= 0 else self.A_USE] = True
            else:
                mask[self.A_SEAT + (t - s) % n] = True

    def _target_choice(self, action: int, s: int) -> None:
        if action == self.A_USE:
            target = -1  # Curator under Spain: a random piece of Sold
        elif self.A_ART <= action < self.A_ART + NUM_ARTIFACTS:
            target = action - self.A_ART
        else:
            target = (s + action - self.A_SEAT) % self.num_players
        self._use_ability(s, target)

    def _use_ability(self, s: int, target: int) -> None:
        """The ability's effect (ABILITIES), then the user is Revealed (Order of Execution)."""
        role = int(self.roles[s])
        self.ability_used = replaced(self.ability_used, s, True)
        self.log += (f"player {s} uses the {ROLE_NAMES[role]}'s ability on {target}",)
        ROLE_ABILITY[role].use(self, s, target)
        self._check_academics()  # the user's Reveal counts now

    def _hit(self, s: int, target: int) -> None:
        self._kill(target)

    def _seance(self, s: int, target: int) -> None:
        if ROLE_SIDE[int(self.roles[target])] == LOOTERS:
            self._reveal(target)
            return
        self.cleared = replaced(self.cleared, target, True)
        if sum(self.discard) > 0:
            a = self._random_piece(self.discard)
            self.discard[a] -= 1
            self._shuffle_into_pile(a)
            if self.vault is not None:
                self.vault.discard_to_pile()
        else:
            self.shaman_curse = True

    def _investigate(self, s: int, target: int) -> None:
        self._check_side(s, target)

    def _restore(self, s: int, target: int) -> None:
        a = self._random_piece(self.sold) if target < 0 else target
        self.sold[a] -= 1
        if self.vault is not None:
            self.vault.sold_to_storage(a)
        self._add_to_storage(a)

    def _smuggle(self, s: int, target: int) -> None:
        self.storage[target] -= 1
        self._discard(target)


class Ability(NamedTuple):
    """A role's Active ability: its legal targets for seat s (seats, or artifacts: -1 a random piece)
    and its effect on one."""

    targets: Callable[[Artifacts, int], list[int]]
    use: Callable[[Artifacts, int, int], None]
    on_artifacts: bool


# A role's Active ability (data.ROLES[i].active names it)
ABILITIES: dict[str, Ability] = {
    "Seance": Ability(AbilityRules._seance_targets, AbilityRules._seance, False),
    "Restore": Ability(AbilityRules._restore_targets, AbilityRules._restore, True),
    "Investigate": Ability(AbilityRules._other_living, AbilityRules._investigate, False),
    "Hit": Ability(AbilityRules._other_living, AbilityRules._hit, False),
    "Smuggle": Ability(AbilityRules._smuggle_targets, AbilityRules._smuggle, True),
}
check_handlers({k: v.use for k, v in ABILITIES.items()}, ACTIVE_ABILITIES, "Active abilities (data.ROLES)")
if any(ROLE_ACTIVE[i] != bool(r.active) for i, r in enumerate(ROLES)):
    raise ValueError("data.ROLES: every role with an Active ability, and only those, names it")
ROLE_ABILITY: tuple[Ability | None, ...] = tuple(ABILITIES.get(r.active) for r in ROLES)  # by role id
