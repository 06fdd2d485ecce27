"""Awareness at set-up and every role's ability (Active: once, reveals the user; Passive: never)."""

from __future__ import annotations

import numpy as np

from envs.artifacts import data as D
from envs.artifacts import rules as R
from envs.core.flow import Do

from .util import SEVEN, TEN_FULL, act, pass_window, put, table, vote_all


def known_roles(g, p):
    kr = g.observation_dict(p)["known_roles"]
    return {(p + k) % g.num_players: int(np.argmax(kr[k])) for k in range(g.num_players) if kr[k].any()}


def test_tomb_raiders_know_each_other_and_the_mafia_boss():
    g = table(
        7,
        ["Possessed", "Shaman", "Academic", "Academic", "Tomb Raider", "Tomb Raider", "Mafia Boss"],
        preference="basic",
    )
    assert known_roles(g, 4) == {4: D.TOMB_RAIDER, 5: D.TOMB_RAIDER, 6: D.MAFIA_BOSS}


def test_possessed_knows_the_tomb_raiders_but_not_the_boss():
    g = table(
        7,
        ["Possessed", "Shaman", "Academic", "Academic", "Tomb Raider", "Tomb Raider", "Mafia Boss"],
        preference="basic",
    )
    assert known_roles(g, 0) == {0: D.POSSESSED, 4: D.TOMB_RAIDER, 5: D.TOMB_RAIDER}


def test_mafia_boss_knows_the_tomb_raiders_forger_knows_the_boss_academics_nobody():
    g = table(10, TEN_FULL, preference="full")
    assert known_roles(g, 7) == {6: D.TOMB_RAIDER, 7: D.MAFIA_BOSS}
    assert known_roles(g, 9) == {7: D.MAFIA_BOSS, 9: D.FORGER}
    assert known_roles(g, 4) == {4: D.ACADEMIC}
    assert known_roles(g, 8) == {8: D.SMUGGLER}  # nobody is aware of the Smuggler, nor it of anyone
    assert 8 not in known_roles(g, 6) and 9 not in known_roles(g, 6)


def use(g, seat, target_action):
    assert g.current_player() == seat and g.phase == D.PH_WINDOW
    act(g, g.A_USE)
    assert g.phase == D.PH_TARGET and g.revealed[seat]
    act(g, target_action)


def test_mafia_boss_hit_kills_and_reveals_both():
    g = table(7, SEVEN, sold=(0, 1, 0, 0, 0), top=["Quiet Day"], start_round=2, first_seat=5)
    use(g, 5, g.A_SEAT + (2 - 5) % 7)  # kill the Curator
    assert not g.alive[2] and g.revealed[2] and g.revealed[5] and g.ability_used[5]
    # the dead Curator may still use the unused Active ability
    assert g.phase == D.PH_DEATH and g.current_player() == 2
    act(g, g.A_USE)
    act(g, g.A_ART + 1)
    assert g.storage[1] == 1 and g.ability_used[2]


def test_mafia_boss_hit_on_possessed_wins():
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=5)
    use(g, 5, g.A_SEAT + (0 - 5) % 7)
    assert g.winner == D.LOOTERS


def test_active_ability_is_used_once():
    g = table(7, SEVEN, top=["Quiet Day", "Amnesty"], start_round=2, first_seat=3)
    use(g, 3, g.A_SEAT + 1)
    pass_window(g)
    while g.round == 1:
        act(g, int(np.flatnonzero(g.legal_action_mask())[0]))
    while g.current_player() != 3:
        act(g, g.A_PASS)
    assert not g.legal_action_mask()[g.A_USE]


def test_passive_and_plain_roles_cannot_use_an_ability():
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=0)
    assert not g.legal_action_mask()[g.A_USE]  # Possessed
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=4)
    assert not g.legal_action_mask()[g.A_USE]  # Tomb Raider


def test_shaman_right_guess_reveals_the_looter():
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=1)
    use(g, 1, g.A_SEAT + (6 - 1) % 7)
    assert g.revealed[6] and g.revealed[1] and not g.cleared[6]


def test_shaman_wrong_guess_clears_and_shuffles_a_discarded_piece_back():
    g = table(7, SEVEN, discard=(0, 0, 1, 0, 0), top=["Quiet Day"], start_round=2, first_seat=1)
    pile = len(g.pile)
    use(g, 1, g.A_SEAT + (3 - 1) % 7)
    assert g.cleared[3] and not g.revealed[3]
    assert g.discard == [0, 0, 0, 0, 0] and len(g.pile) == pile + 1
    assert all(g.observation_dict(p)["cleared"][(3 - p) % 7] == 1 for p in range(7))


def test_shaman_wrong_guess_with_empty_discard_sends_the_next_discard_back():
    g = table(
        7, SEVEN, storage=(1, 2, 0, 0, 0), top=["Quiet Day", "Museum Theft"], start_round=2, first_seat=1
    )
    use(g, 1, g.A_SEAT + 2)
    assert g.shaman_curse
    while g.round == 2:
        act(g, g.A_PASS if g.legal_action_mask()[g.A_PASS] else int(np.flatnonzero(g.legal_action_mask())[0]))
    pass_window(g)
    in_pile = sum(1 for c in g.pile if 5 <= c < 10)
    assert g.phase == D.PH_THEFT
    close = next(
        i for i, f in enumerate(g.flow.frames) if type(f) is Do
    )  # the vote's close, below its ballots
    g.flow.frames[:close] = [Do(R.Artifacts._round)]  # after the vote, straight to the next round
    vote_all(g, g.A_ART + 1, D.PH_THEFT)
    assert g.storage == [1, 1, 0, 0, 0] and g.discard == [0] * 5
    assert sum(1 for c in g.pile if 5 <= c < 10) + (g.card_in_hand and 5 <= g.card < 10) == in_pile + 1
    assert not g.shaman_curse


def test_curator_restores_a_piece_from_sold():
    g = table(7, SEVEN, sold=(0, 2, 0, 0, 0), top=["Quiet Day"], start_round=2, first_seat=2)
    use(g, 2, g.A_ART + 1)
    assert g.sold[1] == 1 and g.storage[1] == 1 and g.revealed[2]


def test_curator_restore_into_full_storage_replaces_by_vote():
    g = table(
        7,
        SEVEN,
        storage=(2, 2, 1, 0, 0),
        sold=(0, 0, 0, 1, 0),
        top=["Quiet Day"],
        start_round=2,
        first_seat=2,
    )
    use(g, 2, g.A_ART + 3)
    assert g.phase == D.PH_REPLACE
    assert not g.legal_action_mask()[g.A_ART + 3]  # only the original pieces may be replaced
    vote_all(g, g.A_ART + 2, D.PH_REPLACE)
    assert g.storage == [2, 2, 0, 1, 0] and g.discard[2] == 1  # Replace: the old piece is Discarded


def test_detective_learns_a_side_privately():
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=3)
    before = {p: g.observation_dict(p)["known_sides"].copy() for p in range(7)}
    use(g, 3, g.A_SEAT + (6 - 3) % 7)
    ks = g.observation_dict(3)["known_sides"]
    assert ks[(6 - 3) % 7, D.LOOTERS] == 1
    for p in range(7):
        if p not in (3, 6):  # nobody else learns seat 6's side
            row = (6 - p) % 7
            np.testing.assert_array_equal(g.observation_dict(p)["known_sides"][row], before[p][row])


def test_forger_appears_as_an_academic_to_the_detective():
    g = table(10, TEN_FULL, preference="full", top=["Quiet Day"], start_round=2, first_seat=3)
    use(g, 3, g.A_SEAT + (9 - 3) % 10)
    ks = g.observation_dict(3)["known_sides"]
    assert ks[(9 - 3) % 10, D.ACADEMICS] == 1 and ks[(9 - 3) % 10, D.LOOTERS] == 0


def test_smuggler_moves_a_piece_from_storage_to_discard():
    g = table(7, SEVEN, storage=(0, 3, 0, 0, 0), top=["Quiet Day"], start_round=2, first_seat=6)
    use(g, 6, g.A_ART + 1)
    assert g.storage[1] == 2 and g.discard[1] == 1 and g.revealed[6]


def test_silenced_player_keeps_the_ability_but_does_not_vote():
    g = table(7, SEVEN, top=[2], start_round=2, first_seat=3)
    put(g, "silenced_until", 3, 3)
    assert g.current_player() == 3 and g.legal_action_mask()[g.A_USE]
    pass_window(g)
    voters = []
    while g.phase == D.PH_KEEP:
        voters.append(g.current_player())
        act(g, g.A_NO)
    assert 3 not in voters


def test_active_abilities_at_any_time_from_the_first_round():
    # text: "At any time during the round, you can: Use your Active Role Abilities"
    g = table(7, SEVEN, top=["Quiet Day"], first_seat=5)
    assert g.round == 1 and g.legal_action_mask()[g.A_USE]
    g = table(7, SEVEN, top=["Quiet Day"], first_seat=5, start_round=2)
    assert g.legal_action_mask()[g.A_USE]
