"""The bounds the rules give (data.py): game length, scores, observation scales, the game type."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.registry import config_id
from envs.exposaurus import data as D
from envs.exposaurus.rules import Exposaurus
from envs.exposaurus_v0 import SPEC


@pytest.mark.parametrize("cfg", SPEC.test_configs, ids=[config_id(c) for c in SPEC.test_configs])
def test_long_games_stay_inside_the_rule_bounds(cfg):
    """Random, "always the first legal action" and "always the last": decisions, scores, yellow gems
    and discoveries stay within the bounds the rules give."""
    rng = np.random.default_rng(1)
    n = cfg["num_players"]
    for seed in range(10):
        for pick in ("random", "first", "last"):
            g = Exposaurus(rng=np.random.default_rng(seed), **cfg)
            while not g.is_terminal():
                legal = np.flatnonzero(g.legal_action_mask())
                a = (
                    legal[rng.integers(len(legal))]
                    if pick == "random"
                    else legal[0 if pick == "first" else -1]
                )
                g.apply_action(int(a))
                assert g.yellow <= D.MAX_GEM_CHOICES and g.discoveries <= D.MAX_DISCOVERIES
                assert all(0 <= s <= D.max_score(n) for s in g.scores())
            assert g.num_decisions <= D.decision_bound(n)


def test_one_default_length_above_the_bound_of_every_player_count():
    assert max(D.decision_bound(n) for n in (2, 3, 4)) == D.decision_bound(4) < D.MAX_DECISIONS
    for cfg in SPEC.test_configs:
        assert Exposaurus(rng=np.random.default_rng(0), **cfg).game_type().max_decisions == D.MAX_DECISIONS


def test_max_score_from_the_scoring_rules():
    # 12 gems of each colour on groups of at most 16 tiles, 10 scientists, the disc, the paleontologist
    assert [D.max_score(n) for n in (2, 3, 4)] == [6 * 16 + 15, 9 * 16 + 15, 12 * 16 + 15]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_game_type_rank_is_constant_sum_and_margin_zero_sum(n):
    rank = Exposaurus(rng=np.random.default_rng(0), num_players=n).game_type()
    assert (rank.utility, rank.teams, rank.min_return, rank.max_return) == (
        "zero_sum" if n == 2 else "constant_sum",
        "none",
        -1.0,
        1.0,
    )
    margin = Exposaurus(rng=np.random.default_rng(0), num_players=n, reward="margin").game_type()
    assert (margin.utility, margin.min_return, margin.max_return) == (
        "zero_sum",
        -D.max_score(n),
        D.max_score(n),
    )
    # every way a rank game can end pays 2 - n in total: k tied winners 2/k - 1 each, the others -1
    g = Exposaurus(rng=np.random.default_rng(0), num_players=n)
    g.flow.clear()  # the game is over
    for k in range(1, n + 1):
        g.winners = list(range(k))
        assert g.returns().sum() == pytest.approx(2 - n)
