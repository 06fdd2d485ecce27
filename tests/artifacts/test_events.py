"""One test per event card: the card is drawn in a chosen situation and its outcome asserted."""

from __future__ import annotations

import numpy as np
import pytest

from envs.artifacts import data as D

from .util import SEVEN, act, elect, finish_round, pass_window, put, table, talk_none, vote_all


def draw(event, **kw):
    kw.setdefault("roles", SEVEN)
    g = table(7, top=[event] + kw.pop("then", []), **kw)
    pass_window(g)
    return g


def test_every_event_has_a_test():
    tested = {name[5:] for name in globals() if name.startswith("test_")}
    for e in D.EVENTS:
        key = e.name.lower().replace(" ", "_")
        assert key in tested, f"no test for {e.name}"


def test_storage_expansion():
    g = draw("Storage Expansion", storage=(2, 2, 1, 0, 0), then=[3])
    assert g.capacity == 6  # resolved; round 2 (Bronze Helm) has begun
    pass_window(g)
    vote_all(g, g.A_YES, D.PH_KEEP)
    assert sum(g.storage) == 6 and g.phase != D.PH_OVERFLOW  # the 6th piece fits


def test_storage_expansion_is_nulled_while_borrow_exhibit_is_active():
    g = draw("Borrow Exhibit", then=["Storage Expansion"])
    assert g.round == 2 and g.nulled and g.storage_event == D.EVENT_ID["Borrow Exhibit"]


def test_borrow_exhibit():
    g = draw("Borrow Exhibit", storage=(0, 2, 1, 0, 0), then=["Quiet Day", "Amnesty"])
    assert g.storage_event == D.EVENT_ID["Borrow Exhibit"]
    assert g.round == 2 and g.storage == [0, 2, 1, 0, 0]  # Delayed: nothing in the round it is drawn
    finish_round(g)
    assert g.storage == [0, 3, 1, 0, 0] and g.capacity == 6


def test_borrow_exhibit_is_nulled_while_storage_expansion_is_active():
    g = draw("Storage Expansion", then=["Borrow Exhibit"])
    assert g.round == 2 and g.nulled and not g.delayed


def test_foxfire():
    g = draw("Foxfire", first_seat=0)
    assert g.phase == D.PH_FOXFIRE and g.current_player() == 0
    act(g, g.A_ROLE + D.MAFIA_BOSS)
    assert g.revealed[5]


def test_foxfire_may_name_revealed_and_dead_roles():
    g = draw("Foxfire", first_seat=0)
    put(g, "alive", 2, False)  # the Curator is dead (and so Revealed)
    put(g, "revealed", 2, True)
    mask = g.legal_action_mask()
    assert mask[g.A_ROLE + D.CURATOR] and not mask[g.A_ROLE + D.FORGER]  # only roles in play
    revealed = g.revealed
    act(g, g.A_ROLE + D.CURATOR)
    assert g.revealed == revealed  # nothing new


def test_scapegoat():
    g = draw("Scapegoat")
    finish_round(g)
    assert sum(g.revealed) == 1


def test_chosen_one():
    g = draw("Chosen One")
    assert g.phase == D.PH_PEEK
    p = g.current_player()
    t = (p + 1) % 7
    act(g, g.A_SEAT + 1)
    assert (p, t) in g.peeks
    assert g.observation_dict(p)["known_sides"][1].sum() == 1


def test_interrogation():
    g = draw("Interrogation")
    elect(g, lambda s: 4)
    assert g.revealed[4]


def test_election_ties_are_broken_at_random():
    winners = set()
    for seed in range(12):
        g = draw("Interrogation", seed=seed)
        elect(g, lambda s: 4 if s % 2 else 2)  # 3 votes for seat 4, 4 for seat 2
        winners.add(tuple(i for i in (2, 4) if g.revealed[i]))
    assert winners == {(2,)}
    winners = set()
    for seed in range(12):
        g = table(
            6,
            ["Possessed", "Shaman", "Curator", "Academic", "Tomb Raider", "Mafia Boss"],
            top=["Interrogation"],
            seed=seed,
        )
        pass_window(g)
        elect(g, lambda s: 4 if s % 2 else 2)
        winners.add(tuple(i for i in (2, 4) if g.revealed[i]))
    assert {(2,), (4,)} <= winners


def test_gag_order():
    g = draw("Gag Order")
    elect(g, lambda s: 3)
    assert g.silenced_until[3] == 1 + 3
    finish_round(g)
    assert g.is_silenced(3)


def test_night_watch():
    g = draw("Night Watch")
    elect(g, lambda s: 2)
    assert g.phase == D.PH_PEEK and g.current_player() == 2
    act(g, g.A_SEAT + (6 - 2) % 7)
    assert (2, 6) in g.peeks


def test_double_gag():
    g = draw("Double Gag")
    elect(g, lambda s: 1 if s < 4 else 5)
    assert g.is_silenced(1) and g.is_silenced(5) and g.silenced_until[1] == 1 + 2


def test_trial_by_ordeal():
    g = draw("Trial by Ordeal")
    elect(g, lambda s: 4)
    assert not g.alive[4] and g.revealed[4]


def test_curse_of_the_pharaoh():
    g = draw("Curse of the Pharaoh", then=["Quiet Day", "Amnesty", "Police Raid"], seed=3)
    finish_round(g)
    assert all(g.alive)
    finish_round(g)  # resolves at the end of the second round after it
    assert sum(g.alive) == 6 or g.winner == D.LOOTERS


def test_pickpocket():
    g = draw("Pickpocket")
    finish_round(g)
    silenced = [s for s in range(7) if g.silenced_until[s] == 1 + 2]
    assert len(silenced) == 1


def test_stage_fright():
    g = draw("Stage Fright")
    finish_round(g)
    assert sum(1 for s in range(7) if g.silenced_until[s] == 2) == 2


def test_restoration_grant():
    g = draw("Restoration Grant", sold=(0, 1, 2, 0, 0))
    assert g.phase == D.PH_RESTORE
    mask = g.legal_action_mask()
    assert [a for a in range(5) if mask[g.A_ART + a]] == [1, 2]
    vote_all(g, g.A_ART + 2)
    assert g.sold == [0, 1, 1, 0, 0] and g.storage[2] == 1


def test_private_donation():
    g = draw("Private Donation")
    vote_all(g, g.A_ART + 4, D.PH_DONATION)
    assert g.storage[4] == 1
    g.check_invariants()


def test_museum_theft():
    g = draw("Museum Theft", storage=(1, 2, 0, 0, 0))
    vote_all(g, g.A_ART + 1, D.PH_THEFT)
    assert g.storage == [1, 1, 0, 0, 0] and g.discard[1] == 1


def test_black_market():
    g = draw("Black Market", sold=(2, 2, 0, 2, 2), discard=(0, 0, 1, 0, 0))
    assert g.sold[2] + g.discard[2] == 2 and g.sold[2] == 1  # the artifact Sold + Discard lacks most


def test_police_raid():
    g = draw("Rumour Mill", then=["Police Raid"])
    assert g.delayed  # Rumour Mill waits
    finish_round(g)
    assert not g.delayed and sum(g.revealed) == 0


RED_TAPE_ELECTIONS = [e.name for e in D.EVENTS if D.RED_TAPE in e.resources]


def red_tape(g):
    """The first window player suggests Red Tape for this round's Election; seats 0-2 agree."""
    act(g, g.A_RES + D.RED_TAPE)
    vote_all(g, lambda s: g.A_YES if s in (0, 1, 2) else g.A_NO, D.PH_AGREE)
    assert g.red_tape


@pytest.mark.parametrize("event", RED_TAPE_ELECTIONS)
def test_police_raid_leaves_a_red_taped_election(event):
    """Cancel Status is for cards with the Delayed icon: a Red-Taped Election still resolves."""
    g = table(7, SEVEN, sold=(3, 3, 0, 0, 0), top=[event, "Police Raid", "Quiet Day"])
    red_tape(g)
    pass_window(g)
    assert g.round == 2 and [d[0] for d in g.delayed] == [D.EVENT_ID[event]]
    pass_window(g)  # Police Raid resolves, then the Red-Taped Election at the end of round 2
    assert g.round == 2 and g.phase in (D.PH_TALK, D.PH_ELECT)


def test_police_raid_cancels_delayed_cards_but_not_a_red_taped_election():
    g = table(
        7,
        SEVEN,
        sold=(3, 3, 0, 0, 0),
        top=["Curse of the Pharaoh", "Interrogation", "Police Raid", "Quiet Day"],
    )
    pass_window(g)  # round 1: the Curse waits two rounds
    red_tape(g)
    pass_window(g)  # round 2: the Interrogation is Red-Taped
    assert sorted(d[0] for d in g.delayed) == sorted(
        D.EVENT_ID[e] for e in ("Curse of the Pharaoh", "Interrogation")
    )
    pass_window(g)  # round 3: Police Raid cancels the Curse; the Interrogation is held at the end of round 3
    assert g.round == 3 and g.phase in (D.PH_TALK, D.PH_ELECT) and not g.delayed
    elect(g, lambda s: 5)
    assert g.revealed[5] and all(g.alive)  # the Interrogation happened, the Curse did not


def test_police_raid_cancels_tribunal():
    """Tribunal is an Election printed with the Delayed icon: a Delayed event, cancelled."""
    g = draw("Tribunal", then=["Police Raid", "Quiet Day"])
    assert g.delayed
    pass_window(g)
    assert g.round == 3 and not g.delayed and not any(g.revealed)


def test_amnesty():
    g = table(7, SEVEN, top=["Amnesty"])
    g.silenced_until = (5,) * 7
    pass_window(g)
    assert not any(g.is_silenced(s) for s in range(7))


def test_quiet_day():
    g = draw("Quiet Day", storage=(1, 1, 0, 0, 0), sold=(1, 0, 0, 0, 0))
    assert g.round == 2
    assert g.storage == [1, 1, 0, 0, 0] and g.sold == [1, 0, 0, 0, 0] and not any(g.revealed)


def test_rumour_mill():
    g = draw("Rumour Mill", then=["Quiet Day"])
    assert sum(g.revealed) == 0
    finish_round(g)
    assert sum(g.revealed) == 1


def test_tribunal():
    g = draw("Tribunal", then=["Quiet Day"])
    assert g.delayed and g.delayed[0][0] == D.EVENT_ID["Tribunal"]
    pass_window(g)
    # the election is held at the end of the next round
    while g.phase != D.PH_TALK and g.phase != D.PH_ELECT:
        act(g, int(np.flatnonzero(g.legal_action_mask())[0]))
    talk_none(g)
    elect(g, lambda s: 6)
    assert g.revealed[6]


def test_sealed_crate():
    g = draw("Sealed Crate", then=["Quiet Day", "Amnesty"])
    finish_round(g)
    while g.phase != D.PH_DONATION:
        act(g, g.A_PASS)
    vote_all(g, g.A_ART + 3, D.PH_DONATION)
    assert g.storage[3] == 1


def test_smuggling_ring():
    g = draw("Smuggling Ring", sold=(2, 2, 2, 2, 0), then=["Quiet Day"])
    assert g.sold[4] == 0
    finish_round(g)
    assert g.sold[4] == 1


def test_lost_map():
    g = draw("Lost Map", first_seat=4)
    assert g.phase == D.PH_PEEK and g.current_player() == 4
    act(g, g.A_SEAT + (0 - 4) % 7)
    ks = g.observation_dict(4)["known_sides"][(0 - 4) % 7]
    assert ks[D.ACADEMICS] == 1
