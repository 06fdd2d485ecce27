"""What a search agent builds on: `resample_hidden(p, rng)` depends on p's information and rng alone,
and `clone()` is an independent copy.

Each resampling test builds two tables that seat p cannot tell apart (the same public table and the
same private knowledge of p, different hidden facts) and asks for a same-seed sample of each: the two
samples must be the same state and must play the same future.
"""

from __future__ import annotations

import copy

import numpy as np

from envs.artifacts import data as D
from envs.artifacts.rules import Artifacts
from envs.artifacts.vault import Vault
from envs.core import Layout
from envs.core.flow import TurnFlow

from .util import SEVEN, TEN_FULL, act, pass_window, put, table, vote_all


def assert_same_future(a: Artifacts, b: Artifacts, seed: int, steps: int = 300) -> None:
    """The same random actions on a and b: the full state and every seat's observation stay equal."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        np.testing.assert_array_equal(a.state_tensor(), b.state_tensor())
        for p in range(a.num_players):
            np.testing.assert_array_equal(a.observation(p), b.observation(p))
        assert a.is_terminal() == b.is_terminal()
        if a.is_terminal():
            return
        legal = np.flatnonzero(a.legal_action_mask())
        np.testing.assert_array_equal(legal, np.flatnonzero(b.legal_action_mask()))
        action = int(legal[rng.integers(len(legal))])
        a.apply_action(action)
        b.apply_action(action)


def assert_same_samples(a: Artifacts, b: Artifacts, p: int, seeds=range(6)) -> None:
    """p sees the same in a and b; every same-seed sample of the two is the same state and future."""
    np.testing.assert_array_equal(a.observation(p), b.observation(p))
    for seed in seeds:
        sa = a.resample_hidden(p, np.random.default_rng(seed))
        sb = b.resample_hidden(p, np.random.default_rng(seed))
        assert list(sa.roles) == list(sb.roles) and sa.pile == sb.pile, f"seed {seed}"
        assert_same_future(sa, sb, seed)


def relabel_pieces(g: Artifacts, rng: np.random.Generator) -> None:
    """Swap card ids within each artifact in the draw pile (pieces of one artifact look the same)."""
    for a in range(D.NUM_ARTIFACTS):
        at = [i for i, c in enumerate(g.pile) if c // D.PIECES_PER_ARTIFACT == a and c < D.NUM_ARTIFACT_CARDS]
        ids = [c for c in range(a * 5, a * 5 + 5) if c not in g.pile and c != g.card]
        ids = list(rng.permutation(ids + [g.pile[i] for i in at]))[: len(at)]
        for i, c in zip(at, ids):
            g.pile[i] = int(c)
    g.check_invariants()


def test_same_sample_whatever_the_unseen_deal_and_pile_order():
    """The Shaman (seat 1) knows no other role: two deals that differ in the Curator's and the Mafia
    Boss's seats, with different draw piles, give the same sample."""
    other = list(SEVEN)
    other[2], other[5] = other[5], other[2]
    a = table(7, SEVEN, seed=1, top=[1, "Quiet Day"])
    b = table(7, other, seed=2, top=[1, "Quiet Day"])
    relabel_pieces(b, np.random.default_rng(3))
    assert a.card_in_hand and a.pile != b.pile
    assert_same_samples(a, b, 1)


def test_same_sample_under_a_public_clear_and_a_private_check():
    """Constraints on the deal (seat 4 publicly cleared; the Detective saw seat 9 as an Academic) leave
    several deals; which one is true does not change the sample."""
    roles_a = list(TEN_FULL)  # seat 9 the Forger, seat 5 an Academic
    roles_b = list(TEN_FULL)
    roles_b[1], roles_b[7] = roles_b[7], roles_b[1]  # the Shaman and the Mafia Boss change seats
    roles_b[5], roles_b[9] = roles_b[9], roles_b[5]  # seat 9 a true Academic, the Forger on seat 5
    games = []
    for roles, seed in ((roles_a, 1), (roles_b, 2)):
        g = table(10, roles, preference="full", top=["Quiet Day"], start_round=2, first_seat=3, seed=seed)
        act(g, g.A_USE)
        act(g, g.A_SEAT + (9 - 3) % 10)  # the Detective (seat 3) checks seat 9: "Academic" both times
        put(g, "cleared", 4, True)
        g.touch()
        games.append(g)
    assert_same_samples(*games, 3)


def test_same_sample_whoever_another_seat_checked_privately():
    """Only the Detective learns whom they checked: a plain Academic (seat 4) cannot tell a check of
    seat 9 from a check of seat 5, so its samples are the same."""
    games = []
    for target in (9, 5):
        g = table(10, TEN_FULL, preference="full", top=["Quiet Day"], start_round=2, first_seat=3, seed=1)
        act(g, g.A_USE)
        act(g, g.A_SEAT + (target - 3) % 10)
        games.append(g)
    assert_same_samples(*games, 4)


def test_spain_same_sample_whatever_the_face_down_piles_hold():
    """Under Spain the public knows the sizes of Sold and Discard (and what the history tells): two
    tables with different face-down contents and the same public knowledge give the same sample."""
    a = table(
        7, SEVEN, site="spain", sold=(2, 1, 0, 0, 0), discard=(0, 0, 1, 0, 0), top=[3, "Quiet Day"], seed=1
    )
    b = table(
        7, SEVEN, site="spain", sold=(0, 1, 1, 0, 1), discard=(0, 0, 0, 1, 0), top=[3, "Quiet Day"], seed=2
    )
    assert a.vault.configs == b.vault.configs
    assert_same_samples(a, b, 0)


def test_a_sample_keeps_its_own_chance_apart_from_the_game():
    """Future chance is drawn from the rng given to resample_hidden, never from the game's own."""
    a = table(7, SEVEN, seed=1, top=["Scapegoat"])
    b = table(7, SEVEN, seed=2, top=["Scapegoat"])
    b.pile = list(a.pile)  # the same table; only the games' own rngs differ
    assert_same_samples(a, b, 0)


# ----- clone ---------------------------------------------------------------------------------------
def positions(count: int, **cfg) -> list[Artifacts]:
    """Positions along seeded random games (votes open, windows, ends of rounds)."""
    rng, out, seed = np.random.default_rng(0), [], 0
    while len(out) < count:
        g = Artifacts(rng=np.random.default_rng(seed), **cfg)
        seed += 1
        while not g.is_terminal() and len(out) < count:
            if rng.random() < 0.05:
                out.append(g)
                g = g.clone()
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
    return out


def assert_unchanged(g: Artifacts, before: Artifacts) -> None:
    """Every field of g's state equals the snapshot's (caches aside)."""
    for name, value in before.__dict__.items():
        if name.startswith("_"):
            continue
        now = g.__dict__[name]
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(now, value, err_msg=name)
        elif isinstance(value, Layout):
            assert now.rows() == value.rows(), name
        elif isinstance(value, Vault):
            assert now.configs == value.configs, name
        elif isinstance(value, TurnFlow):
            assert now.frames == value.frames, name
        elif isinstance(value, np.random.Generator):
            assert now.bit_generator.state == value.bit_generator.state, name
        else:
            assert now == value, name


def play_out(g: Artifacts, seed: int) -> None:
    rng = np.random.default_rng(seed)
    while not g.is_terminal():
        legal = np.flatnonzero(g.legal_action_mask())
        g.apply_action(int(legal[rng.integers(len(legal))]))
        g.observation(g.current_player() if not g.is_terminal() else 0)


def test_acting_on_a_clone_leaves_the_original_unchanged_and_the_other_way_round():
    for cfg in (
        {"num_players": 7},
        {"num_players": 10, "site": "spain"},
        {"num_players": 10, "site": "greece"},
    ):
        for i, g in enumerate(positions(12, **cfg)):
            g.observation(0)
            before = copy.deepcopy(g)
            c = g.clone()
            play_out(c, i)
            assert_unchanged(g, before)
            np.testing.assert_array_equal(g.state_tensor(), before.state_tensor())
            c = g.clone()
            c_before = copy.deepcopy(c)
            play_out(g, i)
            assert_unchanged(c, c_before)


def test_a_clone_plays_the_same_future_and_shares_only_the_fixed_definition():
    for i, g in enumerate(positions(10, num_players=7, site="spain")):
        c = g.clone()
        assert c.rng is not g.rng and c.rng.bit_generator.state == g.rng.bit_generator.state
        shared = {
            name
            for name, value in g.__dict__.items()
            if isinstance(value, (list, dict, np.ndarray, Vault, np.random.Generator))
            and c.__dict__.get(name) is value
        }
        # what a configuration fixes (the definition: layouts, tables, action offsets) is shared; the
        # read-only mask cache too
        assert shared <= g._fixed | {"_mask_cache"}, shared
        assert "blocks" in shared and "_observer_index" in shared
        assert_same_future(g.clone(), c, i)


def test_clone_of_a_vote_keeps_the_secret_ballots():
    g = table(7, SEVEN, top=[1])
    pass_window(g)
    act(g, g.A_YES)
    c = g.clone()
    assert c.ballots == g.ballots and c.phase == D.PH_KEEP
    vote_all(c, c.A_NO)
    assert g.phase == D.PH_KEEP and sum(b >= 0 for b in g.ballots) == 1 and not any(g.keep_sell.ravel())
