"""Game type, maximum length and observation bounds: what generic tools read from the declarations."""

from __future__ import annotations

import numpy as np
import pytest

from envs.exposed.data import COPS_MAX, GUESTS
from envs.exposed.rules import MAX_DECISIONS, Exposed, ExposedConfig
from envs.exposed_v0 import SPEC

from .helpers import at, cell_of, do, plain, put, rebalance, seat_action, set_identity, start, steal_mark

CONFIG_IDS = ["-".join(f"{k}={v}" for k, v in c.items()) for c in SPEC.test_configs]


def test_a_two_player_game_can_end_in_a_shared_win_so_returns_are_general_sum():
    """The Paramedic brings both players' tiles (one row) to 7 at once with equal totals: both win,
    +1 each. Returns then add up to 2, after a single winner to 0 (2 players) or 2 - n: general-sum."""
    g, p = start(n=2, me="Mayor")
    q = 1 - p
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 1, 3))
    g.wallets_on[cell_of(g, "Mayor")] = 5
    g.wallets_on[cell_of(g, "Lawyer")] = 6
    rebalance(g)
    steal_mark(g, "Paramedic")  # stash 1 + tile 5 = 6: the game goes on
    assert not g.is_terminal()
    do(g, g.OFF_LINE + 1)  # row 1: +1 on both Guests
    assert g.is_terminal() and sorted(g.winners) == [0, 1]
    assert g.returns().tolist() == [1.0, 1.0]
    kind = g.game_type()
    assert (kind.utility, kind.teams, kind.min_return, kind.max_return) == ("general_sum", "none", -1.0, 1.0)


@pytest.mark.parametrize("config", SPEC.test_configs, ids=CONFIG_IDS)
def test_game_type_declares_the_return_bounds_and_one_maximum_length(config):
    g = Exposed(rng=np.random.default_rng(0), **config)
    kind = g.game_type()
    assert kind.max_decisions == MAX_DECISIONS == ExposedConfig().max_decisions
    assert g.teams() == list(range(g.num_players))
    rng = np.random.default_rng(1)
    for seed in range(10):
        g = Exposed(rng=np.random.default_rng(seed), **config)
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply_action(int(legal[rng.integers(len(legal))]))
        r = g.returns()
        assert kind.min_return <= r.min() and r.max() <= kind.max_return and set(r) <= {-1.0, 1.0}


@pytest.mark.parametrize("config", SPEC.test_configs, ids=CONFIG_IDS)
def test_always_the_first_or_last_legal_action_ends_or_is_cut_at_the_maximum_length(config):
    for pick in (0, -1):
        g = Exposed(rng=np.random.default_rng(0), **config)
        while not (g.is_terminal() or g.is_truncated()):
            g.apply_action(int(np.flatnonzero(g.legal_action_mask())[pick]))
        assert g.is_terminal() or g.num_decisions == MAX_DECISIONS
        assert g.is_truncated() or pick == -1  # "always the first legal action" never ends a game
    g = Exposed(rng=np.random.default_rng(0), **config, max_decisions=40)  # the option
    while not (g.is_terminal() or g.is_truncated()):
        g.apply_action(int(np.flatnonzero(g.legal_action_mask())[0]))
    assert g.is_truncated() and g.num_decisions == 40 and g.game_type().max_decisions == 40


@pytest.mark.parametrize("config", SPEC.test_configs, ids=CONFIG_IDS)
def test_every_observation_piece_declares_bounds_and_axes_and_stays_inside(config):
    g = Exposed(rng=np.random.default_rng(0), **config)
    layout = g.observation_layout
    for piece in layout:
        assert np.isfinite(piece.low) and np.isfinite(piece.high) and (piece.low, piece.high) == (0.0, 1.0)
        assert len(piece.axes) == len(piece.shape)
    kinds = {p.name: p.axes for p in layout}
    assert kinds["grid"] == ("row", "col", "tile") and kinds["candidates"] == ("seat", "row", "col")
    low, high = layout.bounds()
    rng = np.random.default_rng(2)
    for seed in range(6):
        g = Exposed(rng=np.random.default_rng(seed), **config)
        while True:
            for p in range(g.num_players):
                obs = g.observation(p)
                assert ((obs >= low) & (obs <= high)).all(), f"seat {p}: outside the declared bounds"
            if g.is_terminal():
                break
            legal = g.legal_actions()
            g.apply_action(int(legal[rng.integers(len(legal))]))


def test_counts_stay_inside_the_bounds_however_many_wallets():
    """Wallets are unlimited (FAQ): a count is shown as w / (w + 7), below 1 for any w."""
    g, p = start(n=6, me="Mayor")
    plain(g, at(g, 5, 5))
    g.wallets_on[at(g, 5, 5)] = 10_000
    g.lost_found = 10_000
    g.stash[p] = 5
    g.wallets_on[cell_of(g, "Mayor")] = 0
    rebalance(g)
    steal_mark(g, "Cop")
    do(g, seat_action(g, p, (p + 1) % 6))  # a Cop under the next player's card
    obs = g.observation_dict(p)
    assert 0.99 < obs["tile_wallets"][5, 5] < 1.0 and 0.99 < obs["counts"][1] < 1.0
    assert obs["stashes"][0] == np.float32(6 / 13)  # 5 + the stolen Wallet
    assert obs["tile_wallets"].min() >= 0.0 and obs["counts"][0] == np.float32(len(g.deck) / 36)
    cops = obs["kept_items"][:, 2]
    assert cops.max() == np.float32(1 / COPS_MAX)
    assert [x.item for x in GUESTS].count("cop") == 1  # one Cop card: a Mark once, by the Actor once more
