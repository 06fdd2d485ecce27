"""The rules of Exposed and the FAQ answers: each test sets up a situation and asserts the outcome."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import ConfigError, IllegalActionError
from envs.exposed.data import GUESTS, guests_for
from envs.exposed.rules import ACTION, MOVE1, MOVE2, PILOT, SNITCH_FLIP

from .helpers import (
    at,
    cell_of,
    do,
    flat_obs,
    gid,
    make_mark,
    new_game,
    put,
    seat_action,
    set_identity,
    start,
    steal_mark,
)


# ----------------------------------------------------------------------------- set-up
@pytest.mark.parametrize("n,side,marks", [(2, 4, 2), (3, 5, 3), (4, 5, 3), (5, 6, 4), (6, 6, 4)])
def test_setup_grid_marks_and_identities(n, side, marks):
    g = new_game(n, seed=n)
    assert g.side == side and g.num_tiles == side * side and len(g.marks) == marks
    used = set(guests_for(n))
    assert set(g.guest_on.tolist()) == used
    if n == 2:
        assert all(GUESTS[x].marker == "" for x in used)
    if n <= 4:
        assert all(GUESTS[x].marker != "5+" for x in used)
    assert len(set(g.ident)) == n and not set(g.ident) & set(g.marks)
    assert len(g.deck) == side * side - n - marks
    assert not g.tile_exposed.any() and g.stash == [0] * n


def test_setup_wallets_one_each_two_on_corners():
    g = new_game(5, seed=1)
    corners = [0, 5, 30, 35]
    assert (g.wallets_on[corners] == 2).all()
    assert (np.delete(g.wallets_on, corners) == 1).all()


def test_first_player_is_random():
    assert len({new_game(4, seed=s).current_player() for s in range(30)}) > 1


def test_bad_config_is_refused():
    with pytest.raises(ConfigError, match="num_players"):
        new_game(7)
    with pytest.raises(ConfigError, match="exposure_reward"):
        new_game(4, exposure_reward=3)
    with pytest.raises(ConfigError, match="empty_new_mark"):
        new_game(4, empty_new_mark="keep")


# ----------------------------------------------------------------------------- Move
def test_move_is_two_swaps_of_adjacent_tiles():
    g, p = start(n=4)
    a, b = g.edges[0]
    ga, gb = int(g.guest_on[a]), int(g.guest_on[b])
    do(g, g.OFF_SWAP + 0)
    assert g.decision_kind == MOVE2 and g.current_player() == p
    assert g.guest_on[a] == gb and g.guest_on[b] == ga
    do(g, g.OFF_SWAP + 10)
    assert g.current_player() == (p + 1) % 4


def test_faq_no_player_may_undo_either_swap_until_the_mover_plays_again():
    g, p = start(n=3)
    do(g, g.OFF_SWAP + 0)
    do(g, g.OFF_SWAP + 7)
    q = g.current_player()
    mask = g.legal_action_mask()
    assert not mask[0] and not mask[7]
    # moving one of those tiles another way is allowed (edge 1 shares a cell with edge 0)
    assert mask[1]
    do(g, g.OFF_SWAP + 1)  # edge 0 no longer undoes anything once its tile moved
    assert g.legal_action_mask()[0]
    do(g, g.OFF_SWAP + 3)
    r = g.current_player()
    assert not g.legal_action_mask()[7]  # the third player is still bound by p's Move
    steal = np.flatnonzero(g.legal_action_mask()[g.OFF_STEAL : g.OFF_STEAL + 25])
    do(g, g.OFF_STEAL + int(steal[0]))
    if g.current_player() == r:
        do(g, g.A_PASS)
    assert g.current_player() == p
    assert g.latest_move[p] == ()  # p's new turn lifts the restriction
    assert q != p


def test_players_together_may_undo_a_move():
    g, p = start(n=3)
    do(g, g.OFF_SWAP + 0)
    do(g, g.OFF_SWAP + 10)
    # the next player swaps one cell of edge 0 elsewhere, so nobody undoes p's swap exactly
    assert not g.legal_action_mask()[0]


# ----------------------------------------------------------------------------- Steal
def test_steal_only_from_surrounding_tiles_or_yourself_while_unexposed():
    g, p = start(n=4)
    m = g.legal_action_mask()[g.OFF_STEAL : g.OFF_STEAL + 25]
    own = cell_of(g, "Mayor")
    want = set(np.flatnonzero(g.surround[own] & (g.wallets_on > 0))) | {own}
    assert set(np.flatnonzero(m)) == want
    do(g, g.OFF_STEAL + own)  # FAQ: you can steal from your own Guest
    assert g.stash[p] == 1 and g.wallets_on[own] == 0


def test_an_illegal_steal_says_which_steal_condition_it_fails():
    """One Steal rule feeds the mask of the Steal action, the Mechanic's extra Steal and the reason."""
    g, p = start(n=4)  # p's Mayor at (1, 1)
    empty = at(g, 0, 1)
    g.lost_found += int(g.wallets_on[empty])
    g.wallets_on[empty] = 0
    g._mask_cache = None
    with pytest.raises(IllegalActionError, match="no Wallet to steal"):
        do(g, g.OFF_STEAL + empty)
    with pytest.raises(IllegalActionError, match="surrounding your Guest, or your own while unexposed"):
        do(g, g.OFF_STEAL + at(g, 3, 3))
    steal_mark(g, "Mechanic")  # the extra Steal: the same rule, the same reasons
    with pytest.raises(IllegalActionError, match="no Wallet to steal"):
        do(g, g.OFF_STEAL + empty)
    with pytest.raises(IllegalActionError, match="surrounding your Guest"):
        do(g, g.OFF_STEAL + at(g, 3, 3))
    g._flip(cell_of(g, "Mayor"), -1)  # exposed: your own tile is out of reach
    g._mask_cache = None
    assert g.wallets_on[cell_of(g, "Mayor")] > 0
    with pytest.raises(IllegalActionError, match="or your own while unexposed"):
        do(g, g.OFF_STEAL + cell_of(g, "Mayor"))


def test_steal_takes_exactly_one_wallet():
    g, p = start(n=4)
    c = at(g, 0, 0)
    assert g.wallets_on[c] == 2
    do(g, g.OFF_STEAL + c)
    assert g.wallets_on[c] == 1 and g.stash[p] == 1


def test_exposed_player_steals_onto_their_guest_and_not_from_themselves():
    g, p = start(n=4)
    g._flip(cell_of(g, "Mayor"), -1)
    g._mask_cache = None
    own = cell_of(g, "Mayor")
    assert not g.legal_action_mask()[g.OFF_STEAL + own]
    before = int(g.wallets_on[own])
    do(g, g.OFF_STEAL + at(g, 0, 0))
    assert g.stash[p] == 0 and g.wallets_on[own] == before + 1


def test_steal_from_a_mark_exposes_it_offers_the_item_and_discards_it():
    g, p = start(n=4)
    make_mark(g, "Surgeon")
    put(g, "Surgeon", at(g, 0, 0))  # 2 Wallets there: one steal is enough
    do(g, g.OFF_STEAL + at(g, 0, 0))
    assert g.tile_exposed[at(g, 0, 0)] and g.legal_action_mask()[g.A_USE] and g.legal_action_mask()[g.A_PASS]
    do(g, g.A_USE)
    assert gid("Surgeon") in g.discard and gid("Surgeon") not in g.marks
    assert len(g.marks) == 3  # clean-up drew a replacement
    assert g.stash[p] == 2


def test_moving_wallets_off_a_mark_by_item_does_not_trigger_it():
    g, p = start(n=6)
    make_mark(g, "Surgeon")
    put(g, "Surgeon", at(g, 4, 4))
    g.wallets_on[at(g, 4, 4)] = 2
    g.created += 1  # Wallets put on the table by hand
    steal_mark(g, "Puppeteer")
    do(g, g.OFF_CELL + at(g, 4, 4))
    assert gid("Surgeon") in g.marks and g.current_player() != p


# ----------------------------------------------------------------------------- Expose
def test_expose_only_in_your_row_or_column_unexposed_and_not_yourself():
    g, p = start(n=4)
    own = cell_of(g, "Mayor")
    g.tile_exposed[at(g, 1, 4)] = g.holder_of[g.guest_on[at(g, 1, 4)]] < 0  # an exposed tile is no target
    g._mask_cache = None
    m = g.legal_action_mask()[g.OFF_EXPOSE : g.OFF_EXPOSE + 25]
    want = {c for c in range(25) if (c // 5 == 1 or c % 5 == 1) and c != own and not g.tile_exposed[c]}
    assert set(np.flatnonzero(m)) == want


def test_exposing_a_player_reward_stash_onto_guest_half_to_lost_and_found():
    g, p = start(n=4)
    q = (p + 1) % 4
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 1, 3))
    g.stash[q] = 4
    g.created += 4  # Wallets put on the table by hand
    g.wallets_on[at(g, 1, 3)] = 1  # Stash 4 + tile 1 = 5; half (2) to the Lost & Found
    g.lost_found = 5
    g.created += 5  # Wallets put on the table by hand
    do(g, g.OFF_EXPOSE + at(g, 1, 3))
    assert g.player_exposed[q] and g.stash[q] == 0 and g.wallets_on[at(g, 1, 3)] == 3
    assert g.stash[p] == 1 and g.lost_found == 5 - 1 + 2
    obs = flat_obs(g, (p + 2) % 4)
    assert obs["identity"][(q - (p + 2)) % 4][at(g, 1, 3)] == 1  # the card is face-up for everyone


def test_exposure_reward_two_in_the_printed_option():
    g, p = start(n=4, exposure_reward=2)
    q = (p + 1) % 4
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 1, 3))
    do(g, g.OFF_EXPOSE + at(g, 1, 3))
    assert g.stash[p] == 2


def test_faq_exposing_a_non_player_has_no_penalty():
    g, p = start(n=4)
    c = next(c for c in (at(g, 1, 3), at(g, 3, 1)) if g.holder_of[g.guest_on[c]] < 0)
    do(g, g.OFF_EXPOSE + c)
    assert g.tile_exposed[c] and g.stash[p] == 0 and not any(g.player_exposed)


# ----------------------------------------------------------------------------- Snitch
def test_snitch_shows_identity_to_one_player_and_flips_a_tile():
    g, p = start(n=4)
    q, r = (p + 1) % 4, (p + 2) % 4
    do(g, g.OFF_SNITCH + 1)
    assert g.decision_kind == SNITCH_FLIP
    assert cell_of(g, "Mayor") not in set(np.flatnonzero(g.legal_action_mask()[g.OFF_CELL : g.OFF_CELL + 25]))
    assert flat_obs(g, q)["identity"][(p - q) % 4][cell_of(g, "Mayor")] == 1
    assert not flat_obs(g, r)["identity"][(p - r) % 4].any()
    assert flat_obs(g, r)["knows"][(q - r) % 4, (p - r) % 4] == 1  # public: q was shown p
    c = at(g, 4, 4)
    do(g, g.OFF_CELL + c)
    assert g.tile_exposed[c] and not g.player_exposed[p]


def test_snitch_only_while_unexposed_and_only_to_unexposed_players():
    g, p = start(n=4)
    q = (p + 2) % 4
    g._flip(g._guest_cell(q), -1)
    g._mask_cache = None
    m = g.legal_action_mask()[g.OFF_SNITCH : g.OFF_SNITCH + 4]
    assert list(m) == [False, True, False, True]
    g._flip(cell_of(g, "Mayor"), -1)
    g._mask_cache = None
    assert not g.legal_action_mask()[g.OFF_SNITCH : g.OFF_SNITCH + 4].any()


def test_snitch_flip_that_exposes_a_player_pays_the_reward():
    g, p = start(n=4)
    q = (p + 1) % 4
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 4, 4))
    do(g, g.OFF_SNITCH + 2)
    do(g, g.OFF_CELL + at(g, 4, 4))
    assert g.player_exposed[q] and g.stash[p] == 1


# ----------------------------------------------------------------------------- clean-up
def test_cleanup_discards_marks_without_wallets_and_exposes_them():
    g, p = start(n=4)
    m = g.marks[0]
    g.lost_found += int(g.wallets_on[g.cell_of_guest[m]])
    g.wallets_on[g.cell_of_guest[m]] = 0
    do(g, g.OFF_SWAP + 0)
    do(g, g.OFF_SWAP + 10)
    assert m in g.discard and g.tile_exposed[g.cell_of_guest[m]] and len(g.marks) == 3


def test_new_empty_mark_is_discarded_exposed_and_redrawn():
    g, p = start(n=4)
    m = g.marks[0]
    top, second = g.deck[0], g.deck[1]
    for x in (m, top):
        g.lost_found += int(g.wallets_on[g.cell_of_guest[x]])
        g.wallets_on[g.cell_of_guest[x]] = 0
    do(g, g.OFF_SWAP + 0)
    do(g, g.OFF_SWAP + 10)
    assert top in g.discard and g.tile_exposed[g.cell_of_guest[top]] and second in g.marks


def test_printed_option_puts_a_wallet_on_an_empty_new_mark():
    g, p = start(n=4, empty_new_mark="wallet")
    m = g.marks[0]
    top = g.deck[0]
    for x in (m, top):
        g.lost_found += int(g.wallets_on[g.cell_of_guest[x]])
        g.wallets_on[g.cell_of_guest[x]] = 0
    do(g, g.OFF_SWAP + 0)
    do(g, g.OFF_SWAP + 10)
    assert (
        top in g.marks
        and g.wallets_on[g.cell_of_guest[top]] == 1
        and not g.tile_exposed[g.cell_of_guest[top]]
    )


def test_no_marks_drawn_once_the_deck_is_empty():
    g, p = start(n=2)
    g.discard.extend(g.deck)
    for x in g.deck:
        g.is_discarded[x] = True
        g.tile_exposed[g.cell_of_guest[x]] = True
    g.deck.clear()
    g.deck_seen.clear()
    m = g.marks[0]
    g.lost_found += int(g.wallets_on[g.cell_of_guest[m]])
    g.wallets_on[g.cell_of_guest[m]] = 0
    do(g, g.OFF_SWAP + 0)
    do(g, g.OFF_SWAP + 10)
    assert len(g.marks) == 1 and not g.is_terminal()


# ----------------------------------------------------------------------------- end of the game
def test_last_unexposed_player_wins():
    g, p = start(n=3)
    q, r = (p + 1) % 3, (p + 2) % 3
    g._flip(g._guest_cell(r), -1)
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 1, 4))
    do(g, g.OFF_EXPOSE + at(g, 1, 4))
    assert g.is_terminal() and g.winners == (p,)
    assert list(g.returns()) == [1.0 if x == p else -1.0 for x in range(3)]


def test_seven_wallets_counting_the_guest_tile_wins():
    g, p = start(n=4)
    g.stash[p] = 5
    g.created += 5  # Wallets put on the table by hand
    own = cell_of(g, "Mayor")
    g.wallets_on[own] = 1
    do(g, g.OFF_STEAL + at(g, 0, 0))  # 6 in Stash + 1 on the tile
    assert g.is_terminal() and g.winners == (p,)


def test_wallets_put_on_your_tile_by_others_count_and_end_the_game_at_once():
    g, p = start(n=6)
    q = (p + 1) % 6
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 4, 4))
    g.stash[q] = 5
    g.created += 5  # Wallets put on the table by hand
    g.wallets_on[at(g, 4, 4)] = 0
    steal_mark(g, "Accountant")
    do(g, g.OFF_CELL + at(g, 4, 4))  # p piles Wallets on q's secret tile
    do(g, g.OFF_CELL + at(g, 5, 5))
    assert not g.is_terminal()
    do(g, g.OFF_CELL + at(g, 5, 5))  # Stash 5 + tile 2 = 7: q wins in the middle of p's item
    assert g.is_terminal() and g.winners == (q,)


def test_simultaneous_end_the_unexposed_player_beats_seven_wallets():
    g, p = start(n=3)
    q, r = (p + 1) % 3, (p + 2) % 3
    g._flip(g._guest_cell(r), -1)
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 1, 4))
    g.stash[p] = 6  # the reward makes 7 while q's exposure leaves p alone unexposed
    g.created += 6  # Wallets put on the table by hand
    g.wallets_on[cell_of(g, "Mayor")] = 0
    do(g, g.OFF_EXPOSE + at(g, 1, 4))
    assert g.winners == (p,)


def test_simultaneous_sevens_most_wallets_then_shared():
    g, p = start(n=4)
    q = (p + 1) % 4
    g.stash[q] = 7
    g.stash[p] = 7
    g.created += 14  # Wallets put on the table by hand
    g.wallets_on[g._guest_cell(q)] = 1
    g.wallets_on[cell_of(g, "Mayor")] = 0
    # the sevens are set by hand: the next step that can end the game (a Snitch, which moves no
    # Wallet; a swap cannot end it, so the rules do not check after one) ends it
    do(g, g.OFF_SNITCH + 1)
    assert g.winners == (q,)
    g, p = start(n=4, seed=3)
    q = (p + 1) % 4
    g.stash[q] = g.stash[p] = 7
    g.created += 14  # Wallets put on the table by hand
    g.wallets_on[g._guest_cell(q)] = g.wallets_on[cell_of(g, "Mayor")] = 0
    do(g, g.OFF_SNITCH + 1)
    assert sorted(g.winners) == sorted([p, q]) and g.returns()[p] == g.returns()[q] == 1.0


# ----------------------------------------------------------------------------- readings
def test_item_exposure_pays_the_user_but_not_for_exposing_yourself():
    g, p = start(n=6)
    steal_mark(g, "Engineer")
    stash = g.stash[p]
    do(g, g.OFF_CELL + cell_of(g, "Mayor"))  # the Engineer may expose any tile, even your own
    assert g.player_exposed[p] and g.stash[p] == 0
    assert g.wallets_on[cell_of(g, "Mayor")] + g.lost_found >= stash  # Stash went onto the Guest


def test_illegal_action_changes_nothing():
    g, p = start(n=4)
    before = g.to_string()
    with pytest.raises(IllegalActionError):
        do(g, g.OFF_EXPOSE + cell_of(g, "Mayor"))
    assert g.to_string() == before and g.decision_kind == ACTION


def test_seat_actions_are_relative():
    g, p = start(n=6)
    steal_mark(g, "Cop")
    q = (p + 2) % 6
    do(g, seat_action(g, p, q))
    assert g.cop[q] == 1


def test_illegal_actions_say_why():
    g, p = start(n=4)
    with pytest.raises(IllegalActionError, match="row or column"):
        do(g, g.OFF_EXPOSE + cell_of(g, "Mayor"))
    g._flip(cell_of(g, "Mayor"), -1)
    g._mask_cache = None
    with pytest.raises(IllegalActionError, match="unexposed players may Snitch"):
        do(g, g.OFF_SNITCH + 1)


def test_pilot_and_soldier_turn_options_can_be_passed():
    g, p = start(n=6)
    g._keep(p, 0, 1)  # the Pilot and the Soldier kept
    g._keep(p, 1, 1)
    g.flow.clear()
    g._start_turn(p)
    g._mask_cache = None
    assert g.decision_kind == PILOT and g.legal_action_mask()[g.A_PASS]
    do(g, g.A_PASS)
    assert g.decision_kind == MOVE1 and g.legal_action_mask()[g.A_PASS]
    do(g, g.A_PASS)
    assert g.decision_kind == ACTION and g.current_player() == p
    assert list(flat_obs(g, (p + 1) % 6)["kept_items"][(p - p - 1) % 6]) == [1, 1, 0]


def test_a_swap_or_a_pass_never_changes_the_end_check():
    """Why the rules skip the end check after a swap or a pass (`Exposed._apply`): a tile moves with
    its Wallets, so whoever wins (and the 7-Wallet deduction) is the same before and after."""
    swaps = 0
    for seed in range(6):
        g = new_game(6, seed)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            a = int(legal[rng.integers(len(legal))])
            if a < g.OFF_STEAL or a == g.A_PASS:
                before, after = g.clone(), g.clone()
                after.flow.frames.pop().then(after, a, *g.flow.decision.args)
                assert before._check_end() == after._check_end()
                assert before.winners == after.winners
                assert np.array_equal(before.public_candidates, after.public_candidates)
                swaps += 1
            g.apply_action(a)
    assert swaps > 100
