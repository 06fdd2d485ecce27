"""`resample_hidden(p, rng)` decides from seat p's information alone, and `clone()` copies the state.

A search agent draws its worlds with `resample_hidden(p, rng)`: two tables that p cannot tell apart
must give the same draw for the same seed (same state, same future), or the agent's choice would
depend on what p cannot know.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.exposed.rules import DENTIST, Exposed, definition

from .helpers import do, new_game, seat_action, set_identity, start, steal_mark, swap_cards


def _random_position(n: int, seed: int, steps: int) -> Exposed:
    """A game after up to `steps` random decisions (stopping one short of the end)."""
    g = new_game(n, seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = g.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        trial = g.clone()
        trial.apply_action(action)
        if trial.is_terminal():
            break
        g.apply_action(action)
    return g


def _hidden_twin(g: Exposed, p: int) -> Exposed | None:
    """The same table with one card p cannot know in another hidden place: an unknown player's
    Identity card exchanged with a deck card p has not seen (both Guests' tiles unexposed and
    allowed by every deduction). None when no such exchange exists."""
    bit = 1 << p
    for q in range(g.num_players):
        if q == p or g.player_exposed[q] or g.known_by[q] & bit:
            continue
        for i, x in enumerate(g.deck):
            total = g.stash[q] + g.wallets_on[g.cell_of_guest[x]]
            fits = g.public_candidates[q, x] and g.dentist_candidates[:, q, x].all() and total < 7
            if not g.deck_seen[i] and not g.tile_exposed[g.cell_of_guest[x]] and fits:
                twin = g.clone()
                swap_cards(twin, twin.ident[q], x)
                return twin
    return None


def _same_draw_and_future(a: Exposed, b: Exposed, seed: int, steps: int = 40) -> None:
    assert (a.ident, a.deck) == (b.ident, b.deck)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        assert np.array_equal(a.state_tensor(), b.state_tensor())
        if a.is_terminal():
            assert b.is_terminal()
            return
        legal = a.legal_actions()
        assert np.array_equal(legal, b.legal_actions())
        action = int(legal[rng.integers(len(legal))])
        a.apply_action(action)
        b.apply_action(action)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_tables_differing_only_in_hidden_cards_resample_identically(n):
    tried = 0
    for seed in range(6):
        g = _random_position(n, seed, steps=15 * seed)
        for p in range(n):
            twin = _hidden_twin(g, p)
            if twin is None:
                continue
            assert twin.ident != g.ident  # the tables differ, but not for p:
            assert np.array_equal(twin.observation(p), g.observation(p))
            for draw in range(3):
                a = g.resample_hidden(p, np.random.default_rng(draw))
                b = twin.resample_hidden(p, np.random.default_rng(draw))
                _same_draw_and_future(a, b, seed=draw)
                tried += 1
    assert tried >= 10


def test_a_dentist_answer_between_two_others_does_not_shape_my_draw():
    """q told r a line, then showed p its card (Snitch): p knows q's Guest but not which line q
    told r. Two tables where q told the row or the column give p the same draws."""
    worlds = []
    for line_kind in ("row", "column"):
        g, r = start(n=6, seed=3)
        q, p = (r + 1) % 6, (r + 2) % 6
        set_identity(g, q, "Lawyer")
        steal_mark(g, "Dentist")
        do(g, seat_action(g, r, q))
        assert g.decision_kind == DENTIST and g.current_player() == q
        c = g._guest_cell(q)
        line = c // g.side if line_kind == "row" else g.side + c % g.side
        do(g, g.OFF_LINE + line)
        assert g.current_player() == q  # q's own turn: Snitch to p, then flip a plain tile
        do(g, g.OFF_SNITCH + (p - q) % 6)
        flip = next(x for x in g.deck if not g.tile_exposed[g.cell_of_guest[x]])
        do(g, g.OFF_CELL + int(g.cell_of_guest[flip]))
        worlds.append(g)
    a, b = worlds
    assert a.dentist_records[0][3] != b.dentist_records[0][3]
    assert a.known_by[q] >> p & 1
    assert np.array_equal(a.observation(p), b.observation(p))
    for seed in range(5):
        sa = a.resample_hidden(p, np.random.default_rng(seed))
        sb = b.resample_hidden(p, np.random.default_rng(seed))
        _same_draw_and_future(sa, sb, seed)


def test_a_draw_never_falls_back_to_the_true_cards():
    """Seat p's draws cover every Guest the other player may hold, whatever their true card."""
    g, p = start(n=2, seed=5)
    q = 1 - p
    allowed = [
        x
        for x in [g.ident[q], *g.deck]
        if g.public_candidates[q, x] and not g.tile_exposed[g.cell_of_guest[x]] and x != g.ident[p]
    ]
    rng = np.random.default_rng(0)
    drawn = {g.resample_hidden(p, rng).ident[q] for _ in range(400)}
    assert drawn == set(allowed)


@pytest.mark.parametrize("n", [2, 6])
def test_a_clone_is_independent_of_its_original(n):
    for seed in range(4):
        g = _random_position(n, seed, steps=10 + 20 * seed)
        before = g.state_tensor(), [g.observation(p) for p in range(n)], g.legal_actions()
        c = g.clone()
        assert np.array_equal(c.state_tensor(), before[0])
        rng = np.random.default_rng(seed)
        while not c.is_terminal():
            legal = c.legal_actions()
            c.apply_action(int(legal[rng.integers(len(legal))]))
        assert np.array_equal(g.state_tensor(), before[0])
        for p in range(n):
            assert np.array_equal(g.observation(p), before[1][p])
        assert np.array_equal(g.legal_actions(), before[2])
        g.check_invariants()


def test_a_clone_shares_nothing_mutable_but_the_fixed_geometry():
    """Every list, dict or writeable array of a game is copied by `clone` (inner lists too), except
    the `Definition` fixed for the player count (shared, the same object in every game): a field
    added to the state and forgotten by `clone` fails here."""
    g = _random_position(6, 1, steps=60)
    g.observation(0), g.state_tensor(), g.legal_action_mask()
    c = g.clone()
    fixed = set(vars(definition(g.num_players)))  # the shared definition
    assert all(g.__dict__[k] is c.__dict__[k] is v for k, v in vars(definition(g.num_players)).items())
    for key, value in g.__dict__.items():
        if key in fixed or key not in c.__dict__:
            continue
        copied = c.__dict__[key]
        if isinstance(value, np.ndarray):
            assert copied is not value or not value.flags.writeable, key
        elif isinstance(value, (list, dict, set)):
            assert copied is not value, key
            inner = [x for x in value if isinstance(x, (list, dict, set, np.ndarray))]
            assert all(x is not y for x, y in zip(inner, copied)), key
