"""One test per item (36): set up a board, steal the Mark, use its item step by step, assert the result."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.exposed.data import GUESTS
from envs.exposed.rules import ACTION, DENTIST, MOVE1, MOVE2, PICK, PILOT

from .helpers import (
    at,
    cell_of,
    do,
    flat_obs,
    gid,
    legal_cells,
    make_mark,
    new_game,
    put,
    seat_action,
    set_identity,
    start,
    steal_mark,
    swap_cards,
    wallets_total,
)


def test_data_table_has_36_guests_with_markers():
    assert len(GUESTS) == 36
    markers = [g.marker for g in GUESTS]
    assert markers.count("") == 16 and markers.count("3+") == 9 and markers.count("5+") == 11
    assert len({g.item for g in GUESTS}) == 36
    for g in GUESTS:
        assert g.effect and g.choices


def test_every_item_has_an_implementation():
    from envs.exposed.rules import ITEM_CAN_ACT, ITEM_EFFECTS

    assert set(ITEM_EFFECTS) == {guest.item for guest in GUESTS}
    assert set(ITEM_CAN_ACT) <= set(ITEM_EFFECTS)
    assert all(callable(effect) for effect in [*ITEM_EFFECTS.values(), *ITEM_CAN_ACT.values()])


def test_accountant_moves_up_to_three_wallets_onto_a_tile_not_your_own():
    g, p = start(me="Mayor")
    steal_mark(g, "Accountant")
    own = cell_of(g, "Mayor")
    assert own not in legal_cells(g)
    dest = at(g, 4, 4)
    do(g, g.OFF_CELL + dest)
    before = int(g.wallets_on[dest])
    src = [at(g, 0, 5), at(g, 5, 0), at(g, 5, 5)]  # corners: 2 Wallets each
    for c in src:
        assert c in legal_cells(g) and dest not in legal_cells(g)
        do(g, g.OFF_CELL + c)
    assert g.wallets_on[dest] == before + 3
    assert all(g.wallets_on[c] == 1 for c in src)
    assert g.decision_kind == ACTION and g.current_player() == (p + 1) % 6  # item over, turn over


def test_accountant_can_stop_early():
    g, p = start(me="Mayor")
    steal_mark(g, "Accountant")
    dest = at(g, 4, 4)
    do(g, g.OFF_CELL + dest)
    do(g, g.OFF_CELL + at(g, 0, 5))
    do(g, g.A_PASS)
    assert g.wallets_on[at(g, 0, 5)] == 1 and g.current_player() == (p + 1) % 6


def test_architect_puts_a_wallet_on_each_corner():
    g, p = start(me="Mayor")
    corners = [at(g, 0, 0), at(g, 0, 5), at(g, 5, 0), at(g, 5, 5)]
    put(g, "Architect", at(g, 1, 2))
    before = g.wallets_on[corners].copy()
    total = wallets_total(g)
    steal_mark(g, "Architect")
    assert (g.wallets_on[corners] == before + 1).all()
    assert wallets_total(g) == total  # made from the Lost & Found, tracked as created


def test_astronaut_look_top_four_and_each_other_player_one():
    g, p = start(me="Mayor")
    make_mark(g, "Astronaut")
    top = list(g.deck[:4])
    nxt = list(g.deck[4 : 4 + 5])
    steal_mark(g, "Astronaut")
    # the user's four went to the bottom, then each other player's one (clockwise)
    assert g.deck[-9:-5] == top and g.deck[-5:] == nxt
    obs = flat_obs(g, p)
    seen = {int(g.guest_on[c]) for c in np.flatnonzero(obs["seen_in_deck"])}
    assert seen == set(top) - set(g.marks)
    for k in range(1, 6):
        q = (p + k) % 6
        s = {int(g.guest_on[c]) for c in np.flatnonzero(flat_obs(g, q)["seen_in_deck"])}
        assert s == {nxt[k - 1]} - set(g.marks)


def test_dentist_target_chooses_a_line_told_privately():
    g, p = start(me="Mayor")
    q, r = (p + 1) % 6, (p + 2) % 6
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 3, 4))
    steal_mark(g, "Dentist")
    other_before = flat_obs(g, r)["candidates"].copy()
    do(g, seat_action(g, p, q))
    assert g.current_player() == q and g.decision_kind == DENTIST
    lines = np.flatnonzero(g.legal_action_mask()[g.OFF_LINE : g.OFF_LINE + 12])
    assert set(lines) == {3, 6 + 4}  # row 3 or column 4
    do(g, g.OFF_LINE + 6 + 4)  # column 4
    cand = flat_obs(g, p)["candidates"][(q - p) % 6]
    assert set(np.flatnonzero(cand)) <= {at(g, r_, 4) for r_ in range(6)}
    assert cand[at(g, 3, 4)] == 1
    told = flat_obs(g, q)["dentist_told"][(p - q) % 6]
    assert set(np.flatnonzero(told)) == {at(g, r_, 4) for r_ in range(6)}
    # the used Mark is discarded (exposed) and clean-up draws a new Mark: those cells are public news
    keep = ~g.tile_exposed & ~g.is_mark[g.guest_on]
    np.testing.assert_array_equal(flat_obs(g, r)["candidates"][:, keep], other_before[:, keep])


def test_dentist_on_an_exposed_player_tells_nothing():
    g, p = start(me="Mayor")
    q = (p + 1) % 6
    g._flip(g._guest_cell(q), -1)
    steal_mark(g, "Dentist")
    do(g, seat_action(g, p, q))
    assert g.current_player() == (p + 1) % 6 and g.decision_kind == ACTION
    assert not g.dentist_records


def test_engineer_exposes_any_tile_and_pays_the_reward():
    g, p = start(me="Mayor")
    q = (p + 3) % 6
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 4, 5))  # not in the user's row or column
    steal_mark(g, "Engineer")
    stash = g.stash[p]
    do(g, g.OFF_CELL + at(g, 4, 5))
    assert g.player_exposed[q] and g.stash[p] == stash + 1


def test_firefighter_rearranges_a_row():
    g, p = start(me="Mayor")
    steal_mark(g, "Firefighter")
    do(g, g.OFF_LINE + 4)  # row 4
    row = [at(g, 4, c) for c in range(6)]
    old = [int(g.guest_on[c]) for c in row]
    want = [old[i] for i in (5, 3, 4, 0, 2, 1)]
    for i in range(5):
        assert legal_cells(g) == set(row[i:])
        do(g, g.OFF_CELL + int(g.cell_of_guest[want[i]]))
    assert [int(g.guest_on[c]) for c in row] == want


def test_lawyer_puts_a_wallet_on_each_exposed_tile():
    g, p = start(me="Mayor")
    make_mark(g, "Lawyer")
    put(g, "Lawyer", at(g, 0, 0))
    for c in (at(g, 5, 5), at(g, 3, 3)):
        if g.holder_of[g.guest_on[c]] < 0:
            g.tile_exposed[c] = True
    exposed_before = g.tile_exposed.copy()
    before = g.wallets_on.copy()
    steal_mark(g, "Lawyer")
    mark_cell = cell_of(g, "Lawyer")
    diff = g.wallets_on - before
    diff[mark_cell] += 1  # the stolen Wallet
    assert (diff[exposed_before] == 1).all()
    assert (diff[~g.tile_exposed] == 0).all()


def test_locksmith_takes_two_wallets_onto_its_tile():
    g, p = start(me="Mayor")
    steal_mark(g, "Locksmith")
    lock = cell_of(g, "Locksmith")
    before = int(g.wallets_on[lock])
    assert lock not in legal_cells(g) and g.A_PASS not in g.legal_actions()
    do(g, g.OFF_CELL + at(g, 5, 5))
    do(g, g.OFF_CELL + at(g, 5, 0))
    assert (
        g.wallets_on[lock] == before + 2 and g.wallets_on[at(g, 5, 5)] == 1 and g.wallets_on[at(g, 5, 0)] == 1
    )


def test_magician_takes_a_move_action_that_others_cannot_undo():
    g, p = start(me="Mayor")
    steal_mark(g, "Magician")
    assert g.decision_kind == MOVE1 and g.current_player() == p
    do(g, g.OFF_SWAP + 0)  # cells (0,0)-(0,1)
    assert g.decision_kind == MOVE2 and not g.legal_action_mask()[0]  # own second swap may not undo
    do(g, g.OFF_SWAP + 2)  # cells (0,2)-(0,3)
    q = g.current_player()
    assert q != p and not g.legal_action_mask()[0] and not g.legal_action_mask()[2]


def test_mayor_looks_at_the_top_three():
    g, p = start(me="Lawyer")
    make_mark(g, "Mayor")
    top = list(g.deck[:3])
    steal_mark(g, "Mayor")
    assert g.deck[-3:] == top
    seen = {int(g.guest_on[c]) for c in np.flatnonzero(flat_obs(g, p)["seen_in_deck"])}
    assert seen == set(top) - set(g.marks)
    q = (p + 1) % 6
    assert not flat_obs(g, q)["seen_in_deck"].any()


def test_mechanic_steals_again_and_a_second_mark_offers_its_item():
    g, p = start(me="Mayor")
    make_mark(g, "Surgeon")
    put(g, "Surgeon", at(g, 2, 2))
    stash = g.stash[p]
    steal_mark(g, "Mechanic")
    assert g.decision_kind == PICK
    do(g, g.OFF_STEAL + at(g, 2, 2))
    assert g.tile_exposed[at(g, 2, 2)]  # the Surgeon Mark is exposed
    do(g, g.A_USE)  # Surgeon: +1
    assert g.stash[p] == stash + 3
    assert gid("Surgeon") in g.discard and gid("Mechanic") in g.discard


def test_paramedic_puts_a_wallet_on_each_tile_of_a_line():
    g, p = start(me="Mayor")
    steal_mark(g, "Paramedic")
    before = g.wallets_on.copy()
    do(g, g.OFF_LINE + 6 + 3)  # column 3
    col = [at(g, r, 3) for r in range(6)]
    assert (g.wallets_on[col] == before[col] + 1).all()
    other = np.setdiff1d(np.arange(36), col)
    assert (g.wallets_on[other] == before[other]).all()


def test_physicist_swaps_any_two_tiles():
    g, p = start(me="Mayor")
    steal_mark(g, "Physicist")
    a, b = at(g, 0, 5), at(g, 5, 0)
    ga, gb = int(g.guest_on[a]), int(g.guest_on[b])
    do(g, g.OFF_CELL + a)
    assert a not in legal_cells(g)
    do(g, g.OFF_CELL + b)
    assert g.guest_on[a] == gb and g.guest_on[b] == ga


def test_surgeon_gives_a_wallet_into_your_stash():
    g, p = start(me="Mayor")
    steal_mark(g, "Surgeon")
    assert g.stash[p] == 2  # the stolen one and the Surgeon's


def test_teacher_moves_two_wallets_to_two_different_tiles():
    g, p = start(me="Mayor")
    steal_mark(g, "Teacher")
    src = at(g, 5, 5)
    do(g, g.OFF_CELL + src)
    d1, d2 = at(g, 3, 3), at(g, 4, 4)
    b1, b2 = int(g.wallets_on[d1]), int(g.wallets_on[d2])
    assert src not in legal_cells(g)
    do(g, g.OFF_CELL + d1)
    assert d1 not in legal_cells(g)
    do(g, g.OFF_CELL + d2)
    assert g.wallets_on[src] == 0 and g.wallets_on[d1] == b1 + 1 and g.wallets_on[d2] == b2 + 1


def test_undertaker_gives_up_to_three_tiles_a_wallet():
    g, p = start(me="Mayor")
    steal_mark(g, "Undertaker")
    cells = [at(g, 3, 3), at(g, 4, 4)]
    before = g.wallets_on[cells].copy()
    do(g, g.OFF_CELL + cells[0])
    assert cells[0] not in legal_cells(g)
    do(g, g.OFF_CELL + cells[1])
    do(g, g.A_PASS)
    assert (g.wallets_on[cells] == before + 1).all() and g.current_player() != p


def test_actor_uses_a_discarded_cards_item():
    g, p = start(me="Mayor")
    swap_cards(g, gid("Surgeon"), g.deck[0])
    g.deck.remove(gid("Surgeon"))
    g.deck_seen.pop()
    g._discard_card(gid("Surgeon"), -1)
    steal_mark(g, "Actor")
    m = g.legal_action_mask()[g.OFF_GUEST : g.OFF_GUEST + 36]
    assert m[gid("Surgeon")] and not m[gid("Actor")]
    do(g, g.OFF_GUEST + gid("Surgeon"))
    assert g.stash[p] == 2


def test_farmer_feeds_itself_and_its_surroundings():
    g, p = start(me="Mayor")
    make_mark(g, "Farmer")
    put(g, "Farmer", at(g, 2, 2))
    before = g.wallets_on.copy()
    steal_mark(g, "Farmer")
    around = [at(g, r, c) for r in (1, 2, 3) for c in (1, 2, 3)]
    diff = g.wallets_on - before
    diff[at(g, 2, 2)] += 1
    assert (diff[around] == 1).all() and diff.sum() == 9


def test_janitor_takes_one_wallet_from_exposed_tiles():
    g, p = start(me="Mayor")
    make_mark(g, "Janitor")
    free = [c for c in (at(g, 5, 5), at(g, 5, 0), at(g, 3, 3)) if g.holder_of[g.guest_on[c]] < 0]
    for c in free[:2]:
        g.tile_exposed[c] = True
    steal_mark(g, "Janitor")
    jan = cell_of(g, "Janitor")
    before = int(g.wallets_on[jan])
    allowed = legal_cells(g)
    assert allowed == {c for c in np.flatnonzero(g.tile_exposed & (g.wallets_on > 0)) if c != jan}
    for c in free[:2]:
        do(g, g.OFF_CELL + c)
    do(g, g.A_PASS) if g.current_player() == p else None
    assert g.wallets_on[jan] == before + 2


def test_nanny_takes_one_and_sends_the_rest_to_the_lost_and_found():
    g, p = start(me="Mayor")
    steal_mark(g, "Nanny")
    c = at(g, 5, 5)
    g.wallets_on[c] = 4
    g.created += 2  # Wallets put on the table by hand
    lf, stash = g.lost_found, g.stash[p]
    do(g, g.OFF_CELL + c)
    assert g.wallets_on[c] == 0 and g.stash[p] == stash + 1 and g.lost_found == lf + 3


def test_nurse_swaps_surrounding_tiles_with_any_tile_up_to_four_times():
    g, p = start(me="Mayor")
    make_mark(g, "Nurse")
    put(g, "Nurse", at(g, 2, 2))
    steal_mark(g, "Nurse")
    nurse = cell_of(g, "Nurse")
    for _ in range(4):
        allowed = legal_cells(g)
        assert allowed == set(np.flatnonzero(g.surround[nurse]))
        a = min(allowed)
        ga = int(g.guest_on[a])
        far = at(g, 5, 5)
        gf = int(g.guest_on[far])
        do(g, g.OFF_CELL + a)
        do(g, g.OFF_CELL + far)
        assert g.guest_on[a] == gf and g.guest_on[far] == ga
    assert g.current_player() != p  # four swaps at most


def test_pilot_is_kept_and_swaps_before_each_turn():
    g, p = start(n=4, me="Mayor")
    steal_mark(g, "Pilot")
    assert g.pilot[p]
    while g.current_player() != p or g.decision_kind != PILOT:
        do(g, g.OFF_SWAP + 5 if g.legal_action_mask()[5] else g.legal_actions()[0])
    pilot = cell_of(g, "Pilot")
    target = at(g, 4, 4) if pilot != at(g, 4, 4) else at(g, 0, 4)
    gt = int(g.guest_on[target])
    do(g, g.OFF_CELL + target)
    assert cell_of(g, "Pilot") == target and g.cell_of_guest[gt] == pilot
    assert g.decision_kind == ACTION and g.current_player() == p


def test_senator_pays_players_around_it():
    g, p = start(me="Mayor")
    q, r = (p + 1) % 6, (p + 2) % 6
    set_identity(g, q, "Lawyer")
    set_identity(g, r, "Teacher")
    make_mark(g, "Senator")
    put(g, "Senator", at(g, 2, 2))
    put(g, "Lawyer", at(g, 3, 3))
    put(g, "Teacher", at(g, 5, 5))
    sq, sr, sp = g.stash[q], g.stash[r], g.stash[p]
    steal_mark(g, "Senator")
    assert g.stash[q] == sq + 1 and g.stash[r] == sr and g.stash[p] == sp + 2  # p at (1,1) surrounds too
    obs = flat_obs(g, (p + 3) % 6)
    cand_q = obs["candidates"][(q - (p + 3)) % 6]
    assert set(np.flatnonzero(cand_q)) <= set(np.flatnonzero(g.surround[at(g, 2, 2)]))


def test_server_makes_a_player_move_then_takes_a_wallet():
    g, p = start(me="Mayor")
    q = (p + 2) % 6
    g.stash[q] = 2
    g.created += 2  # Wallets put on the table by hand
    steal_mark(g, "Server")
    do(g, seat_action(g, p, q))
    assert g.current_player() == q and g.decision_kind == MOVE1
    do(g, g.OFF_SWAP + 3)
    assert g.current_player() == q and g.decision_kind == MOVE2
    do(g, g.OFF_SWAP + 7)
    assert g.stash[q] == 1 and g.stash[p] == 2
    assert [e for e, _a, _b in g.latest_move[q]] == [3, 7]


def test_veterinarian_takes_from_a_neighbour_only():
    g, p = start(me="Mayor")
    left = (p - 1) % 6
    g.stash[left] = 1
    g.created += 1  # Wallets put on the table by hand
    steal_mark(g, "Veterinarian")
    seats = np.flatnonzero(g.legal_action_mask()[g.OFF_SEAT : g.OFF_SEAT + 6])
    assert set(seats) == {1, 5}
    do(g, seat_action(g, p, left))
    assert g.stash[left] == 0 and g.stash[p] == 2


def test_artist_takes_all_wallets_of_a_tile():
    g, p = start(me="Mayor")
    steal_mark(g, "Artist")
    c = at(g, 5, 5)
    g.wallets_on[c] = 3
    g.created += 1  # Wallets put on the table by hand
    art = cell_of(g, "Artist")
    before = int(g.wallets_on[art])
    assert art not in legal_cells(g)
    do(g, g.OFF_CELL + c)
    assert g.wallets_on[c] == 0 and g.wallets_on[art] == before + 3


def test_banker_gains_two_then_swaps_with_any_tile():
    g, p = start(me="Mayor")
    steal_mark(g, "Banker")
    bank = cell_of(g, "Banker")
    assert g.wallets_on[bank] >= 2
    before = int(g.wallets_on[bank])
    target = at(g, 5, 5)
    do(g, g.OFF_CELL + target)
    assert cell_of(g, "Banker") == target and g.wallets_on[target] == before


def test_captain_moves_a_wallet_to_each_chosen_exposed_player():
    g, p = start(me="Mayor")
    q, r = (p + 1) % 6, (p + 4) % 6
    set_identity(g, q, "Lawyer")
    set_identity(g, r, "Teacher")
    g._flip(g._guest_cell(q), -1)
    g._flip(g._guest_cell(r), -1)
    steal_mark(g, "Captain")
    seats = set(np.flatnonzero(g.legal_action_mask()[g.OFF_SEAT : g.OFF_SEAT + 6]))
    assert seats == {1, 4}
    wq, wr = int(g.wallets_on[g._guest_cell(q)]), int(g.wallets_on[g._guest_cell(r)])
    src = at(g, 5, 5) if g._guest_cell(q) != at(g, 5, 5) and g._guest_cell(r) != at(g, 5, 5) else at(g, 0, 5)
    do(g, seat_action(g, p, q))
    do(g, g.OFF_CELL + src)
    assert set(np.flatnonzero(g.legal_action_mask()[g.OFF_SEAT : g.OFF_SEAT + 6])) == {4}
    do(g, seat_action(g, p, r))
    do(g, g.OFF_CELL + src)
    assert g.wallets_on[g._guest_cell(q)] == wq + 1 and g.wallets_on[g._guest_cell(r)] == wr + 1


def test_clown_swaps_two_exposed_players_cards():
    g, p = start(me="Mayor")
    q, r = (p + 1) % 6, (p + 2) % 6
    set_identity(g, q, "Lawyer")
    set_identity(g, r, "Teacher")
    g._flip(g._guest_cell(q), -1)
    g._flip(g._guest_cell(r), -1)
    iq, ir = g.ident[q], g.ident[r]
    steal_mark(g, "Clown")
    do(g, seat_action(g, p, q))
    do(g, seat_action(g, p, r))
    assert g.ident[q] == ir and g.ident[r] == iq and g.player_exposed[q] and g.player_exposed[r]


def test_cop_costs_a_wallet_for_each_expose():
    g, p = start(n=5, me="Mayor")
    q = (p + 1) % 5
    g.stash[q] = 3
    g.created += 3  # Wallets put on the table by hand
    steal_mark(g, "Cop")
    do(g, seat_action(g, p, q))
    assert g.cop[q] == 1 and g.current_player() == q
    expose = np.flatnonzero(g.legal_action_mask()[g.OFF_EXPOSE : g.OFF_EXPOSE + 36])
    target = next(c for c in expose if g.holder_of[g.guest_on[c]] < 0)
    lf = g.lost_found
    do(g, g.OFF_EXPOSE + int(target))
    assert g.stash[q] == 2 and g.lost_found == lf + 1


def test_judge_discards_marks_and_clean_up_replaces_them():
    g, p = start(me="Mayor")
    steal_mark(g, "Judge")
    others = [m for m in g.marks if m != gid("Judge")]
    m = g.legal_action_mask()[g.OFF_GUEST : g.OFF_GUEST + 36]
    assert set(np.flatnonzero(m)) == set(others)
    do(g, g.OFF_GUEST + others[0])
    assert others[0] in g.discard and g.tile_exposed[g.cell_of_guest[others[0]]]
    do(g, g.A_PASS)
    assert len(g.marks) == 4 and others[0] not in g.marks


def test_panhandler_takes_one_from_each_other_stash():
    g, p = start(me="Mayor")
    for k in range(1, 6):
        g.stash[(p + k) % 6] = k % 2  # some have none
    g.created += 3  # Wallets put on the table by hand
    make_mark(g, "Panhandler")
    put(g, "Panhandler", at(g, 0, 0))
    before = int(g.wallets_on[at(g, 0, 0)])
    steal_mark(g, "Panhandler")
    assert g.wallets_on[at(g, 0, 0)] == before - 1 + 3
    assert all(g.stash[(p + k) % 6] == 0 for k in range(1, 6))
    assert g.stash[p] == 1


def test_puppeteer_takes_one_wallet_from_any_tile():
    g, p = start(me="Mayor")
    steal_mark(g, "Puppeteer")
    c = at(g, 5, 5)
    do(g, g.OFF_CELL + c)
    assert g.wallets_on[c] == 1 and g.stash[p] == 2


def test_realtor_moves_two_between_other_stashes():
    g, p = start(me="Mayor")
    a, b = (p + 1) % 6, (p + 2) % 6
    g.stash[a] = 3
    g.created += 3  # Wallets put on the table by hand
    steal_mark(g, "Realtor")
    do(g, seat_action(g, p, a))
    dest = set(np.flatnonzero(g.legal_action_mask()[g.OFF_SEAT : g.OFF_SEAT + 6]))
    assert 0 not in dest and 1 not in dest  # not yourself, not the source
    do(g, seat_action(g, p, b))
    assert g.stash[a] == 1 and g.stash[b] == 2


def test_soldier_gives_a_free_move_before_each_turn():
    g, p = start(n=5, me="Mayor")
    steal_mark(g, "Soldier")
    assert g.soldier[p]
    while g.current_player() != p:
        do(g, g.legal_actions()[0])
    assert g.decision_kind == MOVE1 and g.legal_action_mask()[g.A_PASS]
    do(g, g.OFF_SWAP + 2)
    do(g, g.OFF_SWAP + 4)
    assert g.decision_kind == ACTION and g.current_player() == p


def test_wrestler_draws_until_an_unexposed_guest():
    g, p = start(me="Mayor")
    make_mark(g, "Wrestler")
    # the top deck card is exposed: it is discarded, the next (unexposed) one is kept
    top, second = g.deck[0], g.deck[1]
    g.tile_exposed[g.cell_of_guest[top]] = True
    g.tile_exposed[g.cell_of_guest[second]] = False
    steal_mark(g, "Wrestler")
    assert g.ident[p] == second and not g.player_exposed[p]
    assert gid("Mayor") in g.discard and g.tile_exposed[cell_of(g, "Mayor")]
    assert top in g.discard
    assert flat_obs(g, p)["identity"][0][g.cell_of_guest[second]] == 1


def test_declining_an_item_discards_the_mark_without_effect():
    g, p = start(me="Mayor")
    steal_mark(g, "Surgeon", use=False)
    assert g.stash[p] == 1 and gid("Surgeon") in g.discard


def test_item_choice_out_of_mask_is_refused():
    g, p = start(me="Mayor")
    steal_mark(g, "Accountant")
    with pytest.raises(IllegalActionError):
        do(g, g.OFF_CELL + cell_of(g, "Mayor"))


# ----------------------------------------------------------------------------- a Mark's first theft
def test_issue_12_seed_19_mechanic_mark_is_not_re_offered_by_its_own_extra_steal():
    g = new_game(2, 19)
    p = g.current_player()
    assert g.guest_on[3] == gid("Mechanic") and g.is_mark[gid("Mechanic")] and g.wallets_on[3] == 2
    do(g, g.OFF_STEAL + 3)
    do(g, g.A_USE)
    do(g, g.OFF_STEAL + 3)  # the Mechanic's extra Steal, from the same tile
    assert g.stash[p] == 2
    assert not g.legal_action_mask()[g.A_USE]  # no longer a Mark: nothing is offered again
    assert g.current_player() != p and gid("Mechanic") in g.discard


def test_a_mark_stops_being_a_mark_at_its_first_theft():
    g, p = start(me="Mayor")
    steal_mark(g, "Mechanic", use=None)  # the offer is open
    assert gid("Mechanic") not in g.marks and not g.is_mark[gid("Mechanic")]
    assert flat_obs(g, p)["marks"][cell_of(g, "Mechanic")] == 0
    g.check_invariants()


def test_actor_mechanic_steal_from_the_actor_tile_does_not_re_offer_the_actor():
    g, p = start(me="Mayor")
    swap_cards(g, gid("Mechanic"), g.deck[0])
    g.deck.remove(gid("Mechanic"))
    g.deck_seen.pop()
    g._discard_card(gid("Mechanic"), -1)
    make_mark(g, "Actor")
    put(g, "Actor", at(g, 1, 2))
    g.wallets_on[at(g, 1, 2)] = 2
    g.created += 1  # Wallets put on the table by hand
    steal_mark(g, "Actor")
    do(g, g.OFF_GUEST + gid("Mechanic"))
    do(g, g.OFF_STEAL + at(g, 1, 2))  # steal again from the Actor's tile
    assert not g.legal_action_mask()[g.A_USE]
    assert g.current_player() != p and gid("Actor") in g.discard


def test_an_item_with_no_possible_step_is_still_offered_and_does_nothing():
    g, p = start(me="Mayor")
    assert not any(g.player_exposed)  # the Clown needs two exposed players
    before = (g.wallets_on.copy(), list(g.stash), list(g.ident))
    steal_mark(g, "Clown", use=None)
    assert g.legal_action_mask()[g.A_USE]
    do(g, g.A_USE)
    assert g.current_player() != p  # nothing to decide: the turn is over
    assert list(g.ident) == before[2] and g.stash[p] == before[1][p] + 1  # only the stolen Wallet
    assert gid("Clown") in g.discard


def test_an_item_step_left_without_choices_ends_the_item():
    # the Locksmith takes 2 Wallets, "fewer only if no Wallet is left elsewhere": with one Wallet
    # elsewhere, its second step has nothing to choose and the item (and the turn) ends
    g, p = start(me="Mayor")
    steal_mark(g, "Locksmith")
    lock, last = cell_of(g, "Locksmith"), at(g, 5, 5)
    keep = np.zeros(g.num_tiles, dtype=bool)
    keep[[lock, last]] = True
    g.lost_found += int(g.wallets_on[~keep].sum()) + int(g.wallets_on[last]) - 1
    g.wallets_on[~keep] = 0
    g.wallets_on[last] = 1
    g._mask_cache = None
    before = int(g.wallets_on[lock])
    assert legal_cells(g) == {last}
    do(g, g.OFF_CELL + last)
    assert g.wallets_on[lock] == before + 1 and g.wallets_on[last] == 0
    assert g.decision_kind == ACTION and g.current_player() == (p + 1) % 6
    g.check_invariants()


def test_a_game_in_the_middle_of_an_item_pickles_and_plays_on_alike():
    import pickle

    g, p = start(me="Mayor")
    steal_mark(g, "Accountant")
    assert g.decision_kind == PICK
    copy = pickle.loads(pickle.dumps(g))
    rng = np.random.default_rng(3)
    for _ in range(60):
        if g.is_terminal():
            break
        assert np.array_equal(copy.legal_action_mask(), g.legal_action_mask())
        assert np.array_equal(copy.observation(g.current_player()), g.observation(g.current_player()))
        action = int(rng.choice(g.legal_actions()))
        g.apply_action(action)
        copy.apply_action(action)
    assert copy.is_terminal() == g.is_terminal()
