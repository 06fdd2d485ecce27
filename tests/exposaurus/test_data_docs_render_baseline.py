"""The tile table, the generated docs, the picture and the scripted baseline."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np

from envs import exposaurus_v0
from envs.exposaurus import data, rules_doc
from envs.exposaurus.baseline import make_policy
from envs.exposaurus.rules import A_QUIT, CENTRE, M_SCIENTIST

from .helpers import arrange, new_game


def test_tile_table_has_the_designed_distribution():
    assert data.NUM_TILES == 64
    kinds = Counter(data.KINDS[k] for k in data.TILE_KIND)
    assert kinds == {
        "egg": 14,
        "skull": 13,
        "skeleton": 11,
        "bone": 9,
        "claw": 7,
        "footprint": 6,
        "gem": 3,
        "gem_yellow": 1,
    }
    # cheap fossils common, expensive ones rare
    counts = [kinds[k] for k in data.KINDS[:6]]
    assert counts == sorted(counts, reverse=True)
    colours = Counter(ch for row in data.TILES for ch in row[3] if ch != "-")
    assert max(colours.values()) - min(colours.values()) <= 1
    for t in range(64):
        semis = sum(e > 0 for e in data.TILE_EDGES[t])
        if data.TILE_KIND[t] < 6:
            assert 1 <= semis <= 4
    gem_tiles = [row[3] for row in data.TILES if row[1] == "gem"]
    assert sorted(gem_tiles) == ["B---", "G---", "R---"]
    assert [row[3] for row in data.TILES if row[1] == "gem_yellow"] == ["----"]
    assert sorted(data.TILE_START[t] for t in data.STARTING_TILES) == [1, 2, 3, 4, 5, 6]


def test_rotation_is_clockwise_and_periodic():
    for t in range(64):
        assert data.rotated_edges(t, 0) == data.TILE_EDGES[t]
        assert data.rotated_edges(t, 4) == data.TILE_EDGES[t]
        e = data.TILE_EDGES[t]
        assert data.rotated_edges(t, 1) == (e[3], e[0], e[1], e[2])  # north edge turns east


def test_rules_md_tile_tables_are_generated_from_the_data():
    text = rules_doc.RULES_MD.read_text()
    assert rules_doc.updated(text) == text, "run python -m envs.exposaurus.rules_doc"
    assert "| 63 | gem_yellow | 3 | - | `----` |  |" in text
    out = subprocess.run([sys.executable, "-m", "envs.exposaurus.rules_doc", "--check"], capture_output=True)
    assert out.returncode == 0


def test_face_docstring_documents_actions_and_observation():
    doc = exposaurus_v0.__doc__
    for piece in new_game(4).observation_layout:
        assert f"`{piece.name}`" in doc
    assert "excavate with paleontologist" in doc and "Rewards" in doc


def test_picture_shows_museums_and_display():
    game = arrange(
        new_game(2),
        museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]},
        display=[0, 54],
        markers={54: (M_SCIENTIST, 1)},
    )
    before = game.render_rgb()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    assert len(np.unique(before.reshape(-1, 3), axis=0)) > 10
    game.apply_action(69 + 54)  # excavate the footprint
    after = game.render_rgb()
    assert after.shape == before.shape and not np.array_equal(after, before)


def test_baseline_plays_legal_moves_from_the_observation_only():
    rng = np.random.default_rng(0)
    for n in (2, 3, 4):
        policy = make_policy()
        game = new_game(n, seed=n)
        while not game.is_terminal():
            p = game.current_player()
            mask = game.legal_action_mask()
            if p == 0:
                action = policy(game.observation(p).copy(), mask.copy())
                assert mask[action]
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[rng.integers(len(legal))])
            game.apply_action(action)


def test_baseline_beats_random_players():
    policy = make_policy()
    rng = np.random.default_rng(1)
    wins = 0
    games = 12
    for g in range(games):
        game = new_game(3, seed=100 + g)
        seat = g % 3
        while not game.is_terminal():
            p = game.current_player()
            mask = game.legal_action_mask()
            if p == seat:
                game.apply_action(policy(game.observation(p), mask))
            else:
                legal = np.flatnonzero(mask)
                game.apply_action(int(legal[rng.integers(len(legal))]))
        wins += seat in game.winners
    assert wins >= 10  # chance would be 4 of 12


def test_baseline_quits_rather_than_wasting_scientists_on_nothing():
    policy = make_policy()
    game = new_game(2)
    game.national[0] = 9  # camp 1: no discovery worth it, nothing to excavate but an expensive tile
    game = arrange(game, museums={0: [(17, CENTRE, 0)], 1: [(18, CENTRE, 0)]}, display=[54])
    assert policy(game.observation(0), game.legal_action_mask()) == A_QUIT
