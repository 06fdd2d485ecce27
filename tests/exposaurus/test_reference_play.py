"""Random games checked step by step against naive reference implementations of placement and circles."""

from __future__ import annotations

import gymnasium
import numpy as np

import envs  # noqa: F401  (registers the Gymnasium ids)
from envs.exposaurus.baseline import make_policy
from envs.exposaurus.data import TILE_KIND, YELLOW, rotated_edges
from envs.exposaurus.rules import A_GEM, A_PLACE, CELLS, GEM, PLACE, SIDE

from .helpers import new_game


def naive_cells(game, p):
    """Empty cells with an occupied side-neighbour whose addition keeps all tiles in a 4x4 box."""
    occupied = [c for c in range(CELLS) if game.grid[p][c] >= 0]
    out = set()
    for c in range(CELLS):
        if game.grid[p][c] >= 0:
            continue
        r, col = divmod(c, SIDE)
        touching = any(abs(r - o // SIDE) + abs(col - o % SIDE) == 1 for o in occupied)
        rows = [o // SIDE for o in occupied] + [r]
        cols = [o % SIDE for o in occupied] + [col]
        if touching and max(rows) - min(rows) <= 3 and max(cols) - min(cols) <= 3:
            out.add(c)
    return out


def naive_circles(game, p, tile, c, rot):
    edges = rotated_edges(tile, rot)
    r, col = divmod(c, SIDE)
    found = []
    for d, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
        rr, cc = r + dr, col + dc
        if not (0 <= rr < SIDE and 0 <= cc < SIDE):
            continue
        nb = game.grid[p][rr * SIDE + cc]
        if nb < 0:
            continue
        facing = rotated_edges(nb, game.rotation[p][rr * SIDE + cc])[(d + 2) % 4]
        if edges[d] and edges[d] == facing:
            found.append(edges[d])
    return found


def test_random_games_match_the_reference_placement_and_circles():
    rng = np.random.default_rng(3)
    placements = 0
    for seed in range(30):
        game = new_game(int(rng.integers(2, 5)), die=bool(seed % 2), seed=seed)
        while not game.is_terminal():
            mask = game.legal_action_mask()
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(len(legal))])
            if game.phase == PLACE:
                p, tile = game.current_player(), game.pending
                cells = {(int(a) - A_PLACE) // 4 for a in legal}
                assert cells == naive_cells(game, p)
                assert len(legal) == 4 * len(cells)
                circles = naive_circles(game, p, tile, (action - A_PLACE) // 4, (action - A_PLACE) % 4)
                before, supply = game.gems[p][:], game.supply[:]
                game.apply_action(action)
                placements += 1
                plain = [0, 0, 0]
                for colour in circles:
                    if colour != YELLOW:
                        plain[colour - 1] += 1
                expected = [before[i] + min(plain[i], supply[i]) for i in range(3)]
                yellow = circles.count(YELLOW) + (TILE_KIND[tile] == 7)
                if game.phase == GEM:  # gem choice pending: plain gems already paid
                    assert game.gems[p] == expected and game.yellow == yellow
                elif yellow == 0 or sum(game.supply) == 0:
                    assert game.gems[p] == expected
                continue
            if action >= A_GEM:
                assert game.supply[action - A_GEM] > 0
            game.apply_action(action)
    assert placements > 100


def test_gymnasium_face_with_scripted_opponents():
    env = gymnasium.make("tabletop/Exposaurus-v0", num_players=3, opponents=make_policy(), seat=1)
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    policy = make_policy()
    total = 0.0
    while not done:
        action = policy(obs, info["action_mask"])
        obs, reward, done, truncated, info = env.step(action)
        total += reward
        steps += 1
    assert steps > 5 and total in (-1.0, 1.0, 0.0, -1 / 3)
