"""Set-up, the round, artifact votes, Storage, the win conditions and their order, the empty pile."""

from __future__ import annotations

import numpy as np

from envs.artifacts import data as D
from envs.artifacts.rules import Artifacts

from .util import FIVE_BASIC, SEVEN, act, finish_round, kill, pass_window, put, table, vote_all

JADE, MASK, SKULL, HELM, CHALICE = range(5)


def test_setup_storage_3_sold_2_and_the_draw_pile():
    for seed in range(5):
        g = Artifacts(rng=np.random.default_rng(seed), num_players=7)
        assert sum(g.storage) == 3 and sum(g.sold) == 2 and sum(g.discard) == 0
        # 45 cards in the pile before the first draw: 20 artifacts + 25 events
        assert len(g.pile) + 1 == 45
        g = Artifacts(rng=np.random.default_rng(seed), num_players=7, sold_start=False)
        assert sum(g.storage) == 3 and sum(g.sold) == 0 and len(g.pile) + 1 == 47


def test_roles_are_dealt_from_the_chart_at_random():
    seen = set()
    for seed in range(20):
        g = Artifacts(rng=np.random.default_rng(seed), num_players=7)
        assert sorted(g.roles.tolist()) == list(D.role_chart(7, "standard"))
        seen.add(int(np.flatnonzero(g.roles == D.POSSESSED)[0]))
    assert len(seen) > 3


def test_drawing_passes_to_the_next_living_seat():
    g = table(7, SEVEN, top=["Quiet Day"] * 1 + ["Amnesty", "Police Raid"], first_seat=5)
    assert g.drawer == 5
    put(g, "alive", 6, False)
    put(g, "revealed", 6, True)
    finish_round(g)
    assert g.drawer == 0  # seat 6 is dead and skipped


def test_round_window_every_living_player_once_from_the_drawer():
    g = table(7, SEVEN, top=["Quiet Day"], first_seat=3)
    order = []
    while g.phase == D.PH_WINDOW and g.round == 1:
        order.append(g.current_player())
        act(g, g.A_PASS)
    assert order == [3, 4, 5, 6, 0, 1, 2]


def test_keep_vote_majority_keeps_into_storage():
    g = table(7, SEVEN, storage=(1, 1, 1, 0, 0), top=[HELM], first_seat=0)
    pass_window(g)
    assert g.phase == D.PH_KEEP
    vote_all(g, lambda s: g.A_YES if s < 4 else g.A_NO)
    assert g.storage[HELM] == 1 and g.sold[HELM] == 0


def test_keep_vote_tie_goes_to_disagree_sell():
    g = table(6, ["Possessed", "Shaman", "Curator", "Academic", "Tomb Raider", "Mafia Boss"], top=[HELM])
    pass_window(g)
    vote_all(g, lambda s: g.A_YES if s < 3 else g.A_NO)
    assert g.storage[HELM] == 0 and g.sold[HELM] == 1


def test_votes_are_secret_until_the_vote_closes():
    g = table(7, SEVEN, top=[HELM])
    pass_window(g)
    first = g.current_player()
    before = [g.observation(p) for p in range(7)]
    act(g, g.A_YES)
    lay = g.observation_layout
    for p in range(7):
        after = g.observation(p)
        same = [
            x.name for x in lay if x.name != "to_act" and np.array_equal(after[x.slice], before[p][x.slice])
        ]
        assert len(same) == len(lay.pieces) - 1, f"player {p} saw something of a secret ballot"
    vote_all(g, g.A_NO)
    last = g.observation_dict(0)["last_vote"]
    assert last[(first - 0) % 7, 0] == 1  # the first voter's yes is public now
    assert last[:, 1].sum() == 6


def test_silenced_and_dead_players_do_not_vote():
    g = table(7, SEVEN, top=[HELM])
    put(g, "silenced_until", 2, 5)
    put(g, "alive", 3, False)
    put(g, "revealed", 3, True)
    pass_window(g)
    voters = []
    while g.phase == D.PH_KEEP:
        voters.append(g.current_player())
        act(g, g.A_YES)
    assert sorted(voters) == [0, 1, 4, 5, 6]


def test_sixth_kept_piece_forces_a_sale_of_one_of_the_other_five():
    g = table(7, SEVEN, storage=(2, 2, 1, 0, 0), top=[HELM])
    pass_window(g)
    vote_all(g, g.A_YES)
    assert g.phase == D.PH_OVERFLOW
    mask = g.legal_action_mask()
    options = [a for a in range(5) if mask[g.A_ART + a]]
    assert options == [JADE, MASK, SKULL]  # the new Bronze Helm is not among the others
    vote_all(g, g.A_ART + SKULL)
    assert g.storage == [2, 2, 0, 1, 0] and g.sold[SKULL] == 1


def test_extra_sale_vote_after_an_artifact():
    g = table(7, SEVEN, storage=(2, 1, 0, 0, 0), top=[HELM])
    pass_window(g)
    vote_all(g, g.A_NO)
    assert g.phase == D.PH_EXTRA
    vote_all(g, lambda s: g.A_ART + MASK if s < 4 else g.A_PASS)
    assert g.storage[MASK] == 0 and g.sold[MASK] == 1


def test_extra_sale_tie_with_none_sells_nothing():
    g = table(
        6,
        ["Possessed", "Shaman", "Curator", "Academic", "Tomb Raider", "Mafia Boss"],
        storage=(2, 1, 0, 0, 0),
        top=[HELM],
    )
    pass_window(g)
    vote_all(g, g.A_NO)
    vote_all(g, lambda s: g.A_ART + MASK if s < 3 else g.A_PASS)
    assert g.storage == [2, 1, 0, 0, 0]


def test_pieces_are_sold_only_when_an_artifact_is_drawn():
    g = table(7, SEVEN, storage=(2, 1, 0, 0, 0), top=["Quiet Day"])
    phases = set()
    r = g.round
    while g.round == r:
        phases.add(g.phase)
        act(g, int(np.flatnonzero(g.legal_action_mask())[0]))
    assert D.PH_EXTRA not in phases and D.PH_KEEP not in phases


def test_academics_win_with_four_pieces_of_one_artifact():
    g = table(7, SEVEN, storage=(3, 0, 0, 0, 0), top=[JADE])
    pass_window(g)
    vote_all(g, g.A_YES)
    assert g.is_terminal() and g.winner == D.ACADEMICS
    assert list(g.returns()) == [1, 1, 1, 1, -1, -1, -1]


def test_academics_win_when_every_looter_is_revealed():
    g = table(7, SEVEN, top=["Scapegoat"])
    put(g, "revealed", 4, True)
    put(g, "revealed", 5, True)
    g._reveal(6)
    assert g.winner == D.ACADEMICS and "Revealed" in g.end_reason


def test_looters_win_with_two_of_each_in_sold_and_discard():
    g = table(7, SEVEN, sold=(2, 2, 1, 1, 1), discard=(0, 0, 1, 1, 0), top=[CHALICE])
    pass_window(g)
    vote_all(g, g.A_NO)
    assert g.winner == D.LOOTERS and list(g.returns()) == [-1, -1, -1, -1, 1, 1, 1]


def test_looters_win_when_the_possessed_dies():
    g = table(7, SEVEN, top=["Quiet Day"])
    kill(g, 0)
    assert g.winner == D.LOOTERS and "Possessed" in g.end_reason


def test_order_of_execution_boss_kills_possessed_as_last_hidden_looter():
    """Role Ability, then Reveal Role: the kill (Looters) comes before the Boss's Reveal (Academics)."""
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=5)
    put(g, "revealed", 4, True)
    put(g, "revealed", 6, True)
    assert g.current_player() == 5
    act(g, g.A_USE)
    assert g.phase == D.PH_TARGET
    act(g, g.A_SEAT + (0 - 5) % 7)
    assert g.winner == D.LOOTERS


def test_empty_draw_pile_academics_win_with_three_of_one_artifact():
    # every piece is out of the pile; under Spain the Looters' pile condition waits for a Call
    others = [e.name for e in D.EVENTS if e.name != "Quiet Day"]
    g = table(
        5,
        FIVE_BASIC,
        preference="basic",
        site="spain",
        storage=(3, 1, 0, 0, 0),
        sold=(2, 4, 5, 5, 5),
        top=["Quiet Day"],
        events_gone=others,
    )
    assert len(g.pile) == 0
    finish_round(g)
    assert g.winner == D.ACADEMICS and "empty" in g.end_reason


def test_empty_draw_pile_looters_win_otherwise():
    others = [e.name for e in D.EVENTS if e.name != "Quiet Day"]
    g = table(
        5,
        FIVE_BASIC,
        preference="basic",
        site="spain",
        storage=(2, 2, 0, 0, 0),
        sold=(3, 3, 5, 5, 5),
        top=["Quiet Day"],
        events_gone=others,
    )
    finish_round(g)
    assert g.winner == D.LOOTERS and "empty" in g.end_reason


def test_returns_are_zero_until_the_end():
    g = table(7, SEVEN, top=["Quiet Day"])
    assert not g.returns().any()


def test_dead_player_is_revealed_and_cannot_be_elected():
    g = table(7, SEVEN, top=["Interrogation"])
    kill(g, 2)
    assert g.revealed[2] and not g.alive[2]
    pass_window(g)
    while g.phase == D.PH_TALK:
        act(g, g.A_PASS)
    assert g.phase == D.PH_ELECT
    p = g.current_player()
    assert not g.legal_action_mask()[g.A_SEAT + (2 - p) % 7]
    assert g.legal_action_mask()[g.A_SEAT]  # one may elect oneself


def test_artifact_votes_have_no_discussion():
    g = table(7, SEVEN, storage=(1, 0, 0, 0, 0), top=[HELM])
    phases = set()
    while g.round == 1:
        phases.add(g.phase)
        act(g, int(np.flatnonzero(g.legal_action_mask())[0]))
    assert D.PH_KEEP in phases and D.PH_TALK not in phases


def test_the_pile_is_shuffled_after_a_search():
    orders = set()
    for seed in range(4):
        g = table(7, SEVEN, top=["Private Donation"], seed=0)
        g.rng = np.random.default_rng(seed)
        pass_window(g)
        vote_all(g, g.A_ART + HELM, D.PH_DONATION)
        orders.add(tuple(g.pile))
    assert len(orders) > 1


def test_dead_mafia_boss_may_still_hit():
    g = table(7, SEVEN, top=["Trial by Ordeal"])
    pass_window(g)
    from .util import elect

    elect(g, lambda s: 5)
    assert not g.alive[5] and g.phase == D.PH_DEATH and g.current_player() == 5
    act(g, g.A_USE)
    act(g, g.A_SEAT + (0 - 5) % 7)
    assert g.winner == D.LOOTERS


def test_piece_vote_ties_are_broken_at_random():
    results = set()
    for seed in range(12):
        g = table(
            6,
            ["Possessed", "Shaman", "Curator", "Academic", "Tomb Raider", "Mafia Boss"],
            storage=(2, 2, 1, 0, 0),
            top=[HELM],
            seed=seed,
        )
        pass_window(g)
        vote_all(g, g.A_YES, D.PH_KEEP)
        vote_all(g, lambda s, g=g: g.A_ART + (JADE if s < 3 else MASK), D.PH_OVERFLOW)
        results.add((g.storage[JADE], g.storage[MASK]))
    assert results == {(1, 2), (2, 1)}


def test_closed_votes_are_recorded_per_player():
    g = table(7, SEVEN, storage=(1, 0, 0, 0, 0), top=[HELM])
    pass_window(g)
    vote_all(g, lambda s: g.A_YES if s < 5 else g.A_NO, D.PH_KEEP)
    for p in (0, 3):
        v = g.observation_dict(p)
        for s in range(7):
            k = (s - p) % 7
            np.testing.assert_allclose(
                v["keep_sell_record"][k] * D.MAX_ARTIFACT_DRAWS, [1, 0] if s < 5 else [0, 1]
            )
            np.testing.assert_allclose(
                v["majority_record"][k] * D.VOTES_PER_SEAT, [1, 0] if s < 5 else [0, 1]
            )
            assert v["last_vote"][k, 0 if s < 5 else 1] == 1
