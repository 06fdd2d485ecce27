"""Resources (agreement, cost, effects, the card-type FAQ), sites (China, Spain, Greece) and talk."""

from __future__ import annotations

import numpy as np

from envs.artifacts import data as D

from .util import SEVEN, act, elect, finish_round, pass_window, put, table, talk_none, vote_all

BB, LAWYER, RED_TAPE, INSURANCE = D.BALLOT_BOX, D.LAWYER, D.RED_TAPE, D.INSURANCE


def suggest(g, r, yes_voters):
    """The current window player suggests resource r; `yes_voters` agree, the rest disagree."""
    assert g.legal_action_mask()[g.A_RES + r]
    act(g, g.A_RES + r)
    assert g.phase == D.PH_AGREE
    vote_all(g, lambda s: g.A_YES if s in yes_voters else g.A_NO, D.PH_AGREE)


def test_resource_needs_a_third_of_the_living_to_agree():
    g = table(7, SEVEN, sold=(2, 1, 0, 0, 0), top=["Interrogation"])
    suggest(g, LAWYER, {0, 1})  # 2 < ceil(7/3) = 3
    assert not g.skipped and g.sold == [2, 1, 0, 0, 0]
    g = table(7, SEVEN, sold=(2, 1, 0, 0, 0), top=["Interrogation"])
    suggest(g, LAWYER, {0, 1, 2})
    assert g.skipped


def test_resource_cost_is_discarded_from_sold():
    g = table(7, SEVEN, sold=(1, 2, 0, 0, 0), top=["Interrogation"])
    suggest(g, LAWYER, {0, 1, 2})
    assert g.sold == [0, 1, 0, 0, 0] and g.discard == [1, 1, 0, 0, 0]


def test_resource_cannot_be_suggested_without_enough_in_sold():
    g = table(7, SEVEN, sold=(1, 0, 0, 0, 0), top=["Interrogation"])
    assert not g.legal_action_mask()[g.A_RES + LAWYER]
    assert g.legal_action_mask()[g.A_RES + RED_TAPE]  # costs 1


def test_resource_must_be_printed_on_the_card():
    g = table(7, SEVEN, sold=(3, 3, 0, 0, 0), top=["Quiet Day"])
    mask = g.legal_action_mask()
    assert not any(mask[g.A_RES + r] for r in range(D.NUM_RESOURCES))


def test_lawyer_skips_the_election():
    g = table(7, SEVEN, sold=(2, 0, 0, 0, 0), top=["Interrogation"])
    suggest(g, LAWYER, {0, 1, 2})
    pass_window(g)
    assert g.round == 2 and not any(g.revealed)


def test_red_tape_delays_the_election_one_round():
    g = table(7, SEVEN, sold=(2, 0, 0, 0, 0), top=["Interrogation", "Quiet Day"])
    suggest(g, RED_TAPE, {0, 1, 2})
    pass_window(g)
    assert g.round == 2 and g.delayed and not any(g.revealed)
    pass_window(g)
    elect(g, lambda s: 5)
    assert g.revealed[5]


def test_ballot_box_turns_a_random_event_into_an_election():
    g = table(7, SEVEN, sold=(2, 0, 0, 0, 0), top=["Scapegoat"])
    suggest(g, BB, {0, 1, 2})
    assert g.ballot_box
    pass_window(g)
    assert g.phase in (D.PH_TALK, D.PH_ELECT)
    elect(g, lambda s: 4)
    assert g.revealed[4] and sum(g.revealed) == 1


def test_ballot_box_keeps_the_card_type_so_lawyer_and_red_tape_stay_unavailable():
    """FAQ: Scapegoat and Chosen One stay Random; they can't be negated or delayed this way."""
    for event in ("Scapegoat", "Chosen One"):
        g = table(7, SEVEN, sold=(5, 5, 0, 0, 0), top=[event])
        suggest(g, BB, {0, 1, 2})
        mask = g.legal_action_mask()
        assert not mask[g.A_RES + LAWYER] and not mask[g.A_RES + RED_TAPE]


def test_insurance_cancels_a_delayed_event_after_the_round_it_was_drawn():
    g = table(7, SEVEN, sold=(3, 3, 0, 0, 0), top=["Curse of the Pharaoh", "Quiet Day"])
    assert not g.legal_action_mask()[g.A_RES + INSURANCE]  # not in the round it is drawn
    pass_window(g)
    assert g.round == 2 and g.legal_action_mask()[g.A_RES + INSURANCE]
    suggest(g, INSURANCE, {0, 1, 2})
    assert not g.delayed and sum(g.discard) == 3


def test_each_resource_once_a_round():
    g = table(7, SEVEN, sold=(5, 5, 0, 0, 0), top=["Interrogation"])
    suggest(g, RED_TAPE, {0, 1, 2})
    assert not g.legal_action_mask()[g.A_RES + RED_TAPE]


# ----- sites ----------------------------------------------------------------------------------
def test_china_minority_is_silenced_next_round():
    g = table(7, SEVEN, site="china", top=[1, "Quiet Day"])
    pass_window(g)
    vote_all(g, lambda s: g.A_YES if s < 5 else g.A_NO, D.PH_KEEP)
    assert g.is_silenced(5) and g.is_silenced(6) and g.silenced_until[5] == 2
    assert not g.is_silenced(0)


def test_china_zombie_troop_two_winners_voting_for_either_is_majority():
    g = table(7, SEVEN, site="china", top=["Double Gag"])
    pass_window(g)
    choice = {0: 1, 1: 1, 2: 1, 3: 5, 4: 5, 5: 5, 6: 2}
    elect(g, lambda s: choice[s])
    for s in range(6):
        assert g.silenced_until[s] != 1 + 1 or s in (1, 5)  # voters for seat 1 or 5: majority
    assert g.silenced_until[6] == 2  # voted for a loser


def test_spain_hides_sold_and_discard():
    g = table(7, SEVEN, site="spain", sold=(2, 1, 0, 0, 0), discard=(0, 0, 1, 0, 0), top=["Quiet Day"])
    for p in range(7):
        v = g.observation_dict(p)
        assert not v["sold"].any() and not v["discard"].any()
        assert v["pile_sizes"][1] * 25 == 3 and v["pile_sizes"][2] * 25 == 1


def test_spain_pile_condition_is_not_announced_until_called():
    g = table(7, SEVEN, site="spain", sold=(2, 2, 2, 2, 1), top=[4])
    pass_window(g)
    vote_all(g, g.A_NO, D.PH_KEEP)  # the 2nd Chalice is Sold: the condition holds, unannounced
    assert not g.is_terminal() and g.looters_pile_condition()
    while g.phase != D.PH_WINDOW:
        act(g, g.A_PASS if g.legal_action_mask()[g.A_PASS] else int(np.flatnonzero(g.legal_action_mask())[0]))
    act(g, g.A_CALL)
    assert g.winner == D.LOOTERS


def test_spain_wrong_call_returns_a_discarded_piece_to_sold():
    g = table(7, SEVEN, site="spain", sold=(2, 0, 0, 0, 0), discard=(0, 1, 0, 0, 0), top=["Quiet Day"])
    act(g, g.A_CALL)
    assert not g.is_terminal() and g.sold == [2, 1, 0, 0, 0] and g.discard == [0] * 5
    assert not g.legal_action_mask()[g.A_CALL]  # one call a round


def test_greece_each_player_learns_the_next_seats_side():
    g = table(7, SEVEN, site="greece", top=["Quiet Day"])
    for p in range(7):
        ks = g.observation_dict(p)["known_sides"][1]
        assert ks[D.ROLE_SIDE[int(g.roles[(p + 1) % 7])]] == 1


# ----- discussion -----------------------------------------------------------------------------
def test_talk_tokens_before_an_election_are_public_at_once():
    g = table(7, SEVEN, top=["Interrogation"])
    pass_window(g)
    assert g.phase == D.PH_TALK
    speaker = g.current_player()
    act(g, g.A_ACCUSE + (4 - speaker) % 7)
    for p in range(7):
        assert g.observation_dict(p)["talk_last"][(speaker - p) % 7, (4 - p) % 7] == -1
    nxt = g.current_player()
    act(g, g.A_VOUCH + (2 - nxt) % 7)
    assert g.observation_dict(0)["talk_record"][(nxt - 0) % 7, 2] > 0
    talk_none(g)
    assert g.phase == D.PH_ELECT


def test_talk_off_means_silent_votes():
    g = table(7, SEVEN, talk=False, top=["Interrogation"])
    pass_window(g)
    assert g.phase == D.PH_ELECT


def test_silenced_players_do_not_discuss():
    g = table(7, SEVEN, top=["Interrogation"])
    put(g, "silenced_until", 3, 4)
    pass_window(g)
    talkers = []
    while g.phase == D.PH_TALK:
        talkers.append(g.current_player())
        act(g, g.A_PASS)
    assert 3 not in talkers and len(talkers) == 6
    finish_round(g)


def test_insurance_does_not_cancel_an_election_delayed_by_red_tape():
    g = table(7, SEVEN, sold=(3, 3, 0, 0, 0), top=["Interrogation", "Quiet Day"])
    suggest(g, RED_TAPE, {0, 1, 2})
    pass_window(g)
    assert g.round == 2 and g.delayed
    assert not g.legal_action_mask()[g.A_RES + INSURANCE]


def test_insurance_cancels_tribunal_a_delayed_election():
    g = table(7, SEVEN, sold=(3, 3, 0, 0, 0), top=["Tribunal", "Quiet Day", "Amnesty"])
    pass_window(g)
    assert g.round == 2 and g.legal_action_mask()[g.A_RES + INSURANCE]
    suggest(g, INSURANCE, {0, 1, 2})
    assert not g.delayed
    pass_window(g)
    assert g.round == 3 and not any(g.revealed)


def test_insurance_passes_over_a_red_taped_election_to_a_delayed_card():
    """With a Red-Taped Election and a Delayed card in play, Insurance cancels the Delayed card."""
    g = table(7, SEVEN, sold=(4, 4, 0, 0, 0), top=["Curse of the Pharaoh", "Interrogation", "Quiet Day"])
    pass_window(g)
    suggest(g, RED_TAPE, {0, 1, 2})
    pass_window(g)
    assert g.round == 3 and len(g.delayed) == 2
    suggest(g, INSURANCE, {0, 1, 2})
    assert [d[0] for d in g.delayed] == [D.EVENT_ID["Interrogation"]]
