"""Hidden information: what each observation holds, resample_hidden, and the scripted baselines."""

from __future__ import annotations

import numpy as np

from envs.artifacts import data as D
from envs.artifacts.baseline import ScriptedArtifactsPolicy
from envs.artifacts.rules import Artifacts
from envs.artifacts.vault import Vault

from .util import SEVEN, TEN_FULL, act, pass_window, put, table, vote_all


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
    put(g, "cleared", 4, True)
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
    put(g, "revealed", 0, True)
    policy = ScriptedArtifactsPolicy(7)
    act(g, policy(g.observation(5), g.legal_action_mask()))
    assert g.phase == D.PH_TARGET
    act(g, policy(g.observation(5), g.legal_action_mask()))
    assert g.winner == D.LOOTERS


def test_rgb_picture():
    g = table(7, SEVEN, storage=(1, 2, 0, 0, 0), sold=(1, 0, 0, 0, 0), top=["Quiet Day"])
    g._reveal(5)
    pic = g.render_rgb()
    assert pic.dtype == np.uint8 and pic.ndim == 3 and pic.shape[0] > 200 and pic.shape[1] > 300
    assert len(np.unique(pic.reshape(-1, 3), axis=0)) > 8


def revealed_teams(g: Artifacts, p: int) -> dict[int, int]:
    """The true team of every seat whose team the rules told p: own, Revealed, awareness, public clears."""
    out = {s: D.ROLE_SIDE[int(g.roles[s])] for s in range(g.num_players) if g.knows_role(p, s)}
    out.update({s: D.ACADEMICS for s in range(g.num_players) if g.cleared[s]})
    return out


def test_teams_are_the_dealt_sides():
    g = table(7, SEVEN, top=["Quiet Day"])
    assert g.teams() == [D.ACADEMICS] * 4 + [D.LOOTERS] * 3


def test_resample_keeps_every_team_revealed_to_the_player_and_redraws_the_others():
    # seat 0 the Possessed knows the Tomb Raider (seat 4); the Smuggler (6) is Revealed; seat 1 cleared
    g = table(7, SEVEN, top=["Quiet Day"])
    g._reveal(6)
    put(g, "cleared", 1, True)
    rng = np.random.default_rng(4)
    known = revealed_teams(g, 0)
    assert known == {0: D.ACADEMICS, 1: D.ACADEMICS, 4: D.LOOTERS, 6: D.LOOTERS}
    seen = {s: set() for s in range(7)}
    for _ in range(60):
        teams = g.resample_hidden(0, rng).teams()
        for s, team in known.items():
            assert teams[s] == team
        for s in range(7):
            seen[s].add(teams[s])
    # the others (seats 2, 3, 5: two Academics and the Mafia Boss among them) are re-dealt
    assert all(seen[s] == {D.ACADEMICS, D.LOOTERS} for s in (2, 3, 5))


def test_resample_keeps_revealed_teams_in_random_games():
    """In random games of every configuration, teams()[p] and every team revealed to p stay, and the
    teams p was not told change in some draws."""
    from envs.artifacts_v0 import SPEC

    rng = np.random.default_rng(8)
    for cfg in SPEC.test_configs:
        changed, seed = 0, 0
        g = Artifacts(rng=np.random.default_rng(seed), **cfg)
        while g.num_decisions < 30:
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
            if g.is_terminal():  # a short game: take the next deal
                seed += 1
                g = Artifacts(rng=np.random.default_rng(seed), **cfg)
        for p in range(g.num_players):
            known = revealed_teams(g, p)
            for _ in range(10):
                teams = g.resample_hidden(p, rng).teams()
                assert all(teams[s] == team for s, team in known.items())
                changed += teams != g.teams()
        assert changed > 0, cfg


def test_resample_keeps_a_public_clear_that_the_player_also_checked_privately():
    """A seat cleared by the Shaman is a true Academic, even when p's own check of it saw "Academic"
    (which the Forger would also show): both constraints hold together."""
    g = table(10, TEN_FULL, preference="full", top=["Quiet Day"], start_round=2, first_seat=3)
    act(g, g.A_USE)
    act(g, g.A_SEAT + (4 - 3) % 10)  # the Detective checks seat 4, an Academic
    put(g, "cleared", 4, True)
    g.touch()
    rng = np.random.default_rng(5)
    for _ in range(200):
        s = g.resample_hidden(3, rng)
        assert D.ROLE_SIDE[int(s.roles[4])] == D.ACADEMICS and s.teams()[4] == D.ACADEMICS


# ----- Spain: resampling keeps what the public history tells of the face-down piles -----------------
def spain_samples(g: Artifacts, count: int = 40, seed: int = 0) -> list[Artifacts]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        s = g.resample_hidden(i % g.num_players, rng)
        s.check_invariants()
        np.testing.assert_array_equal(s.observation(i % g.num_players), g.observation(i % g.num_players))
        out.append(s)
    return out


def test_spain_a_piece_sold_by_vote_stays_known():
    g = table(7, SEVEN, site="spain", sold_start=False, top=[2, "Quiet Day"])
    pass_window(g)
    vote_all(g, g.A_NO, D.PH_KEEP)  # the Crystal Skull is sold, face down
    assert g.sold == [0, 0, 1, 0, 0]
    for s in spain_samples(g):
        assert s.sold == [0, 0, 1, 0, 0] and s.discard == [0] * 5
    # a memoryless agent sees the deduction: one Crystal Skull in Sold, at fewest and at most
    np.testing.assert_allclose(g.observation_dict(0)["vault"][2], [0.2, 0.2, 0, 0])
    assert not g.observation_dict(0)["sold"].any()


def test_spain_a_random_payment_keeps_what_sold_and_discard_hold_together():
    """Two known Jade Dragons in Sold; Red Tape costs one random piece of Sold: one Jade in each pile."""
    g = table(7, SEVEN, site="spain", sold_start=False, top=[0, 0, "Interrogation", "Quiet Day"])
    for _ in range(2):
        pass_window(g)
        vote_all(g, g.A_NO, D.PH_KEEP)
        vote_all(g, g.A_PASS, D.PH_EXTRA)
    assert g.round == 3 and g.sold == [2, 0, 0, 0, 0]
    act(g, g.A_RES + D.RED_TAPE)
    vote_all(g, lambda s: g.A_YES if s < 3 else g.A_NO, D.PH_AGREE)
    assert g.red_tape and g.discard == [1, 0, 0, 0, 0]
    for s in spain_samples(g):
        assert s.sold == [1, 0, 0, 0, 0] and s.discard == [1, 0, 0, 0, 0]


def test_spain_a_search_that_finds_nothing_empties_the_pile_of_that_artifact():
    """Private Donation for the Bronze Helm finds none: every unseen Bronze Helm is in Sold or Discard."""
    g = table(7, SEVEN, site="spain", sold=(0, 0, 0, 3, 0), discard=(0, 0, 0, 2, 0), top=["Private Donation"])
    g.vault = Vault.unknown(g.hidden_pieces(), 3, 2)  # the public knows only the sizes
    pass_window(g)
    vote_all(g, g.A_ART + 3, D.PH_DONATION)
    assert g.storage[3] == 0
    samples = spain_samples(g)
    for s in samples:
        assert s.sold[3] + s.discard[3] == 5
        assert not any(c // 5 == 3 for c in s.pile if c < D.NUM_ARTIFACT_CARDS)


def test_spain_a_wrong_call_tells_the_looters_condition_did_not_hold():
    g = table(7, SEVEN, site="spain", sold=(2, 2, 2, 2, 1), discard=(1, 0, 0, 0, 0), top=["Quiet Day"])
    g.vault = Vault.unknown(g.hidden_pieces(), 9, 1)  # the public knows only the sizes
    assert any(all(c[a] + c[5 + a] >= 2 for a in range(5)) for c in g.vault.configs)
    act(g, g.A_CALL)  # wrong: only one Silver Chalice
    assert not g.is_terminal()
    for s in spain_samples(g, 80):
        assert not s.looters_pile_condition()
