"""Exposaurus positions edited as a user would edit a saved one: what `check_position` refuses (with
the rule it names) and hand-made positions that load and go on by the rules. The generic round trips
and random edits are in tests/core/test_positions.py."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from envs.core import PositionError
from envs.exposaurus.data import CENTRE, KINDS, SIDE, TILE_KIND
from envs.exposaurus.rules import (
    A_DISCOVER,
    A_EXCAVATE,
    A_GEM,
    A_QUIT,
    DIE,
    EXPEDITION,
    GEM,
    PLACE,
    Exposaurus,
)

from .helpers import new_game


def saved(num_players: int = 2, die: bool = False, seed: int = 0) -> dict:
    """A fresh game's position, through JSON text as a file would hold it."""
    return json.loads(json.dumps(new_game(num_players, die=die, seed=seed).to_dict()))


def edited(data: dict, change) -> dict:
    data = copy.deepcopy(data)
    change(data["state"])
    return data


def seat_to_move(state: dict, p: int) -> None:
    """The expedition decision of seat p waits (its move began without a discovery)."""
    state["player"] = p
    state["flow"]["flow"][-1]["player"] = p


def test_a_fresh_position_holds_the_state_and_no_cache():
    data = saved()
    state = data["state"]
    assert not {"where", "box", "group_sizes", "group_points", "unseen", "winners", "_pub"} & set(state)
    assert state["rng"] is None, "without the die variant nothing is drawn after set-up: no generator"
    assert saved(die=True)["state"]["rng"]["rng"]["bit_generator"] == "PCG64"
    assert state["flow"]["flow"][0] == {"do": "Exposaurus._end_move", "args": []}
    assert state["tiles_of"] == [{"tuple": [CENTRE]}, {"tuple": [CENTRE]}]


@pytest.mark.parametrize(
    "change, message",
    [
        # a tile in two places: the first displayed tile is also put back on the stock
        (lambda s: s["stock"].append(s["display"][0]), r"tile \d+ is in the stock and in the display"),
        # a tile lost without the die variant (only the die removes tiles to the box)
        (lambda s: s["display"].pop(), "only the die variant removes tiles to the box"),
        # a seat with 9 scientists
        (lambda s: s["camp"].__setitem__(0, 9), "seat 0 has 9 scientists, not 10"),
        # more than a seat can have
        (lambda s: s["camp"].__setitem__(0, 11), r"camp holds 11; it must be an integer in 0\.\.10"),
        # a negative count
        (lambda s: s["national"].__setitem__(1, -1), r"national holds -1; it must be an integer in 0\.\.10"),
        # a gem out of nowhere: 7 red gems in a 2-player game
        (lambda s: s["gems"][0].__setitem__(0, 1), "7 red gems in play, not 6"),
        # a scientist on a displayed tile that field_sci does not count
        (
            lambda s: (
                s["marker"].__setitem__(s["display"][0], 1),
                s["marker_owner"].__setitem__(s["display"][0], 1),
            ),
            "seat 1 has 1 scientists on displayed tiles, field_sci says 0",
        ),
        # a marker on a tile in the stock
        (
            lambda s: (
                s["marker"].__setitem__(s["stock"][0], 2),
                s["marker_owner"].__setitem__(s["stock"][0], 0),
            ),
            "carries a marker but is not in the display",
        ),
        # a seat out of range
        (
            lambda s: s["marker_owner"].__setitem__(0, 2),
            r"marker_owner holds 2; it must be an integer in -1\.\.1",
        ),
        # the waiting decision belongs to another seat than the mover
        (lambda s: s["flow"]["flow"][-1].__setitem__("player", 1 - s["player"]), "not a stack of seat"),
        # a decision frame whose kind does not match its functions (a gem choice running the expedition's)
        (lambda s: s["flow"]["flow"][-1].__setitem__("decide", 4), "not a stack of seat"),
        # recruitment offered to a seat with no scientist out
        (
            lambda s: s["flow"]["flow"].append(
                {
                    "decide": 1,
                    "player": s["player"],
                    "legal": "Exposaurus._recruitment_mask",
                    "then": "Exposaurus._recruitment_choice",
                    "args": [],
                }
            ),
            "recruitment is offered only with a scientist out",
        ),
        # a die decision without the die variant
        (
            lambda s: s["flow"]["flow"].extend(
                [
                    {"do": "Exposaurus._offer_recruitment", "args": []},
                    {
                        "decide": 0,
                        "player": s["player"],
                        "legal": "Exposaurus._die_mask",
                        "then": "Exposaurus._die_choice",
                        "args": [],
                    },
                ]
            ),
            "a die decision waits, but this game is played without the die variant",
        ),
        # a die roll without the die variant
        (lambda s: s.update(die_value=3), "the die is rolled every move with the die variant, never without"),
        # a generator in a game that draws nothing after set-up
        (lambda s: s.update(rng={"rng": np.random.default_rng(1).bit_generator.state}), "keeps none"),
        # a discovery counted without acting
        (lambda s: s.update(discoveries=1), "acted says whether a discovery was made this move"),
        # the end triggered with no move left in the final round
        (lambda s: s.update(end_triggered=True), "moves are left in the final round exactly while"),
        # a museum tile not touching the others (cell 0 is the grid's corner)
        (
            lambda s: (
                s["grid"][0]["tuple"].__setitem__(0, s["display"][0]),
                s["tiles_of"][0]["tuple"].append(0),
                s["display"].pop(0),
            ),
            "the tile on cell 0 touches no tile placed before it",
        ),
        # tiles_of disagrees with the grid
        (lambda s: s["tiles_of"][1]["tuple"].append(CENTRE + 1), "tiles_of must list the filled cells"),
        # a museum row written as a list instead of a tuple
        (lambda s: s["grid"].__setitem__(0, s["grid"][0]["tuple"]), r"grid\[0\] must be a tuple"),
    ],
)
def test_an_edited_position_that_breaks_a_rule_is_refused_naming_it(change, message):
    data = edited(saved(), change)
    with pytest.raises(PositionError, match=message):
        Exposaurus.from_dict(data)


def test_a_reordered_stock_loads_and_the_next_discovery_turns_up_the_chosen_tile():
    data = saved()
    chosen = data["state"]["stock"][0]  # the bottom of the stock ...
    data = edited(data, lambda s: s.update(stock=s["stock"][1:] + [chosen]))  # ... put on top
    game = Exposaurus.from_dict(data)
    game.apply_action(A_DISCOVER)
    assert game.display[-1] == chosen and game.marker_owner[chosen] == game.player
    assert game.unseen[TILE_KIND[chosen]] == sum(TILE_KIND[t] == TILE_KIND[chosen] for t in game.stock)


def test_a_tile_moved_from_the_display_to_a_museum_loads_as_a_museum_tile():
    """Moving a displayed tile into seat 1's museum (next to its starting tile) is a position the
    rules could reach: the museum piece, the tile counts and the score follow."""
    data = saved()
    tile = data["state"]["display"][0]
    east = CENTRE + 1

    def move(s):
        s["display"].remove(tile)
        s["grid"][1]["tuple"][east] = tile
        s["tiles_of"][1]["tuple"].append(east)

    game = Exposaurus.from_dict(edited(data, move))
    assert game.grid[1][east] == tile and len(game.tiles_of[1]) == 2 and tile not in game.display
    museum = game.observation_dict(0)["museum"][1]  # seat 1 seen by seat 0
    assert museum[east // SIDE, east % SIDE, TILE_KIND[tile]] == 1
    game.check_invariants()


def test_a_hand_made_last_move_wins_the_game_by_the_tie_break():
    """The end is triggered and seat 0 has the last move of the final round; both seats have 15 points
    and one museum tile. Excavating the displayed egg and placing it gives seat 0 a second tile: it
    wins on the tie-break (points, then tiles), and the game ends after its move."""
    data = saved()
    egg = next(t for t in data["state"]["stock"] if KINDS[TILE_KIND[t]] == "egg")

    def last_move(s):
        seat_to_move(s, 0)
        s["stock"].remove(egg)
        s["display"].append(egg)
        s.update(end_triggered=True, final_left=1)

    game = Exposaurus.from_dict(edited(data, last_move))
    assert game.current_player() == 0 and game.phase == EXPEDITION and game.scores() == [15, 15]
    game.apply_action(A_EXCAVATE + egg)
    assert game.phase == PLACE
    game.apply_action(int(np.flatnonzero(game.legal_action_mask())[0]))
    while game.phase == GEM:  # a closed yellow circle: a gem of choice (more points for seat 0)
        game.apply_action(A_GEM)
    assert game.is_terminal() and len(game.tiles_of[0]) == 2 and game.score(0) >= game.score(1)
    assert game.winners == [0] and game.returns().tolist() == [1.0, -1.0]


def test_a_hand_made_round_of_quitting_ends_the_game_at_once():
    """Seat 1 quit its last move; seat 0 quits too: a full round of quitting ends the game at once."""
    data = edited(saved(), lambda s: (seat_to_move(s, 0), s.update(quits=1)))
    game = Exposaurus.from_dict(data)
    game.apply_action(A_QUIT)
    assert game.is_terminal() and game.winners == [0, 1]  # nothing changed: a tie after both tie-breaks
    assert game.returns().tolist() == [0.0, 0.0]


def test_a_die_position_keeps_its_generator_and_its_future_rolls():
    game, rng = new_game(2, die=True, seed=3), np.random.default_rng(3)

    def random_action() -> int:
        legal = np.flatnonzero(game.legal_action_mask())
        return int(legal[rng.integers(len(legal))])

    for _ in range(6):
        game.apply_action(random_action())
    loaded = Exposaurus.from_dict(json.loads(json.dumps(game.to_dict())))
    rolls = 0
    while not game.is_terminal():
        action = random_action()
        rolls += game.phase == DIE
        game.apply_action(action)
        loaded.apply_action(action)
        assert loaded.die_value == game.die_value
        assert np.array_equal(loaded.observation(0), game.observation(0))
    assert rolls, "die decisions came along the way"
    data = edited(game.to_dict(), lambda s: s.update(rng=None))
    with pytest.raises(PositionError, match="the die variant rolls the die"):
        Exposaurus.from_dict(data)
