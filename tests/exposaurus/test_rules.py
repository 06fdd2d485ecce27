"""One test per rule of Exposaurus: each sets up the situation and asserts the rule's outcome."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import ConfigError, IllegalActionError
from envs.exposaurus.data import GEMS_PER_COLOUR, STARTING_TILES, TILE_COST, TILE_KIND, TILE_START
from envs.exposaurus.rules import (
    A_DIE_KEEP,
    A_DIE_REMOVE,
    A_DISCOVER,
    A_DISCOVER_DISC,
    A_EXCAVATE,
    A_EXCAVATE_PALEO,
    A_GEM,
    A_NO_RECRUIT,
    A_PLACE,
    A_QUIT,
    A_RECRUIT,
    CENTRE,
    DIE,
    DISC_ON_TILE,
    DISC_SPENT,
    DISC_UNUSED,
    EXPEDITION,
    GEM,
    M_DISC,
    M_NONE,
    M_SCIENTIST,
    PLACE,
    RECRUIT,
    W_BOX,
    W_DISPLAY,
    W_HAND,
    Exposaurus,
)

from .helpers import arrange, cell, legal, new_game, start_move, sync, tiles_of_kind, waiting

RED, GREEN, BLUE = 0, 1, 2


def place(c: int, rot: int = 0) -> int:
    return A_PLACE + 4 * c + rot


# ----------------------------------------------------------------- set-up
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_gems_18_27_36(n):
    game = new_game(n)
    assert game.supply == [GEMS_PER_COLOUR[n]] * 3
    assert sum(game.supply) == {2: 18, 3: 27, 4: 36}[n]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_starting_tiles_display_stock_and_supplies(n):
    game = new_game(n, seed=5)
    starts = set()
    for p in range(n):
        assert game.tiles_of[p] == (CENTRE,)
        t = game.grid[p][CENTRE]
        assert TILE_START[t] > 0
        starts.add(t)
        assert game.camp[p] == 10 and game.paleo[p] and game.disc[p] == DISC_UNUSED
    assert len(starts) == n
    assert len(game.display) == n and all(game.marker[t] == M_NONE for t in game.display)
    assert len(game.stock) == 64 - 2 * n
    # the undealt starting tiles are shuffled into the stock
    assert set(STARTING_TILES) - starts <= set(game.stock) | set(game.display)


def test_starting_player_has_the_highest_starting_tile():
    firsts = set()
    for seed in range(30):
        game = new_game(3, seed=seed)
        numbers = [TILE_START[game.start_tile[p]] for p in range(3)]
        assert game.current_player() == int(np.argmax(numbers))
        firsts.add(game.current_player())
    assert len(firsts) == 3


def test_die_variant_default_on_for_two_players_only_and_settable():
    assert new_game(2, die=None).die_variant
    assert not new_game(3, die=None).die_variant and not new_game(4, die=None).die_variant
    assert new_game(4, die=True).die_variant and not new_game(2, die=False).die_variant
    with pytest.raises(ConfigError, match="die"):
        Exposaurus(num_players=2, die="yes")
    with pytest.raises(ConfigError, match="reward"):
        Exposaurus(num_players=2, reward="points")


# ----------------------------------------------------------------- die (variant)
def _die_game(value, display, markers=None):
    game = arrange(
        new_game(2, die=True),
        museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]},
        display=display,
        markers=markers,
    )
    game.die_value = value
    return waiting(game, DIE)


def test_die_removes_a_tile_costing_at_most_the_pips():
    egg, skull, skeleton, foot = 0, 20, 27, 54
    game = _die_game(3, [egg, skull, skeleton, foot])
    assert legal(game) == {A_DIE_REMOVE + egg, A_DIE_REMOVE + skull, A_DIE_REMOVE + skeleton, A_DIE_KEEP}
    with pytest.raises(IllegalActionError, match="more than the 3 rolled"):
        game.apply_action(A_DIE_REMOVE + foot)
    game.apply_action(A_DIE_REMOVE + skeleton)
    assert game.where[skeleton] == W_BOX and skeleton not in game.display
    assert game.phase == EXPEDITION and game.current_player() == 0


def test_die_removal_sends_the_scientist_home_and_spares_claimed_tiles():
    game = _die_game(6, [0, 54, 55], markers={54: (M_SCIENTIST, 1), 55: (M_DISC, 1)})
    assert game.camp[1] == 9
    assert A_DIE_REMOVE + 55 not in legal(game)
    with pytest.raises(IllegalActionError, match="claim disc"):
        game.apply_action(A_DIE_REMOVE + 55)
    game.apply_action(A_DIE_REMOVE + 54)
    assert game.camp[1] == 10 and game.field_sci[1] == 0 and game.marker[54] == M_NONE
    game.check_invariants()


def test_die_keep_removes_nothing_and_die_is_shown_while_deciding():
    game = _die_game(4, [0, 20])
    obs = game.observation_dict(0)
    assert obs["die_roll"].tolist() == [0, 0, 0, 1, 0, 0]
    assert obs["phase"].tolist() == [1, 0, 0, 0, 0]
    game.apply_action(A_DIE_KEEP)
    assert game.display == [0, 20] and game.phase == EXPEDITION


def test_die_phase_skipped_without_removable_tile_and_absent_without_variant():
    game = arrange(
        new_game(2, die=True),
        museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]},
        display=[54, 55],
        markers={54: (M_DISC, 0), 55: (M_DISC, 1)},
    )
    for _ in range(20):
        start_move(game)
        assert 1 <= game.die_value <= 6 and game.phase == EXPEDITION
    rng = np.random.default_rng(0)
    for seed in range(5):
        game = new_game(4, die=False, seed=seed)
        while not game.is_terminal():
            assert game.phase != DIE
            moves = np.flatnonzero(game.legal_action_mask())
            game.apply_action(int(moves[rng.integers(len(moves))]))


def test_die_rolls_are_fair_six_sided():
    game = new_game(2, die=True, seed=3)
    rolls = []
    for _ in range(600):
        start_move(game)
        rolls.append(game.die_value)
    counts = np.bincount(rolls, minlength=7)[1:]
    assert counts.min() > 60 and set(rolls) == {1, 2, 3, 4, 5, 6}


# ----------------------------------------------------------------- recruitment
def test_recruitment_returns_all_scientists_but_one_to_the_national_museum():
    game = new_game(2)
    game.museum_sci[0] = 3
    game = arrange(
        game,
        museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]},
        display=[0, 5, 6],
        markers={0: (M_SCIENTIST, 0), 5: (M_SCIENTIST, 0), 6: (M_SCIENTIST, 1)},
    )
    assert game.camp[0] == 5
    start_move(game)
    assert game.phase == RECRUIT and legal(game) == {A_RECRUIT, A_NO_RECRUIT}
    game.apply_action(A_RECRUIT)
    assert game.camp[0] == 9 and game.national[0] == 1
    assert game.museum_sci[0] == 0 and game.field_sci[0] == 0
    assert game.marker[0] == M_NONE and game.marker[5] == M_NONE
    assert game.marker[6] == M_SCIENTIST and game.field_sci[1] == 1  # others' scientists stay
    assert game.phase == EXPEDITION
    game.check_invariants()


def test_recruitment_is_optional_and_offered_only_with_scientists_out():
    game = new_game(2)
    game.museum_sci[0] = 2
    game = arrange(game, museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]}, display=[0])
    start_move(game)
    game.apply_action(A_NO_RECRUIT)
    assert game.camp[0] == 8 and game.museum_sci[0] == 2 and game.national[0] == 0
    game = arrange(new_game(2), museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]}, display=[0])
    start_move(game)
    assert game.phase == EXPEDITION


# ----------------------------------------------------------------- discovery
def _basic(n=2, display=(), markers=None, player=0, seed=0):
    museums = {p: [(14 + p, CENTRE, 0)] for p in range(n)}
    return arrange(
        new_game(n, seed=seed), museums=museums, display=list(display), markers=markers, player=player
    )


def test_discovery_turns_up_a_stock_tile_with_a_scientist_and_may_repeat():
    game = _basic(display=[0])
    top = game.stock[-1]
    unseen = game.unseen[TILE_KIND[top]]
    game.apply_action(A_DISCOVER)
    assert game.display == [0, top] and game.where[top] == W_DISPLAY
    assert game.marker[top] == M_SCIENTIST and game.marker_owner[top] == 0
    assert game.camp[0] == 9 and game.field_sci[0] == 1
    assert game.unseen[TILE_KIND[top]] == unseen - 1
    assert game.phase == EXPEDITION and game.current_player() == 0  # A again, B or C
    game.apply_action(A_DISCOVER)
    assert len(game.display) == 3 and game.camp[0] == 8


def test_claim_disc_discovery_only_once_per_game():
    game = _basic()
    game.apply_action(A_DISCOVER_DISC)
    t = game.display[-1]
    assert game.marker[t] == M_DISC and game.disc[0] == DISC_ON_TILE and game.camp[0] == 10
    assert A_DISCOVER_DISC not in legal(game)
    with pytest.raises(IllegalActionError, match="claim disc is already used"):
        game.apply_action(A_DISCOVER_DISC)


def test_discovery_needs_a_stock_tile_and_a_scientist():
    game = _basic(display=[t for t in range(64) if t not in (14, 15)])
    assert not game.stock
    assert A_DISCOVER not in legal(game) and A_DISCOVER_DISC not in legal(game)
    with pytest.raises(IllegalActionError, match="stock is empty"):
        game.apply_action(A_DISCOVER)
    game = new_game(2)
    game.national[0] = 10
    game = _basic_from(game)
    assert A_DISCOVER not in legal(game) and A_DISCOVER_DISC in legal(game)


def _basic_from(game, display=(), markers=None):
    museums = {p: [(14 + p, CENTRE, 0)] for p in range(game.num_players)}
    return arrange(game, museums=museums, display=list(display), markers=markers)


# ----------------------------------------------------------------- excavation
@pytest.mark.parametrize(
    "kind,cost", [("egg", 1), ("skull", 2), ("skeleton", 3), ("bone", 4), ("claw", 5), ("footprint", 6)]
)
def test_excavation_cost_by_fossil(kind, cost):
    t = [x for x in tiles_of_kind(kind) if x not in (14, 15)][0]
    game = _basic(display=[t])
    game.apply_action(A_EXCAVATE + t)
    assert game.camp[0] == 10 - cost and game.museum_sci[0] == cost
    assert game.phase == PLACE and game.pending == t and game.where[t] == W_HAND


@pytest.mark.parametrize("kind,cost", [("bone", 2), ("claw", 3), ("footprint", 4)])
def test_paleontologist_saves_two_on_bone_claw_footprint_and_leaves_the_game(kind, cost):
    t, other = tiles_of_kind(kind)[:2]
    game = _basic(display=[t, other])
    game.apply_action(A_EXCAVATE_PALEO + t)
    assert game.camp[0] == 10 - cost and not game.paleo[0]
    game.apply_action(place(cell(0, 1)))
    game.apply_action(A_QUIT)  # player 1
    game.apply_action(A_NO_RECRUIT)
    assert A_EXCAVATE_PALEO + other not in legal(game) and A_EXCAVATE + other in legal(game)
    with pytest.raises(IllegalActionError, match="already used"):
        game.apply_action(A_EXCAVATE_PALEO + other)


def test_paleontologist_not_for_egg_skull_skeleton_or_gem_tiles():
    cheap = [0, 20, 27, 60, 63]
    game = _basic(display=cheap)
    for t in cheap:
        assert A_EXCAVATE + t in legal(game) and A_EXCAVATE_PALEO + t not in legal(game)
    with pytest.raises(IllegalActionError, match="only helps with bones"):
        game.apply_action(A_EXCAVATE_PALEO + 27)


def test_gem_tiles_have_their_designed_cost():
    game = _basic(display=[60, 63])
    game.apply_action(A_EXCAVATE + 63)
    assert game.camp[0] == 10 - TILE_COST[63] == 7


def test_scientist_of_another_player_discounts_and_goes_home():
    claw = 51
    game = _basic(display=[claw], markers={claw: (M_SCIENTIST, 1)})
    assert game.camp[1] == 9
    game.apply_action(A_EXCAVATE + claw)
    assert game.camp[0] == 6 and game.museum_sci[0] == 4
    assert game.camp[1] == 10 and game.field_sci[1] == 0 and game.museum_sci[1] == 0


def test_own_scientist_on_the_tile_joins_the_payment():
    claw = 51
    game = _basic(display=[claw], markers={claw: (M_SCIENTIST, 0)})
    assert game.camp[0] == 9
    game.apply_action(A_EXCAVATE + claw)
    assert game.camp[0] == 5 and game.museum_sci[0] == 5 and game.field_sci[0] == 0


def test_discounts_stack():
    bone = 38
    game = _basic(display=[bone], markers={bone: (M_SCIENTIST, 1)})
    game.apply_action(A_EXCAVATE_PALEO + bone)
    assert game.camp[0] == 9  # 4 - 2 - 1


def test_claim_disc_closes_the_tile_to_others_and_gives_no_discount():
    skull = 20
    game = _basic(display=[skull], markers={skull: (M_DISC, 1)})
    assert A_EXCAVATE + skull not in legal(game)
    with pytest.raises(IllegalActionError, match="claim disc"):
        game.apply_action(A_EXCAVATE + skull)
    game.apply_action(A_QUIT)
    assert game.current_player() == 1 and A_EXCAVATE + skull in legal(game)
    game.apply_action(A_EXCAVATE + skull)
    assert game.camp[1] == 8 and game.disc[1] == DISC_SPENT and game.marker[skull] == M_NONE


def test_excavation_needs_enough_scientists_in_camp():
    game = new_game(2)
    game.national[0] = 7  # camp 3
    game = _basic_from(game, display=[54, 38, 27])
    moves = legal(game)
    assert A_EXCAVATE + 54 not in moves and A_EXCAVATE_PALEO + 54 not in moves
    assert A_EXCAVATE + 38 not in moves and A_EXCAVATE_PALEO + 38 in moves and A_EXCAVATE + 27 in moves
    with pytest.raises(IllegalActionError, match="needs 6 scientists and the base camp has 3"):
        game.apply_action(A_EXCAVATE + 54)


def test_one_excavation_per_move():
    game = _basic(display=[0, 1])
    game.apply_action(A_EXCAVATE + 0)
    game.apply_action(place(cell(0, 1)))
    assert game.current_player() == 1 and game.phase == EXPEDITION


def test_rulebook_excavation_example():
    """Claw (5) with the blue player's scientist: 4 scientists, or 2 with the paleontologist; the blue
    scientist goes home; placed, it closes a red and a yellow circle: a red gem and one of choice;
    the 4 used scientists lie on the museum tile."""
    claw = 49  # R north, G east, Y south
    museum = [
        (1, cell(0, 0), 2),
        (4, cell(0, 1), 0),
        (5, cell(1, 1), 0),
        (6, cell(2, 1), 0),
        (2, cell(2, 0), 0),
    ]
    base = arrange(
        new_game(2),
        museums={0: museum, 1: [(18, CENTRE + 1 - 1, 0)]},
        display=[claw],
        markers={claw: (M_SCIENTIST, 1)},
    )
    assert base.excavation_cost(claw, False) == 4 and base.excavation_cost(claw, True) == 2
    game = base.clone()
    game.apply_action(A_EXCAVATE + claw)
    assert game.camp == [6, 10] and game.museum_sci[0] == 4
    assert place(cell(1, 0)) in legal(game)
    game.apply_action(place(cell(1, 0), 0))
    assert game.gems[0] == [1, 0, 0] and game.phase == GEM and game.yellow == 1
    game.apply_action(A_GEM + GREEN)
    assert game.gems[0] == [1, 1, 0] and game.current_player() == 1
    game = base.clone()
    game.apply_action(A_EXCAVATE_PALEO + claw)
    assert game.camp == [8, 10] and game.museum_sci[0] == 2 and not game.paleo[0]


# ----------------------------------------------------------------- the museum
def test_new_tile_must_touch_by_a_side():
    game = _basic(display=[0])
    game.apply_action(A_EXCAVATE + 0)
    cells = {(a - A_PLACE) // 4 for a in legal(game)}
    assert cells == {cell(-1, 0), cell(1, 0), cell(0, -1), cell(0, 1)}
    assert all(a - A_PLACE < 196 for a in legal(game)) and len(legal(game)) == 16  # 4 rotations each
    with pytest.raises(IllegalActionError, match="touch"):
        game.apply_action(place(cell(1, 1)))
    with pytest.raises(IllegalActionError, match="taken"):
        game.apply_action(place(CENTRE))


def test_museum_never_exceeds_4x4():
    row = [(20, cell(0, -1), 0), (21, cell(0, 0), 0), (22, cell(0, 1), 0), (23, cell(0, 2), 0)]
    game = arrange(new_game(2), museums={0: row, 1: [(18, CENTRE, 0)]}, display=[0])
    game.apply_action(A_EXCAVATE + 0)
    assert place(cell(0, 3)) not in legal(game) and place(cell(0, -2)) not in legal(game)
    assert place(cell(1, 2)) in legal(game) and place(cell(-1, -1)) in legal(game)
    with pytest.raises(IllegalActionError, match="4x4"):
        game.apply_action(place(cell(0, 3)))
    square = [
        (20 + i, cell(r, c), 0) for i, (r, c) in enumerate([(r, c) for r in range(4) for c in range(3)])
    ]
    game = arrange(new_game(2), museums={0: square, 1: [(18, CENTRE, 0)]}, display=[0])
    game.apply_action(A_EXCAVATE + 0)
    cells = {(a - A_PLACE) // 4 for a in legal(game)}
    assert cells == {cell(r, 3) for r in range(4)} | {cell(r, -1) for r in range(4)}


def test_rotation_turns_the_semicircles_clockwise():
    game = _basic(display=[28])  # skeleton: G north, R east
    game.apply_action(A_EXCAVATE + 28)
    game.apply_action(place(cell(0, 1), 1))
    assert game.edges_at(0, cell(0, 1)) == (0, 2, 1, 0)  # G east, R south
    r, c = divmod(cell(0, 1), 7)
    channels = game.observation_dict(1)["museum"][1, r, c]  # seat 1 relative to player 1 = player 0
    assert channels[:8].tolist() == [0, 0, 1, 0, 0, 0, 0, 0]  # a skeleton
    assert channels[8 + 4 * 1 + 1] == 1 and channels[8 + 4 * 2 + 0] == 1  # east green, south red
    assert channels[8:].sum() == 2


# ----------------------------------------------------------------- circles and gems
def _red_triple():
    museum = [
        (17, CENTRE, 2),
        (10, cell(0, 1), 0),
        (1, cell(1, 1), 3),
        (0, cell(2, 1), 0),
        (9, cell(2, 0), 0),
    ]
    return arrange(new_game(2), museums={0: museum, 1: [(18, CENTRE, 0)]}, display=[51])


def test_one_placement_can_close_several_circles():
    game = _red_triple()
    game.apply_action(A_EXCAVATE + 51)
    game.apply_action(place(cell(1, 0), 0))  # R north, east, south all meet R
    assert game.gems[0] == [3, 0, 0] and game.supply[RED] == 3
    assert game.current_player() == 1


def test_a_colour_run_out_gives_no_gem():
    game = _red_triple()
    game.gems[1] = [5, 0, 0]
    game.supply = [1, 6, 6]
    sync(game)
    game.apply_action(A_EXCAVATE + 51)
    game.apply_action(place(cell(1, 0), 0))
    assert game.gems[0] == [1, 0, 0] and game.supply == [0, 6, 6]


def test_yellow_with_another_colour_is_no_circle():
    museum = [(17, CENTRE, 0), (2, cell(1, 0), 2)]  # egg 2: Y; turned 180: Y south
    game = arrange(new_game(2), museums={0: museum, 1: [(18, CENTRE, 0)]}, display=[1])
    game.apply_action(A_EXCAVATE + 1)
    game.apply_action(place(cell(2, 0), 0))  # R north meets Y south
    assert game.gems[0] == [0, 0, 0] and game.current_player() == 1


def test_yellow_circle_gives_a_gem_of_choice_from_what_is_left():
    museum = [(17, CENTRE, 0), (2, cell(1, 0), 2)]
    game = arrange(new_game(2), museums={0: museum, 1: [(18, CENTRE, 0)]}, display=[3])
    game.gems[1] = [0, 6, 0]
    game.supply = [6, 0, 6]
    sync(game)
    game.apply_action(A_EXCAVATE + 3)
    game.apply_action(place(cell(2, 0), 0))
    assert game.phase == GEM and legal(game) == {A_GEM + RED, A_GEM + BLUE}
    with pytest.raises(IllegalActionError, match="no green gem"):
        game.apply_action(A_GEM + GREEN)
    game.apply_action(A_GEM + BLUE)
    assert game.gems[0] == [0, 0, 1] and game.current_player() == 1


def test_yellow_gem_tile_gives_a_gem_of_choice_at_once_and_no_fossil():
    game = _basic(display=[63, 60])
    game.apply_action(A_EXCAVATE + 63)
    game.apply_action(place(cell(0, 1)))
    assert game.phase == GEM
    game.apply_action(A_GEM + RED)
    assert game.gems[0] == [1, 0, 0]
    assert game.group_points[0] == 1  # 1 red gem x the starting skull; the gem tile is no fossil


def test_gem_tile_semicircle_closes_a_circle():
    museum = [(17, CENTRE, 2)]  # skull RR turned 180: R south, R west
    game = arrange(new_game(2), museums={0: museum, 1: [(18, CENTRE, 0)]}, display=[60])
    game.apply_action(A_EXCAVATE + 60)
    game.apply_action(place(cell(1, 0), 0))  # red semicircle north
    assert game.gems[0] == [1, 0, 0]


# ----------------------------------------------------------------- the end
def _fifteen_tiles(n=2):
    cells = [cell(r, c) for r in range(4) for c in range(4)][:15]
    museum = [(20 + i, c, 0) for i, c in enumerate(cells)]
    museums = {0: museum}
    for p in range(1, n):
        museums[p] = [(14 + p, CENTRE, 0)]
    return arrange(new_game(n), museums=museums, display=[0, 1, 2])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sixteenth_tile_gives_every_other_player_one_more_move(n):
    game = _fifteen_tiles(n)
    game.apply_action(A_EXCAVATE + 0)
    game.apply_action(place(cell(3, 3)))
    assert game.end_triggered and len(game.tiles_of[0]) == 16
    for q in range(1, n):
        assert not game.is_terminal() and game.current_player() == q
        game.apply_action(A_DISCOVER)  # a move with something in it
        game.apply_action(A_QUIT)
    assert game.is_terminal() and game.current_player() == -1


def test_last_gem_ends_the_game_after_one_more_move_each():
    game = _red_triple()
    game.gems[1] = [5, 6, 6]
    game.supply = [1, 0, 0]
    sync(game)
    game.apply_action(A_EXCAVATE + 51)
    game.apply_action(place(cell(1, 0), 0))
    assert sum(game.supply) == 0 and game.end_triggered and game.current_player() == 1
    game.apply_action(A_QUIT)
    assert game.is_terminal()


def test_a_full_round_of_quitting_ends_the_game_at_once():
    game = _basic(n=3, display=[0])
    game.apply_action(A_QUIT)
    game.apply_action(A_QUIT)
    assert not game.is_terminal()
    game.apply_action(A_QUIT)
    assert game.is_terminal()


def test_a_move_with_a_discovery_is_not_quitting():
    game = _basic(n=3, display=[0])
    game.apply_action(A_QUIT)
    game.apply_action(A_DISCOVER)
    game.apply_action(A_QUIT)
    game.apply_action(A_QUIT)
    game.apply_action(A_QUIT)
    assert not game.is_terminal() and game.quits == 2
    game.apply_action(A_NO_RECRUIT)
    game.apply_action(A_QUIT)
    assert game.is_terminal()


def test_recruiting_then_quitting_counts_as_quitting():
    game = new_game(2)
    game.museum_sci[1] = 2
    game = _basic_from(game, display=[0])
    game.apply_action(A_QUIT)
    assert game.phase == RECRUIT and game.current_player() == 1
    game.apply_action(A_RECRUIT)
    game.apply_action(A_QUIT)
    assert game.is_terminal()


# ----------------------------------------------------------------- scoring
def _finish(game):
    game._game_over()
    return game


def test_rulebook_valuation_example():
    """4 green, 3 red, 1 blue gem; 7 adjoining skulls, 3 skeletons, 2 claws (or 2 bones); unused claim
    disc; 4 scientists in camp: 28 + 9 + 2 + 2 + 4 = 45."""
    skulls = [cell(0, c) for c in range(4)] + [cell(1, c) for c in range(3)]
    skeletons = [cell(1, 3), cell(2, 2), cell(2, 3)]
    claws, bones = [cell(2, 0), cell(2, 1)], [cell(3, 0), cell(3, 1)]
    museum = (
        [(t, c, 0) for t, c in zip([17, 20, 21, 22, 23, 24, 25], skulls)]
        + [(t, c, 0) for t, c in zip([27, 28, 29], skeletons)]
        + [(t, c, 0) for t, c in zip([47, 48], claws)]
        + [(t, c, 0) for t, c in zip([38, 39], bones)]
    )
    game = new_game(2)
    game.gems[0] = [3, 4, 1]
    game.supply = [3, 2, 5]
    game.paleo[0] = False
    game.national[0] = 6
    game.museum_sci[0] = 3  # returned at the end: still counts as camp
    game = arrange(game, museums={0: museum, 1: [(18, CENTRE, 0)]}, display=[0])
    assert game.group_points[0] == 28 + 9 + 2
    assert game.score(0) == 45


def test_end_bonuses_scientists_disc_and_paleontologist():
    game = _basic(display=[0, 1])
    assert game.score(0) == 1 * 0 + 10 + 2 + 3  # no gems yet
    game.apply_action(A_DISCOVER_DISC)  # a disc on a tile is used: no 2 points
    assert game.score(0) == 13
    game.national[0] = 4
    game.paleo[0] = False
    sync(game)
    assert game.score(0) == 6


def test_ties_broken_by_tiles_then_scientists_in_camp():
    game = _basic(n=3)
    game.gems = [[0, 0, 0]] * 3
    # equal points for 0 and 1 (15), player 1 with more tiles; player 2 lower
    game.tiles_of[1] += (cell(0, 1),)
    game.grid[1] = tuple(60 if c == cell(0, 1) else t for c, t in enumerate(game.grid[1]))
    game.stock.remove(60)
    game.national[2] = 1
    sync(game)
    assert game.scores() == [15, 15, 14]
    _finish(game)
    assert game.winners == [1] and game.returns().tolist() == [-1, 1, -1]
    game = _basic(n=3)
    game.paleo[1] = False
    game.gems[1] = [1, 0, 0]  # 1 point back, still 14 with... 1 gem x 1 skull = 1
    game.supply[0] -= 1
    game.national[1] = 0
    game.disc[2] = DISC_SPENT
    sync(game)
    assert game.scores() == [15, 13, 13]
    game.gems[0] = [0, 0, 0]
    game.paleo[0] = False
    game.disc[0] = DISC_SPENT
    game.national[0] = 0
    sync(game)
    assert game.scores() == [10, 13, 13]
    # 1 and 2 tie on points and tiles; 2 has... equal scientists: a shared win
    _finish(game)
    assert game.winners == [1, 2] and game.returns().tolist() == [-1, 0, 0]


def test_scientists_in_camp_break_a_tie_on_points_and_tiles():
    game = _basic(n=2)
    # player 0: 9 camp scientists + 1 national, gems give 1 more point: 1 + 9 + 2 + 3 = 15
    game.national[0] = 1
    game.gems[0] = [1, 0, 0]
    game.supply[0] -= 1
    sync(game)
    assert game.scores() == [15, 15]
    _finish(game)
    assert game.winners == [1]


def test_margin_rewards_are_score_differences():
    game = arrange(new_game(3, reward="margin"), museums={p: [(14 + p, CENTRE, 0)] for p in range(3)})
    game.national = [0, 2, 4]
    sync(game)
    _finish(game)
    assert game.scores() == [15, 13, 11]
    assert game.returns().tolist() == [3.0, 0.0, -3.0] and game.returns().sum() == 0


def test_rank_rewards_paid_only_at_the_end():
    game = _basic(display=[0])
    assert game.returns().tolist() == [0, 0]
    game.apply_action(A_QUIT)
    game.apply_action(A_QUIT)
    assert game.is_terminal() and sorted(game.returns().tolist()) in ([-1, 1], [0, 0])


# ----------------------------------------------------------------- observation
def test_observation_is_relative_and_shows_public_information():
    game = _basic(n=3, display=[0, 20], markers={0: (M_SCIENTIST, 2), 20: (M_DISC, 1)})
    obs = game.observation_dict(1)
    assert obs["to_move"].tolist() == [0, 0, 1]  # player 0 is seat 2 relative to player 1
    assert obs["tile_marker"][0, 0].tolist() == [0, 1, 0]  # player 2 = seat 1 relative to player 1
    assert obs["tile_marker"][20, 1].tolist() == [1, 0, 0]  # own disc
    assert obs["seat_info"][0, 9] == 1 and obs["seat_info"][1, 2] == pytest.approx(0.1)
    assert obs["tile_where"][0].tolist() == [0, 1, 0, 0]
    assert obs["tile_museum"][15].tolist() == [1, 0, 0]  # player 1's starting tile
    kinds = [TILE_KIND[t] for t in game.stock]
    assert np.allclose(obs["stock"][1:] * 16, np.bincount(kinds, minlength=8))
    assert obs["stock"][0] * 64 == pytest.approx(len(game.stock))


def test_stock_order_and_future_die_are_hidden_and_resampled():
    game = new_game(2, die=True, seed=4)
    rng = np.random.default_rng(1)
    orders, rolls = set(), set()
    for _ in range(20):
        sample = game.resample_hidden(0, rng)
        assert np.array_equal(sample.observation(0), game.observation(0))
        assert sorted(sample.stock) == sorted(game.stock)
        orders.add(tuple(sample.stock))
        while sample.phase != EXPEDITION or sample.current_player() == game.current_player():
            moves = np.flatnonzero(sample.legal_action_mask())
            sample.apply_action(int(A_QUIT if A_QUIT in moves else moves[-1]))
            if sample.phase == DIE:
                break
        rolls.add(sample.die_value)
    assert len(orders) == 20 and len(rolls) > 2


def test_bad_actions_leave_the_game_unchanged():
    game = _basic(display=[20], markers={20: (M_DISC, 1)})
    before = (game.state_tensor().tobytes(), game.camp[:], game.display[:])
    for action in (A_EXCAVATE + 20, A_GEM, A_PLACE, A_RECRUIT, -1, 397, "x"):
        with pytest.raises(IllegalActionError):
            game.apply_action(action)
    assert (game.state_tensor().tobytes(), game.camp[:], game.display[:]) == before


def test_state_holds_the_stock_order_the_observations_do_not():
    game = new_game(3, seed=2)
    state = game.state_layout.split(game.state_tensor())
    stock = [int(x) - 1 for x in state["stock_order"] if x > 0]
    assert stock == game.stock[::-1]  # from the top
    assert game.state_layout.size == game.observation_layout.size + 64
    assert np.array_equal(game.state_tensor()[: game.observation_layout.size], game.observation(0))


def test_config_values_are_checked():
    for bad in ({"num_players": 1}, {"num_players": 5}, {"die": 1}, {"reward": "score"}):
        with pytest.raises(ConfigError):
            Exposaurus(**bad)


def test_the_excavated_tile_is_shown_until_placed():
    game = _basic(display=[49])  # claw R, G, Y
    game.apply_action(A_EXCAVATE + 49)
    hand = game.observation_dict(1)["in_hand"]
    assert hand[:8].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]
    assert hand[8 + 0] == 1 and hand[8 + 4 + 1] == 1 and hand[8 + 8 + 3] == 1 and hand.sum() == 4
    assert game.observation_dict(0)["tile_where"][49].tolist() == [0, 0, 1, 0]
    game.apply_action(place(cell(0, 1)))
    assert game.observation_dict(0)["in_hand"].sum() == 0


def test_clone_is_independent():
    game = new_game(3, die=True, seed=9)
    copy = game.clone()
    rng = np.random.default_rng(0)
    before = (game.state_tensor().tobytes(), game.stock[:], [g[:] for g in game.grid])
    for _ in range(40):
        if copy.is_terminal():
            break
        moves = np.flatnonzero(copy.legal_action_mask())
        copy.apply_action(int(moves[rng.integers(len(moves))]))
    assert (game.state_tensor().tobytes(), game.stock[:], [g[:] for g in game.grid]) == before
    game.check_invariants()
    copy.check_invariants()
