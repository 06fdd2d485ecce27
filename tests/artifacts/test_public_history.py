"""Resampled states agree with the whole public history, not only with the observer's observation.

Random games record every public fact as it happens (each card drawn, each Reveal with its role, each
death, each public clear, each closed vote with every voter's choice) and each seat's private facts
(own role, awareness at set-up, private side checks, own secret ballot); every `resample_hidden(p)`
along the way must agree with all of them, and with the teams the rules revealed to p.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.artifacts import data as D
from envs.artifacts import rules as R
from envs.artifacts_v0 import SPEC
from envs.core.registry import config_id


class History:
    """The public record of one game, kept by watching it as the table does."""

    def __init__(self, g: R.Artifacts):
        n = g.num_players
        self.cards: list[int] = []  # every card drawn, in order
        self.roles_seen: dict[int, int] = {}  # seat -> role, from Reveals (deaths included)
        self.dead: set[int] = set()
        self.clears: set[int] = set()
        self.own = [int(r) for r in g.roles]  # each seat's own role, known to that seat only
        self.aware = [
            {s: int(g.roles[s]) for s in range(n) if s != p and g.knows_role(p, s)} for p in range(n)
        ]
        self.checks: list[dict[int, int]] = [{} for _ in range(n)]  # seat -> apparent side learnt
        self._peeks = 0
        self._round = 0
        self.watch(g)

    def watch(self, g: R.Artifacts) -> None:
        if g.round != self._round:
            self._round = g.round
            self.cards.append(g.card)
        for s in range(g.num_players):
            if g.revealed[s] and s not in self.roles_seen:
                self.roles_seen[s] = int(g.roles[s])
            if not g.alive[s]:
                self.dead.add(s)
            if g.cleared[s]:
                self.clears.add(s)
        for who, whom in g.peeks[self._peeks :]:
            self.checks[who][whom] = D.APPARENT_SIDE[int(g.roles[whom])]
        self._peeks = len(g.peeks)

    def check(self, sample: R.Artifacts, original: R.Artifacts, p: int) -> None:
        n = sample.num_players
        # p's own role and team, everything p learnt privately
        assert sample.roles[p] == self.own[p] and sample.teams()[p] == original.teams()[p]
        for s, role in self.aware[p].items():
            assert sample.roles[s] == role, f"seat {s}: awareness told player {p} {D.ROLE_NAMES[role]}"
            assert sample.teams()[s] == D.ROLE_SIDE[role]
        for s, side in self.checks[p].items():
            assert D.APPARENT_SIDE[int(sample.roles[s])] == side, f"player {p}'s side check of seat {s}"
        if original.phase >= 0 and D.IS_VOTE[original.phase] and original.ballots[p] >= 0:
            assert sample.ballots[p] == original.ballots[p], "player's own secret ballot changed"
        # public facts: Reveals, deaths, clears
        for s, role in self.roles_seen.items():
            assert sample.roles[s] == role and sample.teams()[s] == D.ROLE_SIDE[role]
        for s in self.clears:
            assert sample.teams()[s] == D.ACADEMICS, f"seat {s} was publicly cleared"
        assert {s for s in range(n) if not sample.alive[s]} == self.dead
        # the cards: every drawn event is out of the pile, and (outside Spain) the pile holds exactly the
        # pieces that are nowhere on the table
        for c in self.cards:
            if c >= D.NUM_ARTIFACT_CARDS:
                assert c not in sample.pile, f"{D.EVENTS[c - D.NUM_ARTIFACT_CARDS].name} was drawn"
        events_left = sorted(c for c in original.pile if c >= D.NUM_ARTIFACT_CARDS)
        assert sorted(c for c in sample.pile if c >= D.NUM_ARTIFACT_CARDS) == events_left
        if not original.spain:
            assert (sample.sold, sample.discard) == (original.sold, original.discard)
        else:  # face down: sizes public, contents among those the whole history allows
            assert (sum(sample.sold), sum(sample.discard)) == (sum(original.sold), sum(original.discard))
            assert tuple(sample.sold + sample.discard) in original.vault  # see test_hidden.py: test_spain_*
        held = [0] * D.NUM_ARTIFACTS
        if original.card_in_hand:
            held[original.card // D.PIECES_PER_ARTIFACT] = 1
        in_pile = [sum(1 for c in sample.pile if c < D.NUM_ARTIFACT_CARDS and c // 5 == a) for a in range(5)]
        hidden = [5 - sample.storage[a] - held[a] for a in range(5)]
        assert [in_pile[a] + sample.sold[a] + sample.discard[a] for a in range(5)] == hidden
        assert sum(in_pile) == sum(1 for c in original.pile if c < D.NUM_ARTIFACT_CARDS)
        # every closed vote and discussion: the last in full, the running records of all of them
        for name in ("last_vote", "keep_sell", "majority_record", "election_record", "talk_record"):
            assert np.array_equal(getattr(sample, name), getattr(original, name)), name
        # what the public deduces from the game going on: a Looter is hidden, the Possessed lives
        if not original.is_terminal():
            assert not sample.all_looters_revealed() or sample.phase == D.PH_TARGET
            assert not sample.possessed_dead()


@pytest.mark.parametrize("cfg", SPEC.test_configs, ids=[config_id(c) for c in SPEC.test_configs])
def test_resampled_states_agree_with_the_whole_public_history(cfg):
    rng = np.random.default_rng(17)
    for game_index in range(4):
        g = R.Artifacts(rng=np.random.default_rng(50 + game_index), **cfg)
        history = History(g)
        while not g.is_terminal():
            if rng.random() < 0.1:
                for p in range(g.num_players):
                    sample = g.resample_hidden(p, rng)
                    history.check(sample, g, p)
                    np.testing.assert_array_equal(sample.observation(p), g.observation(p))
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
            history.watch(g)
