"""Exposed positions edited the way a user would (RULES.md, "Positions"): a saved game's state changed
by hand is refused with a PositionError naming the rule it breaks, or loads into a game that goes on by
the rules. The generic round trips and random edits are tests/core/test_positions.py's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.core import PositionError
from envs.exposed.data import GUEST_INDEX, ITEM_GUEST
from envs.exposed.rules import ACTION, DENTIST, Exposed

from .helpers import new_game, seat_action, start, steal_mark


def saved(game: Exposed) -> dict:
    """The game's position as a user holds it: JSON data."""
    return json.loads(json.dumps(game.to_dict()))


def guest_cell(data: dict, guest: int) -> int:
    return data["state"]["guest_on"]["array"].index(guest)


def test_a_card_moved_from_one_hand_to_another_is_refused():
    data = saved(new_game(4, seed=1))
    ident = data["state"]["ident"]
    lost = ident[1]
    ident[1] = ident[0]  # seat 1 now holds seat 0's card too
    with pytest.raises(PositionError, match="exactly one place") as refusal:
        Exposed.from_dict(data)
    assert Exposed.guest_name(None, ident[0]) in str(refusal.value)  # in two places
    assert Exposed.guest_name(None, lost) in str(refusal.value)  # in none


def test_a_hand_card_swapped_with_a_deck_card_loads_and_its_new_holder_plays_it():
    game = new_game(4, seed=1)
    data = saved(game)
    state = data["state"]
    state["ident"][2], state["deck"][0] = state["deck"][0], state["ident"][2]
    loaded = Exposed.from_dict(data)
    new = state["ident"][2]
    assert loaded.holder_of[new] == 2 and loaded.holder_of[game.ident[2]] == -1  # derived again
    identity = loaded.observation_dict(2)["identity"][0].reshape(-1)  # seat 2's own card (relative seat 0)
    assert identity[guest_cell(data, new)] == 1 and identity.sum() == 1
    rng = np.random.default_rng(0)
    while not loaded.is_terminal():
        loaded.check_invariants()
        loaded.apply_action(int(rng.choice(loaded.legal_actions())))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s["stash"].__setitem__(1, -1), "stash holds -1"),
        (lambda s: s["lost_found"] - 1 < 0 and s.update(lost_found=-1), "lost_found holds -1"),
        (lambda s: s["wallets_on"]["array"].__setitem__(0, -2), "negative number of Wallets"),
        (lambda s: s["wallets_on"].update(array=[0] * 16), "fewer than the 20 of the set-up"),
        (lambda s: s["stash"].__setitem__(0, 9), "7 Wallets"),  # the game would be over
        (lambda s: s["deck_seen"].__setitem__(0, 4), "deck_seen holds 4"),  # 2 players: seats 0 and 1
        (lambda s: s["epoch"].update(tuple=[0, -1]), "epoch holds -1"),
        (lambda s: s["known_by"].update(tuple=[1, 0]), "shown their own card"),
        (lambda s: s["kept"]["array"][0].__setitem__(0, 1), "pilot is kept, but its card was never used"),
        (lambda s: s["kept"]["array"][1].__setitem__(2, 3), "one Cop card"),
        (lambda s: s["winners"].update(tuple=[0]), "winners are named only once the game is over"),
        (lambda s: s.update(turn=2), r"turn \(2\) is a seat"),
        (lambda s: s.update(rng={"rng": np.random.default_rng(0).bit_generator.state}), "keeps no generator"),
        (lambda s: s.update(item_in_use=3), "no stolen Mark waits"),
        (lambda s: s["latest_move"][0].update(tuple=[{"tuple": [0, 5, 5]}]), "two different tiles"),
    ],
)
def test_a_count_or_value_a_seat_cannot_have_is_refused_with_the_rule(edit, message):
    data = saved(new_game(2, seed=3))
    edit(data["state"])
    with pytest.raises(PositionError, match=message):
        Exposed.from_dict(data)


def test_a_mark_moved_to_the_discard_pile_by_hand_disagrees_with_the_flags():
    data = saved(new_game(4, seed=2))
    state = data["state"]
    mark = state["marks"].pop()
    state["discard"].append(mark)  # the lists agree, the packed flags (is_mark, is_discarded) do not
    with pytest.raises(PositionError, match="flags' Marks disagree"):
        Exposed.from_dict(data)


def test_a_decision_for_the_wrong_seat_or_of_the_wrong_kind_is_refused():
    game = new_game(4, seed=4)
    p = game.current_player()
    data = saved(game)
    top = data["state"]["flow"]["flow"][-1]
    assert top["decide"] == ACTION and top["player"] == p
    wrong_seat = json.loads(json.dumps(data))
    frame = wrong_seat["state"]["flow"]["flow"][-1]
    frame["player"] = frame["args"][0] = (p + 1) % 4  # a whole ACTION frame, for another seat
    with pytest.raises(PositionError, match=f"the player's to act \\({p}\\)"):
        Exposed.from_dict(wrong_seat)
    wrong_kind = json.loads(json.dumps(data))
    wrong_kind["state"]["flow"]["flow"][-1]["decide"] = DENTIST  # the ACTION's rules under another kind
    with pytest.raises(PositionError, match="is decided by HiddenRules._dentist_mask"):
        Exposed.from_dict(wrong_kind)
    no_clean_up = json.loads(json.dumps(data))
    del no_clean_up["state"]["flow"]["flow"][0]
    with pytest.raises(PositionError, match="clean-up"):
        Exposed.from_dict(no_clean_up)


def test_a_dentist_answer_is_a_line_that_held_the_targets_guest():
    g, p = start(n=4, me="Mayor")
    steal_mark(g, "Dentist")
    q = (p + 1) % 4
    g.apply_action(seat_action(g, p, q))
    assert g.decision_kind == DENTIST and g.current_player() == q
    line = int(np.flatnonzero(g.legal_action_mask())[0]) - g.OFF_LINE
    g.apply_action(g.OFF_LINE + line)
    data = saved(g)
    assert Exposed.from_dict(data).dentist_records[0][:4] == (p, q, 0, line)  # (as played: it loads)
    record = data["state"]["dentist_records"]["tuple"][0]["tuple"]
    s = g.side
    cell = record[4]["array"].index(g.ident[q])
    record[3] = next(x for x in range(2 * s) if x != cell // s and x != s + cell % s)  # a line without it
    with pytest.raises(PositionError, match=f"player {q} told a line that did not hold their Guest"):
        Exposed.from_dict(data)


def test_a_hand_made_position_where_a_steal_wins_goes_on_by_the_rules():
    """Seat p holds 6 Wallets and a tile beside its Guest holds one: its Steal brings it to 7 and ends
    the game at once, p alone winning (+1, the others -1)."""
    game = new_game(4, seed=5)
    p = game.current_player()
    data = saved(game)
    state = data["state"]
    mine = guest_cell(data, state["ident"][p])
    wallets = state["wallets_on"]["array"]
    wallets[mine] = 0  # p's total is then its Stash alone
    state["stash"][p] = 6
    target = next(
        int(c)
        for c in np.flatnonzero(game.surround[mine])
        if state["guest_on"]["array"][c] not in state["marks"] + state["ident"]
    )
    wallets[target] = 1
    loaded = Exposed.from_dict(data)  # (the Wallets added by hand count as created)
    assert loaded.created == sum(wallets) + 6 - loaded.initial_wallets
    assert loaded.current_player() == p and not loaded.is_terminal()
    steal = loaded.OFF_STEAL + target
    assert loaded.legal_action_mask()[steal]
    loaded.apply_action(steal)
    assert loaded.is_terminal() and loaded.winners == (p,)
    assert loaded.returns().tolist() == [1.0 if q == p else -1.0 for q in range(4)]


def test_a_position_of_a_game_that_should_be_over_is_refused():
    """Two players, one exposed by hand (their tile flipped, their Stash on it): the other is the last
    unexposed player, so the game would have ended."""
    game = new_game(2, seed=6)
    data = saved(game)
    state = data["state"]
    state["_flags"]["array"][guest_cell(data, state["ident"][1])] = True  # tile_exposed comes first
    with pytest.raises(PositionError, match=r"would have ended with winners \(0,\)"):
        Exposed.from_dict(data)


def test_a_kept_item_needs_its_card_used():
    """With the Pilot card discarded (used by someone), another seat keeping it loads; before, not."""
    pilot = ITEM_GUEST["pilot"]
    assert pilot == GUEST_INDEX["Pilot"]
    game = next(g for g in (new_game(6, seed=s) for s in range(20)) if pilot in g.deck[:-1])
    data = saved(game)
    state = data["state"]
    state["kept"]["array"][2][0] = 1
    with pytest.raises(PositionError, match="pilot is kept"):
        Exposed.from_dict(data)
    state["deck"].remove(pilot)
    state["discard"].append(pilot)
    cell = guest_cell(data, pilot)
    layout = {name: (start, end) for name, start, end, _shape in game._flag_layout}
    state["_flags"]["array"][cell] = True  # a discarded card's tile is exposed
    state["_flags"]["array"][layout["is_discarded"][0] + pilot] = True
    state["deck_seen"].pop()
    loaded = Exposed.from_dict(data)
    assert loaded.pilot[2] == 1 and loaded.kept_any


def test_loading_makes_the_derived_caches_again_exactly():
    rng = np.random.default_rng(8)
    for n in (2, 5):
        game = new_game(n, seed=n)
        while not game.is_terminal():
            if rng.random() < 0.1:
                loaded = Exposed.from_dict(saved(game))
                for name in sorted(Exposed.DERIVED - {"_stamp", "_undoable", "items_any"}):
                    assert np.array_equal(getattr(loaded, name), getattr(game, name)), name
                assert loaded.items_any or not game.items_any or not game.last_items.any()
                assert loaded.check_position() is None
            game.apply_action(int(rng.choice(game.legal_actions())))
