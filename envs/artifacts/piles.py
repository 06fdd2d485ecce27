"""Moving artifact pieces between Storage, Sold, Discard and the draw pile (rulebook: keeping into
Storage and replacing when it is full, selling, discarding, searching the pile and shuffling it,
a resource's cost paid from Sold, the Shaman's wrong guess with an empty Discard), and Spain's call
of a check of the face-down piles."""

from __future__ import annotations

import numpy as np

from .data import ARTIFACTS, LOOTERS, NO_WINNER, PH_OVERFLOW, PH_REPLACE, PIECES_PER_ARTIFACT


class PileRules:
    """Pieces moving between the piles (a mixin of rules.Artifacts)."""

    def _add_to_storage(self, a: int, sell_overflow: bool = False) -> None:
        """A piece enters Storage; beyond capacity one of the OTHER pieces is sold (a kept artifact)
        or replaced, i.e. Discarded (events and abilities), chosen by vote."""
        self.storage[a] += 1
        self._check_academics()
        if self.winner != NO_WINNER or self.storage_total() <= self.capacity:
            return
        self._piece_vote(PH_OVERFLOW if sell_overflow else PH_REPLACE, a)

    def hidden_pieces(self) -> list[int]:
        """Pieces of each artifact in no public place (5 minus Storage minus the card in hand): in the
        draw pile, Sold or Discard."""
        out = [PIECES_PER_ARTIFACT - k for k in self.storage]
        if self.card_in_hand:
            out[self.card // PIECES_PER_ARTIFACT] -= 1
        return out

    def _sell(self, a: int, seen: bool = True) -> None:
        self.sold[a] += 1
        if self.vault is not None and seen:
            self.vault.sell(a)
        self._check_looters()

    def _discard(self, a: int, seen: bool = True) -> None:
        if self.vault is not None and seen and not self.shaman_curse:
            self.vault.discard(a)
        if self.shaman_curse:  # the Shaman's wrong guess with an empty Discard
            self.shaman_curse = False
            self._shuffle_into_pile(a)
            self.log += (f"the discarded {ARTIFACTS[a]} is shuffled back into the draw pile",)
            return
        self.discard[a] += 1
        self._check_looters()

    def _shuffle_into_pile(self, a: int) -> None:
        lo = a * PIECES_PER_ARTIFACT
        used = set(c for c in self.pile if lo <= c < lo + PIECES_PER_ARTIFACT)
        held = self.card if self.card_in_hand else -1
        card = next(c for c in range(lo, lo + PIECES_PER_ARTIFACT) if c not in used and c != held)
        self.pile.append(card)
        self.rng.shuffle(self.pile)

    def _search_pile(self, a: int) -> bool:
        """Take one piece of artifact a out of the draw pile (then shuffle it); False if none."""
        lo = a * PIECES_PER_ARTIFACT
        for i, c in enumerate(self.pile):
            if lo <= c < lo + PIECES_PER_ARTIFACT:
                del self.pile[i]
                self.rng.shuffle(self.pile)
                return True
        return False

    def _random_piece(self, counts: list[int]) -> int:
        total = sum(counts)
        k = int(self.rng.integers(total))
        for a, c in enumerate(counts):
            if k < c:
                return a
            k -= c
        raise AssertionError("empty pile")

    def _pay(self, cost: int) -> None:
        """Resource cost: pieces from Sold to Discard (ours: the artifact with most pieces in Sold;
        under Spain random pieces)."""
        for _ in range(cost):
            if self.spain:
                a = self._random_piece(self.sold)
            else:
                a = int(np.argmax(self.sold))
            self.sold[a] -= 1
            curse = self.shaman_curse
            self._discard(a, seen=not self.spain)
            if self.vault is not None:  # which piece, nobody sees
                self.vault.pay_one(to_pile=curse)
            if self.winner != NO_WINNER:
                return

    # ===== Spain's call =============================================================================
    def _spain_call(self, s: int) -> None:
        self.called_now = True
        if self.looters_pile_condition():
            self._win(LOOTERS, f"player {s} called: 2 pieces of each artifact in Sold + Discard")
            return
        self.vault.call_failed()
        if sum(self.discard) > 0:
            a = self._random_piece(self.discard)
            self.discard[a] -= 1
            self.sold[a] += 1
            self.vault.discard_to_sold()
            self.log += (f"player {s} called wrongly: a discarded piece returns to Sold",)
