"""Scoring: the colour-to-group assignment against a brute-force reference on random museums."""

from __future__ import annotations

import itertools

import numpy as np

from envs.exposaurus.data import NUM_FOSSILS, TILE_KIND
from envs.exposaurus.rules import CELLS, SIDE, best_assignment, fossil_groups

from .helpers import new_game


def reference_groups(kinds: dict[tuple[int, int], int]) -> list[int]:
    """Sizes of groups of orthogonally adjoining equal fossils (an independent flood fill)."""
    label: dict[tuple[int, int], int] = {}
    sizes: list[int] = []
    for start, kind in kinds.items():
        if start in label or kind >= NUM_FOSSILS:
            continue
        label[start] = len(sizes)
        frontier, size = [start], 0
        while frontier:
            r, c = frontier.pop()
            size += 1
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb not in label and kinds.get(nb) == kind:
                    label[nb] = len(sizes)
                    frontier.append(nb)
        sizes.append(size)
    return sizes


def brute_force(gems: list[int], sizes: list[int]) -> int:
    """Try every way to give each colour a distinct group (or none)."""
    best = 0
    options = list(range(len(sizes))) + [None] * 3
    for choice in itertools.permutations(options, 3):
        used = [g for g in choice if g is not None]
        if len(used) != len(set(used)):
            continue
        best = max(best, sum(gems[i] * sizes[g] for i, g in enumerate(choice) if g is not None))
    return best


def test_best_assignment_matches_brute_force_on_random_museums():
    rng = np.random.default_rng(0)
    for _ in range(1500):
        count = int(rng.integers(1, 17))
        cells = rng.choice(16, size=count, replace=False)
        # few kinds -> big groups; many kinds -> many small groups; kinds 6, 7 are gem tiles
        kinds_used = int(rng.integers(1, 9))
        kinds = {(int(c) // 4, int(c) % 4): int(rng.integers(kinds_used)) for c in cells}
        gems = [int(x) for x in rng.integers(0, 13, size=3)]
        sizes = reference_groups(kinds)
        engine = fossil_groups({(r + 1) * SIDE + c + 1: k for (r, c), k in kinds.items()})
        assert sorted(s for _, s in engine) == sorted(sizes)
        assert best_assignment(gems, [s for _, s in engine]) == brute_force(gems, sizes)


def test_each_group_serves_one_colour_only():
    # one group of 5 skulls and one egg: 3 red and 2 green cannot both use the skulls
    assert best_assignment([3, 2, 0], [5, 1]) == 3 * 5 + 2 * 1
    assert brute_force([3, 2, 0], [5, 1]) == 17
    # two separate groups of the same fossil are two groups
    kinds = {(0, 0): 1, (0, 1): 1, (0, 2): 0, (0, 3): 1}
    assert sorted(reference_groups(kinds)) == [1, 1, 2]


def test_final_scores_of_random_games_match_the_reference():
    rng = np.random.default_rng(1)
    for seed in range(40):
        game = new_game(int(rng.integers(2, 5)), seed=seed)
        while not game.is_terminal():
            moves = np.flatnonzero(game.legal_action_mask())
            game.apply_action(int(moves[rng.integers(len(moves))]))
        for p in range(game.num_players):
            kinds = {
                divmod(c, SIDE): TILE_KIND[game.grid[p][c]] for c in range(CELLS) if game.grid[p][c] >= 0
            }
            points = brute_force(game.gems[p], reference_groups(kinds))
            bonus = (10 - game.national[p]) + 2 * (game.disc[p] == 0) + 3 * game.paleo[p]
            assert game.score(p) == points + bonus
