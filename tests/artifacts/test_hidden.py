"""Hidden information: what each observation holds, resample_hidden, and the scripted baselines."""

from __future__ import annotations

import numpy as np

from envs.artifacts import data as D
from envs.artifacts import rules as R
from envs.artifacts.baseline import ScriptedArtifactsPolicy
from envs.artifacts.rules import Artifacts

from .util import SEVEN, TEN_FULL, act, pass_window, table


def test_observation_is_relative_and_holds_own_role():
    g = table(7, SEVEN, top=["Quiet Day"])
    for p in range(7):
        v = g.observation_dict(p)
        assert np.argmax(v["my_role"]) == g.roles[p]
        assert v["known_roles"][0, g.roles[p]] == 1


def test_plain_academic_sees_no_other_role():
    g = table(10, TEN_FULL, preference="full", top=["Quiet Day"])
    v = g.observation_dict(4)
    assert v["known_roles"][1:].sum() == 0 and v["known_sides"][1:].sum() == 0


def test_revealed_roles_are_public():
    g = table(7, SEVEN, top=["Quiet Day"])
    g._reveal(5)
    for p in range(7):
        assert g.observation_dict(p)["known_roles"][(5 - p) % 7, D.MAFIA_BOSS] == 1


def test_resample_keeps_what_the_possessed_knows_and_redeals_the_rest():
    g = table(
        7,
        ["Possessed", "Shaman", "Academic", "Academic", "Tomb Raider", "Tomb Raider", "Mafia Boss"],
        preference="basic",
        top=["Quiet Day"],
    )
    rng = np.random.default_rng(0)
    bosses = set()
    for _ in range(40):
        s = g.resample_hidden(0, rng)
        assert s.roles[0] == D.POSSESSED and s.roles[4] == s.roles[5] == D.TOMB_RAIDER
        bosses.add(int(np.flatnonzero(s.roles == D.MAFIA_BOSS)[0]))
        np.testing.assert_array_equal(s.observation(0), g.observation(0))
    assert bosses == {1, 2, 3, 6}


def test_resample_keeps_private_and_public_sides():
    g = table(10, TEN_FULL, preference="full", top=["Quiet Day"], start_round=2, first_seat=3)
    act(g, g.A_USE)
    act(g, g.A_SEAT + (9 - 3) % 10)  # the Detective checks the Forger: "Academic"
    g.cleared[4] = True
    rng = np.random.default_rng(1)
    forger_seen_elsewhere = False
    for _ in range(60):
        s = g.resample_hidden(3, rng)
        assert D.APPARENT_SIDE[int(s.roles[9])] == D.ACADEMICS
        assert D.ROLE_SIDE[int(s.roles[4])] == D.ACADEMICS
        forger_seen_elsewhere |= int(s.roles[9]) != D.FORGER
        np.testing.assert_array_equal(s.observation(3), g.observation(3))
    assert forger_seen_elsewhere


def test_resample_redraws_other_secret_ballots():
    g = table(7, SEVEN, top=[1])
    pass_window(g)
    voter = g.current_player()
    act(g, g.A_YES)
    rng = np.random.default_rng(2)
    other = (voter + 1) % 7
    ballots = {g.resample_hidden(other, rng).ballots[voter] for _ in range(30)}
    assert ballots == {g.A_YES, g.A_NO}
    assert {g.resample_hidden(voter, rng).ballots[voter] for _ in range(10)} == {g.A_YES}


def test_resample_reshuffles_the_draw_pile():
    g = table(7, SEVEN, top=["Quiet Day"])
    s = g.resample_hidden(0, np.random.default_rng(3))
    assert sorted(s.pile) == sorted(g.pile) and s.pile != g.pile


def test_spain_resample_redistributes_hidden_pieces_with_the_sizes_kept():
    g = table(7, SEVEN, site="spain", sold=(2, 1, 0, 0, 0), discard=(0, 0, 1, 0, 0), top=["Quiet Day"])
    seen = set()
    for i in range(20):
        s = g.resample_hidden(0, np.random.default_rng(i))
        s.check_invariants()
        assert sum(s.sold) == 3 and sum(s.discard) == 1
        seen.add(tuple(s.sold))
    assert len(seen) > 1


def test_scripted_baselines_play_legal_games_to_the_end():
    for n in (5, 7, 10):
        policy = ScriptedArtifactsPolicy(n, seed=0)
        for seed in range(5):
            g = Artifacts(rng=np.random.default_rng(seed), num_players=n)
            while not g.is_terminal():
                p = g.current_player()
                g.apply_action(policy(g.observation(p), g.legal_action_mask()))
            assert g.winner in (D.ACADEMICS, D.LOOTERS)


def test_scripted_academics_keep_the_artifact_they_collect_and_looters_sell():
    g = table(7, SEVEN, storage=(0, 2, 1, 0, 0), top=[1])
    pass_window(g)
    policy = ScriptedArtifactsPolicy(7)
    for _ in range(7):
        p = g.current_player()
        a = policy(g.observation(p), g.legal_action_mask())
        assert a == (g.A_NO if D.ROLE_SIDE[int(g.roles[p])] == D.LOOTERS else g.A_YES)
        act(g, a)


def test_scripted_mafia_boss_kills_a_revealed_possessed():
    g = table(7, SEVEN, top=["Quiet Day"], start_round=2, first_seat=5)
    g.revealed[0] = True
    policy = ScriptedArtifactsPolicy(7)
    act(g, policy(g.observation(5), g.legal_action_mask()))
    assert g.phase == R.PH_TARGET
    act(g, policy(g.observation(5), g.legal_action_mask()))
    assert g.winner == D.LOOTERS


def test_rgb_picture():
    g = table(7, SEVEN, storage=(1, 2, 0, 0, 0), sold=(1, 0, 0, 0, 0), top=["Quiet Day"])
    g._reveal(5)
    pic = g.render_rgb()
    assert pic.dtype == np.uint8 and pic.ndim == 3 and pic.shape[0] > 200 and pic.shape[1] > 300
    assert len(np.unique(pic.reshape(-1, 3), axis=0)) > 8
