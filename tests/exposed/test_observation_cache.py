"""What the observation keeps from one call to the next (the observer's knowledge, written again only
when `touch`'s stamp or the observer changes; the undoable swaps, once per position) never differs
from writing everything afresh: a clone (which starts with no observation source) after `touch`."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import new_game, set_identity


def _fresh(g):
    c = g.clone()
    c.touch()  # nothing kept: knowledge and undoable swaps computed again
    return c


@pytest.mark.parametrize("n", [3, 6])
def test_kept_pieces_equal_fresh_ones_along_random_games(n):
    for seed in range(3):
        g = new_game(n, seed)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            mover = g.current_player()
            other = int(rng.integers(n))
            for p in (mover, other, mover):  # the same observer twice: the kept knowledge is used
                assert np.array_equal(g.observation(p), _fresh(g).observation(p))
            assert np.array_equal(g.legal_action_mask(), _fresh(g).legal_action_mask())
            assert np.array_equal(g.state_tensor(), _fresh(g).state_tensor())
            legal = g.legal_actions()
            g.apply_action(int(legal[rng.integers(len(legal))]))
        for p in range(n):
            assert np.array_equal(g.observation(p), _fresh(g).observation(p))


def test_touch_after_a_hand_edit_rewrites_the_knowledge():
    g = new_game(4, 0)
    p = g.current_player()
    q = (p + 1) % 4
    before = g.observation(p)
    g.knows[p, q] = True  # p is shown q's card, by hand
    g.known_by = (*g.known_by[:q], g.known_by[q] | 1 << p, *g.known_by[q + 1 :])
    g.touch()  # (without it, p's observation would still show q's card unknown)
    after = g.observation(p)
    assert not np.array_equal(after, before)
    assert np.array_equal(after, _fresh(g).observation(p))
    set_identity(g, q, "Mayor")  # the helpers touch the game themselves
    assert np.array_equal(g.observation(p), _fresh(g).observation(p))


@pytest.mark.parametrize("n", [2, 6])
def test_each_seats_kept_knowledge_equals_fresh_when_every_seat_looks_every_step(n):
    """Each seat's knowledge is kept from its last observation and copied back while `touch`'s stamp
    has not moved: seats looking in turn, every step, see what a fresh copy writes."""
    g = new_game(n, 5)
    rng = np.random.default_rng(5)
    while not g.is_terminal():
        for p in range(n):
            assert np.array_equal(g.observation(p), _fresh(g).observation(p))
        legal = g.legal_actions()
        g.apply_action(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("rule", ["discard", "wallet"])
@pytest.mark.parametrize("n", [2, 6])
def test_a_clean_up_that_changed_nothing_needs_no_end_check(n, rule):
    """The clean-up checks the end of the game again only when it changed the table (every other
    step but a swap or a pass is checked right after it): a copy whose clean-up checks every time
    (`touch`) ends the same games the same way, with the same public deductions and observations.
    (With the printed rule a new Mark may get a Wallet: a 7-Wallet deduction the check must make.)"""
    for seed in range(3):
        g = new_game(n, seed, empty_new_mark=rule)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            action = int(legal[rng.integers(len(legal))])
            checked = g.clone()
            checked.touch()  # its next clean-up checks the end, whatever it changes
            g.apply_action(action)
            checked.apply_action(action)
            assert (g.over, g.winners) == (checked.over, checked.winners)
            assert np.array_equal(g.public_candidates, checked.public_candidates)
            assert np.array_equal(g.legal_action_mask(), checked.legal_action_mask())
            p = int(rng.integers(n))
            assert np.array_equal(g.observation(p), checked.observation(p))
