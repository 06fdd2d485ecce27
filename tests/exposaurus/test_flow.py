"""The turn flow, the decision table and the observer of Exposaurus: a move's frames follow the
rulebook's order, each decision kind has its handlers, every mask reads the rule its refusal words,
and each observation is the absolute table rotated on the layout's declared seat axes."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import ActionGroup
from envs.exposaurus.data import KINDS, NUM_PHASES, PHASE_NAMES
from envs.exposaurus.rules import (
    A_DIE_REMOVE,
    A_DISCOVER,
    A_DISCOVER_DISC,
    A_EXCAVATE,
    A_EXCAVATE_PALEO,
    A_PLACE,
    CELLS,
    CENTRE,
    DECISIONS,
    DIE,
    END_MOVE,
    EXPEDITION,
    GEM,
    NUM_ACTIONS,
    NUM_TILES,
    OFFER_RECRUITMENT,
    PLACE,
    RECRUIT,
    SIDE,
    definition,
)

from .helpers import arrange, new_game


def test_a_move_is_pushed_in_the_rulebook_order():
    """Die -> recruitment offer -> expedition -> end of the move: pushed in reverse, played top first."""
    game = arrange(
        new_game(2, die=True, seed=1), museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]}, display=[0]
    )
    game.museum_sci[0] = 1  # a scientist out: recruitment will be offered after the die
    game.flow.clear()
    game._start_move()  # an egg (cost 1) lies in the display: every roll can remove it
    mine = game._decisions[0]
    assert game.flow.frames == [END_MOVE, mine[EXPEDITION], OFFER_RECRUITMENT, mine[DIE]]
    assert game.current_player() == 0 and game.phase == DIE
    game.apply_action(A_DIE_REMOVE + 0)
    assert game.flow.frames == [END_MOVE, mine[EXPEDITION], mine[RECRUIT]]


def test_every_decision_kind_has_its_handlers_and_frames():
    assert list(DECISIONS) == list(PHASE_NAMES[:NUM_PHASES])
    for n, die in ((2, True), (3, False), (4, True)):
        for p, frames in enumerate(definition(n, die)._decisions):
            for kind, frame in enumerate(frames):
                handlers = DECISIONS[PHASE_NAMES[kind]]
                assert (frame.kind, frame.player, frame.legal, frame.then) == (
                    kind,
                    p,
                    handlers.legal,
                    handlers.then,
                )


def _problems(game) -> dict[int, object]:
    """For the waiting decision: each action of its rule -> what the rule says stands in the way."""
    kind, p = game.phase, game.player
    if kind == DIE:
        return {A_DIE_REMOVE + t: game.die_removal_problem(t) for t in range(NUM_TILES)}
    if kind == EXPEDITION:
        out = {A_DISCOVER: game.discovery_problem(False), A_DISCOVER_DISC: game.discovery_problem(True)}
        for t in range(NUM_TILES):
            out[A_EXCAVATE + t] = game.excavation_problem(t, False)
            out[A_EXCAVATE_PALEO + t] = game.excavation_problem(t, True)
        return out
    if kind == PLACE:
        return {A_PLACE + 4 * c + r: game.placement_problem(p, c) for c in range(CELLS) for r in range(4)}
    return {}


@pytest.mark.parametrize("n", [2, 4])
def test_each_mask_reads_the_rule_its_refusal_words(n):
    """Along random games: an action is legal exactly when its rule sees no problem, and a refused
    action's reason is the rule's own words."""
    rng = np.random.default_rng(n)
    kinds = set()
    for seed in range(4):
        game = new_game(n, die=True, seed=seed)
        while not game.is_terminal():
            mask = game.legal_action_mask()
            kinds.add(game.phase)
            for action, problem in _problems(game).items():
                assert mask[action] == (problem is None), (game.action_to_string(action), problem)
                if problem is not None:
                    words = problem if isinstance(problem, str) else game.excavation_refusal(problem)
                    assert game.illegal_reason(action) == words
            for action in np.flatnonzero(~mask)[:: max(1, NUM_ACTIONS // 40)]:
                assert game.illegal_reason(int(action))
            legal = np.flatnonzero(mask)
            game.apply_action(int(legal[rng.integers(len(legal))]))
    assert {DIE, EXPEDITION, PLACE} <= kinds and (GEM in kinds or n == 2)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_is_the_table_rotated_on_the_declared_seat_axes(n):
    """observation(p) = the state tensor's public pieces (absolute seats) with every axis the layout
    declares a seat axis rotated so that position k is seat (p + k) % n."""
    game = new_game(n, die=True, seed=n)
    rng = np.random.default_rng(0)
    for _ in range(40):
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[rng.integers(len(legal))]))
    state = game.state_layout.split(game.state_tensor())
    for p in range(n):
        seen = game.observation_dict(p)
        perm = (p + np.arange(n)) % n
        for piece in game.observation_layout:
            expected = state[piece.name]
            for axis, kind in enumerate(piece.axes):
                if kind == "seat":
                    expected = np.take(expected, perm, axis=axis)
            assert np.array_equal(seen[piece.name], expected), piece.name


@pytest.mark.parametrize("n", [2, 4])
def test_placement_actions_lie_on_the_cells_of_the_placers_museum_piece(n):
    """The place block declares that it lies on the `museum` grid at the acting seat: placing the
    excavated tile with action A_PLACE + (row * SIDE + col) * 4 + rotation fills exactly that cell of
    seat 0 (the placer) in the placer's observation, and shows the tile's kind there."""
    place = next(ActionGroup(*g) for g in new_game(n).action_groups() if g[0] == "place")
    assert (place.start, place.cells, place.depth) == (A_PLACE, "museum", 4)
    rng = np.random.default_rng(n)
    placed = 0
    for seed in range(6):
        game = new_game(n, die=True, seed=seed)
        while not game.is_terminal():
            legal = np.flatnonzero(game.legal_action_mask())
            action = int(legal[rng.integers(len(legal))])
            if game.phase == PLACE:
                p = game.player
                before = game.observation_layout.split(game.observation(p))["museum"][0].copy()
                game.apply_action(action)
                after = game.observation_layout.split(game.observation(p))["museum"][0]
                cell, _ = divmod(action - place.start, place.depth)
                row, col = divmod(cell, SIDE)
                changed = np.argwhere((before != after).any(-1))
                assert changed.tolist() == [[row, col]]
                assert not before[row, col].any() and after[row, col, : len(KINDS)].sum() == 1
                placed += 1
                continue
            game.apply_action(action)
    assert placed > 20
