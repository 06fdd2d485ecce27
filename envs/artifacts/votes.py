"""Votes (rulebook: secret votes of the living, unsilenced players, published when they close; ties
to the disagree group or at random; an artifact drawn kept or sold, the forced sale of a full
Storage and the extra sale; votes over artifacts from events; Elections with their discussion;
China's Zombie Troop). VOTES holds every vote kind's mask, ballot, close and resampled ballot,
PIECE_VOTES a vote over artifacts' options and result."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .data import (
    ARTIFACTS,
    EVENTS,
    NUM_ARTIFACTS,
    PH_AGREE,
    PH_DONATION,
    PH_ELECT,
    PH_EXTRA,
    PH_KEEP,
    PH_OVERFLOW,
    PH_REPLACE,
    PH_RESTORE,
    PH_TALK,
    PH_THEFT,
    PIECES_PER_ARTIFACT,
    TYPE_VOTES,
    VOTE_KIND,
    VOTE_PHASES,
    replaced,
)
from .resources import ResourceRules

if TYPE_CHECKING:
    from .rules import Artifacts


def _record_view(name: str, doc: str) -> property:
    """A public record as an array view of the game's `records` (written in place through it)."""

    def view(game: Artifacts) -> np.ndarray:
        at, shape = game._records_at[name]
        return game.records[at].reshape(shape)

    return property(view, doc=doc)


class VoteRules:
    """Secret votes and Elections (a mixin of rules.Artifacts)."""

    # ===== artifacts: keep or sell =================================================================
    def _close_keep(self) -> None:
        a = self.card // PIECES_PER_ARTIFACT
        voters = self.voting
        yes = sum(1 for s in voters if self.ballots[s] == self.A_YES)
        no = len(voters) - yes
        keep = yes > no  # a tie goes to the disagree group: sell
        self._record_vote([(s, 0 if self.ballots[s] == self.A_YES else 1) for s in voters], keep_sell=True)
        self._china([s for s in voters if (self.ballots[s] == self.A_YES) != keep])
        self.card_in_hand = False
        self.flow.do(VoteRules._extra_sale)
        if keep:
            self.log += (f"kept {ARTIFACTS[a]} ({yes}-{no})",)
            self._add_to_storage(a, sell_overflow=True)
        else:
            self.log += (f"sold {ARTIFACTS[a]} ({yes}-{no})",)
            self._sell(a)

    def _extra_sale(self) -> None:
        if self.storage_total() == 0:
            return
        self._piece_vote(PH_EXTRA)

    # ===== votes ===================================================================================
    def _open_vote(self, kind: int, *context) -> None:
        """A secret vote of the living, unsilenced players, one ballot each in seat order from the
        drawer (a Decide frame per voter: VOTES[kind]'s `legal` and `cast`, given the voter and
        `context`), then its `close(*context)` publishes and counts the ballots; at once when nobody
        may vote."""
        vote = VOTES[kind]
        voters = self.voters()
        self.voting = tuple(voters)
        self.ballots = [-1] * self.num_players
        if not voters:
            vote.close(self, *context)
            return
        flow = self.flow
        flow.do(vote.close, *context)
        legal, cast = vote.legal, vote.cast
        for s in reversed(voters):
            flow.decide(kind, s, legal, cast, s, *context)

    def _cast_ballot(self, action: int, s: int, *context) -> None:
        """A secret ballot: the raw action (yes / no, an artifact, none)."""
        self.ballots[s] = action

    def _cast_seat_ballot(self, action: int, s: int, *context) -> None:
        """A secret election ballot: the seat voted for."""
        self.ballots[s] = (s + action - self.A_SEAT) % self.num_players

    def _yes_no_options(self, mask: np.ndarray, s: int, *context) -> None:
        mask[self.A_YES] = mask[self.A_NO] = True

    def _piece_vote(self, kind: int, new: int = -1) -> None:
        """A vote over artifacts (pieces of one artifact are one option; PIECE_VOTES[kind] gives its
        options and its result); `new`: the piece just added to a full Storage, which it may not pick."""
        self._open_vote(kind, kind, new)

    def piece_vote_options(self, kind: int, new: int = -1) -> list[int]:
        """The artifacts a vote over artifacts may choose (pieces of one artifact are one option)."""
        return PIECE_VOTES[kind].options(self, new)

    def _in_storage_but_new(self, new: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.storage[a] - (a == new) > 0]

    def _in_storage(self, new: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.storage[a] > 0]

    def _in_sold(self, new: int) -> list[int]:
        return [a for a in range(NUM_ARTIFACTS) if self.sold[a] > 0]

    def _any_artifact(self, new: int) -> list[int]:
        return list(range(NUM_ARTIFACTS))  # donation: any artifact (the pile may lack it)

    def _piece_options(self, mask: np.ndarray, s: int, kind: int, new: int) -> None:
        for a in self.piece_vote_options(kind, new):
            mask[self.A_ART + a] = True
        if PIECE_VOTES[kind].may_choose_none:
            mask[self.A_PASS] = True

    def _plurality(self, counts: dict[int, int], favour: int | None = None) -> int:
        best = max(counts.values())
        tied = [k for k, v in counts.items() if v == best]
        if favour is not None and favour in tied:
            return favour
        return tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]

    def _close_piece_vote(self, kind: int, new: int) -> None:
        """Publish the ballots; the plurality's artifact meets the vote's result (a tie that includes
        *none* goes to none, the disagree rule; other ties at random)."""
        vote = PIECE_VOTES[kind]
        options = vote.options(self, new)
        NONE = -1
        counts = {a: 0 for a in options}
        if vote.may_choose_none:
            counts[NONE] = 0
        choices = []
        for s in self.voting:
            b = self.ballots[s]
            a = NONE if b == self.A_PASS else b - self.A_ART
            counts[a] += 1
            choices.append((s, 2 + self.num_players + a if a >= 0 else 2 + self.num_players + NUM_ARTIFACTS))
        self._record_vote(choices, kind=kind)
        if not options:
            return
        result = self._plurality(counts, favour=NONE if vote.may_choose_none else None)
        self._china(
            [
                s
                for s in self.voting
                if (NONE if self.ballots[s] == self.A_PASS else self.ballots[s] - self.A_ART) != result
            ]
        )
        if result != NONE:
            vote.result(self, result)

    def _sell_from_storage(self, a: int) -> None:
        self.storage[a] -= 1
        self.log += (f"sold {ARTIFACTS[a]} from Storage",)
        self._sell(a)

    def _discard_from_storage(self, a: int) -> None:
        self.storage[a] -= 1
        self.log += (f"discarded {ARTIFACTS[a]} from Storage",)
        self._discard(a)

    def _restore_from_sold(self, a: int) -> None:
        self.sold[a] -= 1
        self._add_to_storage(a)

    def _search_for(self, a: int) -> None:
        """Donation: a piece of the artifact is searched for in the draw pile and kept if found."""
        if self.vault is not None:
            self.vault.searched(a, self.hidden_pieces(), self.pile_has(a))
        if self._search_pile(a):
            self.log += (f"donation: {ARTIFACTS[a]} kept",)
            self._add_to_storage(a)

    def _record_vote(
        self, choices: list[tuple[int, int]], keep_sell: bool = False, kind: int = PH_KEEP
    ) -> None:
        """Publish a closed vote: every voter's choice (column of last_vote)."""
        self.last_vote_kind = VOTE_KIND[kind]
        lv, tally = self.last_vote, self.keep_sell
        lv[:] = 0
        for s, col in choices:
            lv[s, col] = 1.0
            if keep_sell:
                tally[s, col] += 1

    def _china(self, minority: list[int]) -> None:
        """Record who voted with the result and who against; China's Zombie Troop: the minority of a
        vote is Silenced through the next round (voting for any winner of a many-winner vote is the
        majority)."""
        record = self.majority_record
        for s in self.voting:
            record[s, 1 if s in minority else 0] += 1
        if self.china:
            for s in minority:
                su = self.silenced_until
                self.silenced_until = replaced(su, s, max(su[s], self.round + 1))

    def _start_election(self, ev: int, count: int) -> None:
        """An Election: a discussion step for every voter (option `talk`), then the vote."""
        self.flow.do(VoteRules._elect_vote, ev, count)
        if self.config.talk:
            talkers = self.voters()
            if talkers:
                self.talk_last[:] = 0
                for s in reversed(talkers):
                    self.flow.decide(PH_TALK, s, VoteRules._talk_options, VoteRules._talk, s)

    def _talk_options(self, mask: np.ndarray, s: int) -> None:
        mask[self.A_PASS] = True
        n = self.num_players
        for t in range(n):
            if t != s and self.alive[t]:
                k = (t - s) % n
                mask[self.A_ACCUSE + k] = mask[self.A_VOUCH + k] = True

    def _talk(self, action: int, s: int) -> None:
        """Cheap talk: pass, accuse or vouch for a player (public)."""
        if action != self.A_PASS:
            n = self.num_players
            if action >= self.A_VOUCH:
                t, v = (s + action - self.A_VOUCH) % n, 1.0
            else:
                t, v = (s + action - self.A_ACCUSE) % n, -1.0
            self.talk_last[s, t] = v
            self.talk_record[s, t] += v  # (a view of records: written in place)

    def _elect_vote(self, ev: int, count: int) -> None:
        self._open_vote(PH_ELECT, ev, count)

    def _elect_options(self, mask: np.ndarray, s: int, ev: int, count: int) -> None:
        n = self.num_players
        for t in range(n):
            if self.alive[t]:
                mask[self.A_SEAT + (t - s) % n] = True

    def _close_election(self, ev: int, count: int) -> None:
        living = self.living()
        counts = dict.fromkeys(living, 0)
        choices = []
        record = self.election_record
        for s in self.voting:
            t = self.ballots[s]
            counts[t] += 1
            record[s, t] += 1
            choices.append((s, 2 + t))
        self._record_vote(choices, kind=PH_ELECT)
        winners = []
        for _ in range(min(count, len(living))):
            w = self._plurality(counts)
            winners.append(w)
            del counts[w]
        self._china([s for s in self.voting if self.ballots[s] not in winners])
        self.log += (f"{EVENTS[ev].name}: elected {winners}",)
        self._effect(ev, winners)

    # ===== the public records: views of the state's `records` vector (definition.RECORDS) ==========
    last_vote = _record_view(
        "last_vote", "[seat, yes / no / seat x n / artifact x5 / none]: the last closed vote"
    )
    keep_sell = _record_view("keep_sell", "[seat, keep / sell]: artifact votes so far")
    majority_record = _record_view(
        "majority_record", "[seat, with / against the result]: closed votes so far"
    )
    election_record = _record_view("election_record", "[seat i, seat j]: election votes from i for j so far")
    talk_last = _record_view(
        "talk_last", "[seat i, seat j]: the last discussion, +1 i vouched for j, -1 accused"
    )
    talk_record = _record_view("talk_record", "[seat i, seat j]: every discussion, vouches minus accusations")

    # ===== ballots another seat cannot see, drawn for resample_hidden ===============================
    def _random_ballot(self, s: int, rng: np.random.Generator) -> int:
        """Any ballot seat s could have cast in the open vote (as the ballots store it: VOTES)."""
        vote = self.flow.decision  # (its args: the voter, then the vote's context)
        return VOTES[vote.kind].random_ballot(self, rng, *vote.args[1:])

    def _random_yes_no(self, rng: np.random.Generator, *context) -> int:
        # (the draw rng.choice([yes, no]) makes, a quarter of its cost: a resampled vote draws many)
        return self.A_NO if rng.integers(2) else self.A_YES

    def _random_living(self, rng: np.random.Generator, *context) -> int:
        living = [t for t in range(self.num_players) if self.alive[t]]
        return int(living[int(rng.integers(len(living)))])

    def _random_piece_ballot(self, rng: np.random.Generator, kind: int, new: int) -> int:
        opts = [self.A_ART + a for a in self.piece_vote_options(kind, new)]
        if PIECE_VOTES[kind].may_choose_none:
            opts.append(self.A_PASS)
        return int(opts[int(rng.integers(len(opts)))])


class PieceVote(NamedTuple):
    """A vote over artifacts: the artifacts it may pick (given the piece just added, if any), whether
    *none* is an option, and what happens to the artifact chosen."""

    options: Callable[[Artifacts, int], list[int]]
    may_choose_none: bool
    result: Callable[[Artifacts, int], None]


PIECE_VOTES: dict[int, PieceVote] = {
    PH_OVERFLOW: PieceVote(VoteRules._in_storage_but_new, False, VoteRules._sell_from_storage),
    PH_REPLACE: PieceVote(VoteRules._in_storage_but_new, False, VoteRules._discard_from_storage),
    PH_EXTRA: PieceVote(VoteRules._in_storage, True, VoteRules._sell_from_storage),
    PH_RESTORE: PieceVote(VoteRules._in_sold, False, VoteRules._restore_from_sold),
    PH_DONATION: PieceVote(VoteRules._any_artifact, False, VoteRules._search_for),
    PH_THEFT: PieceVote(VoteRules._in_storage, False, VoteRules._discard_from_storage),
}
assert set(PIECE_VOTES) == set(TYPE_VOTES)


class Vote(NamedTuple):
    """A secret vote: the ballots a voter may cast (`legal(game, mask, voter, *context)`), how a
    ballot is kept (`cast`), the close that publishes and counts them (`close(game, *context)`), and
    a ballot drawn for a voter whose ballot another seat cannot see (`random_ballot`, resample_hidden)."""

    legal: Callable[..., None]
    cast: Callable[..., None]
    close: Callable[..., None]
    random_ballot: Callable[..., int]


VOTES: dict[int, Vote] = {
    PH_KEEP: Vote(
        VoteRules._yes_no_options, VoteRules._cast_ballot, VoteRules._close_keep, VoteRules._random_yes_no
    ),
    PH_AGREE: Vote(
        VoteRules._yes_no_options,
        VoteRules._cast_ballot,
        ResourceRules._close_agree,
        VoteRules._random_yes_no,
    ),
    PH_ELECT: Vote(
        VoteRules._elect_options,
        VoteRules._cast_seat_ballot,
        VoteRules._close_election,
        VoteRules._random_living,
    ),
    **{
        kind: Vote(
            VoteRules._piece_options,
            VoteRules._cast_ballot,
            VoteRules._close_piece_vote,
            VoteRules._random_piece_ballot,
        )
        for kind in TYPE_VOTES
    },
}
assert tuple(VOTES) == VOTE_PHASES, "every vote kind has its rules, in the order last_vote_kind reads"
