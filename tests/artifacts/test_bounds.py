"""The bounds the rules give (data.py): game length, observation scales, the game type."""

from __future__ import annotations

import numpy as np
import pytest

from envs.artifacts import data as D
from envs.artifacts.rules import Artifacts
from envs.artifacts_v0 import SPEC
from envs.core.registry import config_id


def play(g: Artifacts, pick: str, rng) -> None:
    """To the end with random, first or last legal actions, checking every count against its bound."""
    while not g.is_terminal():
        legal = np.flatnonzero(g.legal_action_mask())
        a = legal[rng.integers(len(legal))] if pick == "random" else legal[0 if pick == "first" else -1]
        g.apply_action(int(a))
        assert g.round <= D.MAX_ROUNDS
        assert g.keep_sell.max() <= D.MAX_ARTIFACT_DRAWS and g.majority_record.max() <= D.VOTES_PER_SEAT
        assert g.election_record.max() <= D.MAX_ELECTIONS and np.abs(g.talk_record).max() <= D.MAX_ELECTIONS
        assert max(g.resources_bought) <= D.MAX_PURCHASES
    assert g.num_decisions <= D.decision_bound(g.num_players)


@pytest.mark.parametrize("cfg", SPEC.test_configs, ids=[config_id(c) for c in SPEC.test_configs])
def test_long_games_stay_inside_the_rule_bounds(cfg):
    rng = np.random.default_rng(2)
    for seed in range(6):
        for pick in ("random", "first", "last"):
            play(Artifacts(rng=np.random.default_rng(seed), **cfg), pick, rng)


def test_one_default_length_above_the_bound_of_every_player_count():
    assert D.decision_bound(D.MAX_PLAYERS) == max(D.decision_bound(n) for n in range(D.MIN_PLAYERS, 11))
    assert D.decision_bound(D.MAX_PLAYERS) < D.MAX_DECISIONS
    for cfg in SPEC.test_configs:
        assert Artifacts(rng=np.random.default_rng(0), **cfg).game_type().max_decisions == D.MAX_DECISIONS


def test_rule_bounds_are_derived_from_the_cards():
    assert D.MAX_ROUNDS == 48 and D.MAX_ARTIFACT_DRAWS == 23
    assert D.MAX_ELECTIONS == 12 and D.MAX_PURCHASES == 6 and D.DELAYABLE_EVENTS == 11


@pytest.mark.parametrize("n", range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1))
def test_game_type_secret_teams_general_sum(n):
    """Winners +1, losers -1; the sides differ in size, so the sum depends on who wins."""
    looters = sum(D.ROLE_SIDE[r] == D.LOOTERS for r in D.role_chart(n, "standard"))
    g = Artifacts(rng=np.random.default_rng(0), num_players=n)
    kind = g.game_type()
    assert (kind.utility, kind.teams, kind.min_return, kind.max_return) == (
        "general_sum",
        "secret",
        -1.0,
        1.0,
    )
    assert looters != n - looters
    for winner, total in ((D.ACADEMICS, n - 2 * looters), (D.LOOTERS, 2 * looters - n)):
        g.winner = winner
        assert g.returns().sum() == total
        assert all(r == (1.0 if t == winner else -1.0) for r, t in zip(g.returns(), g.teams()))
