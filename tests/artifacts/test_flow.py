"""The turn flow, the handler tables and the observation bookkeeping of Artifacts."""

from __future__ import annotations

import numpy as np
import pytest

from envs.artifacts import data as D
from envs.artifacts import rules as R
from envs.artifacts.rules import Artifacts
from envs.core.flow import Decide, Do

from .util import SEVEN, act, kill, pass_window, table


def test_every_data_row_names_a_handler():
    assert set(R.EVENT_EFFECTS) == set(D.EFFECTS)
    assert [R.EVENT_EFFECTS[e.effect] for e in D.EVENTS] == list(R.EVENT_EFFECT)
    for role, row in enumerate(D.ROLES):
        assert (R.ROLE_ABILITY[role] is not None) == D.ROLE_ACTIVE[role] == (row.ability == "active")
    assert set(R.RESOURCE_EFFECTS) == {r.name for r in D.RESOURCES}
    assert set(R.PIECE_VOTES) == set(R.TYPE_VOTES)


def test_a_vote_is_one_decision_per_voter_over_the_step_that_closes_it():
    g = table(7, SEVEN, top=[1])
    pass_window(g)
    voters = g.voters()
    frames = g.flow.frames
    ballots = frames[-len(voters) :]
    assert [f.player for f in reversed(ballots)] == voters  # in seat order from the drawer
    assert all(type(f) is Decide and f.kind == R.PH_KEEP for f in ballots)
    close = frames[-len(voters) - 1]
    assert type(close) is Do and close.run is Artifacts._close_keep
    before = [g.observation(p) for p in range(7)]
    act(g, g.A_YES)  # a secret ballot: nobody's observation changes but for who acts
    for p in range(7):
        changed = g.observation_layout.split(g.observation(p) != before[p])
        assert {name for name, diff in changed.items() if diff.any()} <= {"to_act"}


def test_a_win_clears_what_is_left_to_do():
    g = table(7, SEVEN, top=["Quiet Day"])
    kill(g, 0)  # the Possessed dies
    assert g.winner == D.LOOTERS and len(g.flow) == 0 and g.current_player() == -1 and g.phase == -1


def fresh_observations(g: Artifacts) -> list[np.ndarray]:
    """Every seat's observation built from scratch (no cached public table or knowledge)."""
    c = g.clone()
    c._source, c._pub_dirty, c._know_key = None, True, None
    return [c.observation(p) for p in range(g.num_players)]


@pytest.mark.parametrize(
    "cfg", [dict(num_players=5), dict(num_players=7, site="spain"), dict(num_players=10, site="china")]
)
def test_the_cached_observation_is_always_a_fresh_one(cfg):
    """The public table is rebuilt only after steps and choices that may change it (QUIET_* aside):
    along random games every observation equals one built from nothing."""
    rng = np.random.default_rng(0)
    for seed in range(4):
        g = Artifacts(rng=np.random.default_rng(seed), **cfg)
        while not g.is_terminal():
            got = [g.observation(p) for p in range(g.num_players)]
            for p, want in enumerate(fresh_observations(g)):
                np.testing.assert_array_equal(got[p], want)
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
