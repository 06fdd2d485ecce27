"""Saved positions of Artifacts: every position along games passes check_position; a position edited by
hand, as a user would (a piece moved between piles, a seat's flag or count changed, a decision handed
to another seat, a step the rules never take), loads into a consistent game that plays on by the
rules, or is refused with a PositionError naming the rule it breaks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.artifacts import data as D
from envs.artifacts.rules import Artifacts
from envs.core import PositionError

from .util import SEVEN, act, kill, pass_window, table, vote_all


def saved(g: Artifacts) -> dict:
    """The position as a file holds it (through JSON)."""
    return json.loads(json.dumps(g.to_dict()))


def refused(data: dict, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        Artifacts.from_dict(data)


def play_out(g: Artifacts, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    while not g.is_terminal():
        g.check_invariants()
        legal = np.flatnonzero(g.legal_action_mask())
        g.apply_action(int(legal[rng.integers(len(legal))]))


def keep_vote(voted: int = 1, storage=(2, 1, 0, 0, 0)) -> Artifacts:
    """Round 1 of a 7-player table: a Jade Dragon drawn, the window passed, `voted` voters have said
    yes to keeping it."""
    g = table(7, SEVEN, storage=storage, top=[0])
    pass_window(g)
    for _ in range(voted):
        act(g, g.A_YES)
    return g


@pytest.mark.parametrize(
    "cfg",
    [
        dict(num_players=5, preference="basic", sold_start=False, talk=False),
        dict(num_players=7, site="china"),
        dict(num_players=7, site="spain"),
        dict(num_players=10, preference="full", site="greece"),
    ],
)
def test_every_position_along_games_is_one_the_rules_allow(cfg):
    rng = np.random.default_rng(3)
    for seed in range(2):
        g = Artifacts(rng=np.random.default_rng(seed), **cfg)
        while True:
            g.check_position()
            if g.is_terminal():
                break
            if rng.random() < 0.05:  # and a saved one loads back to the same table
                loaded = Artifacts.from_dict(saved(g))
                assert loaded.to_string() == g.to_string()
                assert np.array_equal(loaded.observation(0), g.observation(0))
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))


# ===== edits that keep to the rules load, and the game goes on by them ============================
def test_a_position_where_the_next_ballot_wins_is_won_by_it():
    """Hand-made: the saved keep vote, with a Jade Dragon moved from the draw pile into Storage and a
    Golden Mask from Storage into the pile. Storage then holds 3 Jade Dragons and the card drawn is a
    fourth: the last voter's yes keeps it and the Academics win at once."""
    g = keep_vote(voted=6)
    assert g.phase == D.PH_KEEP
    data = saved(g)
    state = data["state"]
    assert state["storage"] == [2, 1, 0, 0, 0] and g.card < D.PIECES_PER_ARTIFACT
    jade = next(c for c in state["pile"] if c < 5)
    mask = next(c for c in range(5, 10) if c not in state["pile"])
    state["pile"][state["pile"].index(jade)] = mask
    state["storage"] = [3, 0, 0, 0, 0]
    won = Artifacts.from_dict(data)
    assert won.observation_dict(0)["storage"][0] == pytest.approx(3 / 5)
    last = won.current_player()
    won.apply_action(won.A_YES, player=last)
    assert won.is_terminal() and won.winner == D.ACADEMICS
    assert won.log[-1] == "Academics win: 4 pieces of Jade Dragon in Storage"
    g.apply_action(g.A_YES, player=last)  # the game as it was: 3 Jade Dragons, and it goes on
    assert not g.is_terminal() and g.storage[0] == 3


def test_a_piece_moved_from_storage_to_sold_loads_and_the_game_plays_on():
    g = table(7, SEVEN, storage=(2, 1, 0, 0, 0))
    data = saved(g)
    data["state"]["storage"][1] -= 1
    data["state"]["sold"][1] += 1
    moved = Artifacts.from_dict(data)
    assert moved.storage == [2, 0, 0, 0, 0] and moved.sold == [0, 1, 0, 0, 0]
    assert moved.observation_dict(3)["sold"][1] == pytest.approx(1 / 5)
    play_out(moved)


def test_two_hidden_roles_swapped_load_as_a_consistent_deal():
    g = table(7, SEVEN)
    data = saved(g)
    roles = data["state"]["roles"]["array"]
    roles[1], roles[3] = roles[3], roles[1]  # the Shaman and the Detective change seats
    swapped = Artifacts.from_dict(data)
    assert swapped.knows_role(1, 1) and swapped.knowledge().role[1, 1] == D.ROLE_ID["Detective"]
    assert swapped.observation_dict(3)["my_role"][D.ROLE_ID["Shaman"]] == 1
    play_out(swapped)


# ===== edits that break the rules are refused, naming the rule =====================================
def test_a_piece_added_to_storage_is_refused():
    data = saved(table(7, SEVEN, storage=(2, 1, 0, 0, 0)))
    data["state"]["storage"][1] += 1  # a sixth Golden Mask
    refused(data, r"artifact pieces not conserved: \[5, 6, 5, 5, 5\]")


def test_the_card_in_hand_cannot_also_be_in_the_draw_pile():
    g = keep_vote()
    data = saved(g)
    pile = data["state"]["pile"]
    jade = next(c for c in pile if c < 5)
    pile[pile.index(jade)] = g.card  # the card in hand, twice
    refused(data, "the card in hand is also in the draw pile")


def test_counts_a_seat_cannot_have_are_refused():
    data = saved(table(7, SEVEN))
    data["state"]["silenced_until"]["tuple"][2] = -1
    refused(data, "silenced_until must give each of the 7 seats a round")
    data = saved(table(7, SEVEN))
    data["state"]["silenced_until"]["tuple"][2] = 9  # silenced for 8 more rounds: no event silences that long
    refused(data, "silenced_until")
    data = saved(table(7, SEVEN))
    data["state"]["storage"][0] = -1
    refused(data, "storage must count 0..5 pieces")
    data = saved(table(7, SEVEN))
    data["state"]["alive"]["tuple"].pop()  # a seat's flag missing
    refused(data, "alive must hold 7 true/false flags")


def test_a_dead_player_must_be_revealed():
    data = saved(table(7, SEVEN))
    data["state"]["alive"]["tuple"][3] = False
    refused(data, "player 3 is dead but not Revealed")


def test_a_role_off_the_chart_is_refused():
    data = saved(table(7, SEVEN))
    data["state"]["roles"]["array"][4] = D.ROLE_ID["Shaman"]  # two Shamans, no Tomb Raider
    refused(data, "the roles dealt differ from the role chart")


def test_a_decision_handed_to_another_seat_is_refused():
    g = table(7, SEVEN)
    s = g.current_player()
    other = (s + 1) % 7
    data = saved(g)
    data["state"]["flow"]["flow"][-1]["player"] = other  # the window's decision, for the next seat
    refused(data, "each naming its own seat")
    data["state"]["flow"]["flow"][-1]["args"][0] = other  # ... and its argument too
    refused(data, "the round window's turn is not that seat's")


def test_a_step_the_rules_never_take_is_refused():
    data = saved(table(7, SEVEN))
    frames = data["state"]["flow"]["flow"]
    assert frames[1] == {"do": "Artifacts._card", "args": []}
    frames[1] = {"do": "VoteRules._close_keep", "args": []}  # a keep vote's close with no vote open
    refused(data, "a vote's close or an Election waits under another decision")
    data = saved(table(7, SEVEN))
    data["state"]["flow"]["flow"].insert(1, {"do": "EventRules._kill", "args": [2]})
    refused(data, "EventRules._kill is not one the rules leave waiting here")
    data = saved(table(7, SEVEN))
    del data["state"]["flow"]["flow"][0]  # nothing would start the next round
    refused(data, "starts from the round's end")


def test_a_ballot_of_a_voter_yet_to_vote_is_refused():
    g = keep_vote(voted=1)
    data = saved(g)
    next_voter = g.current_player()
    assert data["state"]["ballots"][next_voter] == -1
    data["state"]["ballots"][next_voter] = g.A_YES
    refused(data, f"player {next_voter} has a ballot but has not voted")
    data = saved(g)
    first = g.voting[0]
    data["state"]["ballots"][first] = g.A_SEAT  # a ballot the keep vote does not offer
    refused(data, f"player {first}'s ballot {g.A_SEAT} is not one the vote allows")


def test_a_published_vote_must_agree_with_its_ballots():
    g = table(7, SEVEN, storage=(0, 0, 0, 0, 0), top=[0])
    pass_window(g)
    vote_all(g, g.A_NO)  # the Jade Dragon is sold; nothing left to sell: the next round's window
    assert g.phase == D.PH_WINDOW and g.round == 2 and g.last_vote_kind == D.VOTE_KIND[D.PH_KEEP]
    data = saved(g)
    s = g.voting[0]
    data["state"]["ballots"][s] = g.A_YES  # the ballot now says keep; last_vote shows sell
    refused(data, f"player {s}'s ballot disagrees with last_vote")


def test_a_record_above_what_a_game_can_count_is_refused():
    g = keep_vote(voted=7)  # closed: kept, and the extra sale's vote opens
    assert g.last_vote_kind == D.VOTE_KIND[D.PH_KEEP] and g.phase == D.PH_EXTRA
    data = saved(g)
    records = data["state"]["records"]["array"]
    records[g._records_at["keep_sell"][0].start] += 30  # seat 0 kept 31 artifacts: more than drawn
    refused(data, "keep_sell counts 0..23 artifact votes per seat")


def test_a_winner_the_table_does_not_support_is_refused():
    g = table(7, SEVEN)
    kill(g, 0)  # the Possessed dies: the Looters win
    assert g.winner == D.LOOTERS
    data = saved(g)
    Artifacts.from_dict(data)
    data["state"]["winner"] = D.ACADEMICS
    refused(data, "the winner's side meets none of its win conditions")


def test_spain_the_piles_must_stay_within_the_public_knowledge():
    g = table(7, SEVEN, site="spain", sold=(1, 1, 0, 0, 0))
    data = saved(g)
    configs = data["state"]["vault"]["fields"][0]["tuple"]
    truth = {"tuple": [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]}
    assert truth in configs and len(configs) > 1
    configs.remove(truth)  # the table "knows" the true piles are not these
    refused(data, "Spain: the piles left the public knowledge")
    data = saved(g)
    data["state"]["vault"] = None
    refused(data, "Spain needs a non-empty vault")
