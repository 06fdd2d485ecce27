"""Writing the observation's source vector: no rule of the rulebook, bookkeeping apart from the rules.
The source (laid out by ArtifactsDefinition._observe_at, definition.py) holds the public pieces,
rewritten when a step or choice changed the table (all but rules.QUIET_STEPS, QUIET_CHOICES and
QUIET_PASSES), and the knowledge blocks, rewritten then if reveals, clears, private checks or roles
changed (they change only with the table; resample_hidden marks its sample stale). Each observer's
view is one gather through the layout's seat axes (Artifacts.observation). The source and what it
shows are caches the state determines (Artifacts.DERIVED): a loaded position starts without them."""

from __future__ import annotations

import numpy as np

from .data import (
    MAX_DELAY,
    MAX_PURCHASES,
    MAX_ROUNDS,
    MAX_SILENCE,
    NUM_ARTIFACT_CARDS,
    NUM_ARTIFACTS,
    PIECES_PER_ARTIFACT,
    STORAGE_LIMIT,
)
from .knowledge import ROLE_IDS, SIDE_IDS


class ObservationSource:
    """The observation's source vector, kept current (a mixin of rules.Artifacts)."""

    def touch(self) -> None:
        """Mark the cached public view stale (call after changing the state by hand, as tests do)."""
        self._pub_dirty = True

    def _write_knowledge(self, src: np.ndarray) -> None:
        """Every seat's role one-hot and what each observer knows by relative seat, from knowledge()
        (rewritten only when that changed)."""
        know = self.knowledge()
        key, _, written = self._know_memo
        if know is written:
            return
        rel = self._relative_seats  # [observer, k] -> the seat k places after the observer
        src[self._roles_at] = (self.roles[:, None] == ROLE_IDS).ravel()
        src[self._known_roles_at] = (know.role[self._observers, rel][:, :, None] == ROLE_IDS).ravel()
        src[self._known_sides_at] = (know.side[self._observers, rel][:, :, None] == SIDE_IDS).ravel()
        self._know_memo = (key, know, know)

    def _build_public(self) -> None:
        """The public pieces (absolute seats), each written at its place in the source."""
        if self._source is None:
            self._source = np.zeros(self._source_size, dtype=np.float32)
            self._know_memo = (*self._know_memo[:2], None)  # (the new source holds no knowledge yet)
        pub, at = self._source, self._at
        pub[self._public_at] = self._pub_fixed  # the site and the role chart
        r = self.round
        pub[self._seat_flags_at] = (  # alive, revealed, silenced, silence_left, ability_used, cleared
            *self.alive,
            *self.revealed,
            *[su >= r for su in self.silenced_until],
            *[max(0, su - r) / MAX_SILENCE for su in self.silenced_until],
            *self.ability_used,
            *self.cleared,
        )
        if self.drawer >= 0:
            pub[at["drawer"].start + self.drawer] = 1
        if self.card >= 0:
            c = self.card
            pub[
                at["card"].start
                + (
                    c // PIECES_PER_ARTIFACT
                    if c < NUM_ARTIFACT_CARDS
                    else c - NUM_ARTIFACT_CARDS + NUM_ARTIFACTS
                )
            ] = 1
        cs = at["card_status"].start
        pub[cs] = self.card_in_hand
        pub[cs + 1] = self.ballot_box
        pub[cs + 2] = self.skipped
        pub[cs + 3] = self.red_tape
        pub[cs + 4] = self.nulled
        piles = self._piles_at  # storage, sold, discard (Sold and Discard zero under Spain)
        # (a count divided as a Python float, then stored as float32, equals the float32 division)
        pub[piles] = [
            k / 5
            for k in (
                self.storage + self._no_piles if self.spain else self.storage + self.sold + self.discard
            )
        ]
        ps = at["pile_sizes"].start
        pub[ps] = self.capacity / 6
        pub[ps + 1] = sum(self.sold) / 25
        pub[ps + 2] = sum(self.discard) / 25
        pub[ps + 3] = len(self.pile) / 50
        if self.vault is not None:
            pub[at["vault"]] = (self.vault.ranges() / PIECES_PER_ARTIFACT).ravel()
        pub[at["events_gone"]] = self.events_gone
        for d in self.delayed:
            pub[at["delayed"].start + d[0]] = (d[1] - self.round + 1) / (MAX_DELAY + 1)
        fl = at["flags"].start
        pub[fl] = self.capacity > STORAGE_LIMIT
        pub[fl + 1] = self.shaman_curse
        pub[fl + 2] = self.suggested >= 0
        pub[fl + 3] = self.called_now
        if self.suggested >= 0:
            pub[at["resource"].start + self.suggested] = 1
        pub[at["resources_bought"]] = [k / MAX_PURCHASES for k in self.resources_bought]
        pub[at["round"].start] = self.round / MAX_ROUNDS
        if self.last_vote_kind >= 0:
            pub[at["last_vote_kind"].start + self.last_vote_kind] = 1
        # the records (last vote, keep / sell, majority, elections, talk) at once, each count divided
        # by its bound (definition.RECORDS; the last vote is all zero before the first closes)
        np.divide(self.records, self._records_scale, out=pub[self._records_source_at])
        self._pub_dirty = False
        self._pub_decision = None
