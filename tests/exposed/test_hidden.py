"""Hidden information, public deductions, resampling, recent public actions, conservation, faces."""

from __future__ import annotations

import numpy as np

from envs.exposed.baseline import ScriptedExposedPolicy
from envs.exposed.data import GUESTS
from envs.exposed.rules import DENTIST, wallet_scale

from .helpers import (
    at,
    cell_of,
    do,
    flat_obs,
    make_mark,
    new_game,
    plain,
    put,
    rebalance,
    seat_action,
    set_identity,
    start,
    steal_mark,
    swap_cards,
)


def _rel(g, viewer, q):
    return (q - viewer) % g.num_players


def test_observation_does_not_depend_on_an_unknown_players_tile():
    g, p = start(n=4)
    q, r = (p + 1) % 4, (p + 2) % 4
    before = g.observation(r)
    spare = next(x for x in g.deck if not g.tile_exposed[g.cell_of_guest[x]])
    swap_cards(g, g.ident[q], spare)  # q now holds another Guest: only the hidden card changed
    assert np.array_equal(g.observation(r), before)
    total = g.stash[q] + g.wallets_on[g._guest_cell(q)]
    assert flat_obs(g, q)["own_total"][0] == np.float32(wallet_scale(total))


def test_steal_and_expose_are_public_deductions_about_the_thief():
    g, p = start(n=4)
    q, r = (p + 1) % 4, (p + 2) % 4
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 3, 3))
    for c in (at(g, 0, 0), at(g, 3, 0)):
        plain(g, c)
    do(g, g.OFF_STEAL + at(g, 0, 0))
    cand = flat_obs(g, r)["candidates"][_rel(g, r, p)]
    assert set(np.flatnonzero(cand)) <= {at(g, 0, 0), at(g, 0, 1), at(g, 1, 0), at(g, 1, 1)}
    assert cand[cell_of(g, "Mayor")] == 1
    assert g.current_player() == q
    do(g, g.OFF_EXPOSE + at(g, 3, 0))
    cand = flat_obs(g, r)["candidates"][_rel(g, r, q)]
    line = {c for c in range(25) if (c // 5 == 3 or c % 5 == 0) and c != at(g, 3, 0)}
    assert set(np.flatnonzero(cand)) <= line and cand[at(g, 3, 3)] == 1


def test_recent_public_actions_are_observed():
    g, p = start(n=4)
    plain(g, at(g, 0, 0))
    do(g, g.OFF_STEAL + at(g, 0, 0))
    r = (p + 1) % 4
    obs = flat_obs(g, r)
    k = _rel(g, r, p)
    assert obs["last_kinds"][k].tolist() == [0, 1, 0, 0, 0]
    assert set(np.flatnonzero(obs["last_cells"][k])) == {at(g, 0, 0)}
    assert g.current_player() == r
    do(g, g.OFF_SNITCH + 2)
    obs = flat_obs(g, p)
    assert obs["last_kinds"][_rel(g, p, r)][3] == 1
    assert obs["last_seats"][_rel(g, p, r), _rel(g, p, (r + 2) % 4)] == 1


def test_resample_keeps_dentist_answers_to_me_and_redraws_others():
    g, p = start(n=6)
    q, r = (p + 1) % 6, (p + 3) % 6
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 3, 4))
    steal_mark(g, "Dentist")
    do(g, seat_action(g, p, q))
    assert g.decision_kind == DENTIST
    do(g, g.OFF_LINE + 3)  # row 3
    rng = np.random.default_rng(0)
    row3 = {int(g.guest_on[at(g, 3, c)]) for c in range(6)}
    for _ in range(20):
        s = g.resample_hidden(p, rng)
        assert s.ident[q] in row3
        assert np.array_equal(s.observation(p), g.observation(p))
        s3 = g.resample_hidden(r, rng)
        asker, target, _e, line, snap = s3.dentist_records[0]
        cell = int(np.flatnonzero(snap == s3.ident[q])[0])
        assert cell in g.line_cells[line]  # the redrawn answer fits the redrawn Guest
        s3.check_invariants()


def test_resample_keeps_snitched_identities():
    g, p = start(n=6)
    r = (p + 1) % 6
    do(g, g.OFF_SNITCH + 1)  # p shows r its card
    c = next(c for c in range(36) if not g.tile_exposed[c] and g.holder_of[g.guest_on[c]] < 0)
    do(g, g.OFF_CELL + c)
    rng = np.random.default_rng(1)
    changed = 0
    for _ in range(20):
        s = g.resample_hidden(r, rng)
        assert s.ident[p] == g.ident[p] and s.ident[r] == g.ident[r]
        changed += s.ident != g.ident
    assert changed > 0


def test_resampled_deck_keeps_the_cards_i_have_seen_in_place():
    g, p = start(n=6, me="Lawyer")
    steal_mark(g, "Mayor")
    rng = np.random.default_rng(2)
    seen = [(i, x) for i, (x, f) in enumerate(zip(g.deck, g.deck_seen)) if f >> p & 1]
    assert len(seen) == 3
    for _ in range(10):
        s = g.resample_hidden(p, rng)
        assert all(s.deck[i] == x for i, x in seen)


def test_wallets_are_conserved_exactly_in_random_games():
    rng = np.random.default_rng(5)
    for n in (2, 4, 6):
        for seed in range(8):
            g = new_game(n, seed)
            while not g.is_terminal():
                legal = g.legal_actions()
                g.apply_action(int(legal[rng.integers(len(legal))]))
                total = int(g.wallets_on.sum()) + sum(g.stash) + g.lost_found
                assert total == g.initial_wallets + g.created


def test_faq_wallets_are_unlimited_the_shortfall_is_created_and_counted():
    g, p = start(n=6)
    steal_mark(g, "Architect", use=None)  # the offer waits
    g.lost_found = 2
    rebalance(g)  # (the 2 Wallets put in the Lost & Found by hand)
    made = g.created
    g.apply_action(g.A_USE)  # 4 corners: 2 from the Lost & Found, 2 made
    assert g.lost_found == 0 and g.created == made + 2
    total = int(g.wallets_on.sum()) + sum(g.stash) + g.lost_found
    assert total == g.initial_wallets + g.created


def test_rgb_picture_shows_the_grid():
    g = new_game(6, 0)
    img = g.render_rgb()
    assert img.dtype == np.uint8 and img.shape[2] == 3 and img.shape[0] >= 6 * 64
    g._flip(0, -1)
    assert not np.array_equal(g.render_rgb(), img)  # an exposed tile is drawn differently


def test_baseline_plays_legal_moves_from_the_observation_alone():
    for n in (2, 5):
        game = new_game(n, 3)
        policies = [ScriptedExposedPolicy(game.config, seed=i) for i in range(n)]
        steps = 0
        while not game.is_terminal() and steps < 3000:
            p = game.current_player()
            a = policies[p](game.observation(p), game.legal_action_mask())
            assert game.legal_action_mask()[a]
            game.apply_action(a)
            steps += 1


def test_rules_page_item_table_is_generated_from_the_data():
    from envs.exposed.rules_doc import RULES_MD, TABLE_BEGIN, TABLE_END, item_table_markdown

    text = RULES_MD.read_text()
    table = text[text.index(TABLE_BEGIN) + len(TABLE_BEGIN) : text.index(TABLE_END)].strip()
    assert table == item_table_markdown()
    assert table.count("\n") == 37  # header, rule, 36 Guests


def test_rules_page_names_only_code_that_exists():
    """RULES.md's "Where each rule lives" table is one hop to the code: every name it gives is written
    in the module its row names before it (a method of `Exposed` in that module's mixin), and exists."""
    import ast
    import importlib
    import re
    from pathlib import Path

    from envs.exposed import rules

    here = Path(__file__).parents[2] / "envs" / "exposed"
    text = (here / "RULES.md").read_text()
    table = text[text.index("## Where each rule lives") :].split("\n## ")[0]

    def written_in(module: str) -> set[str]:  # top-level names and the names of class bodies
        names = set()
        for node in ast.parse((here / module).read_text()).body:
            inner = node.body if isinstance(node, ast.ClassDef) else []
            for n in [node, *inner]:
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                    names.add(n.name)
                targets = n.targets if isinstance(n, ast.Assign) else [getattr(n, "target", None)]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
        return names

    wrong, count = [], 0
    for row in [line for line in table.splitlines() if line.startswith("| ") and "| code" not in line]:
        module = None
        for token in re.findall(r"`([A-Za-z_]+(?:\.py)?)`", row.split(" | ")[-1]):
            if token.endswith(".py"):
                module = token
                continue
            count += 1
            found = module is not None and token in written_in(module)
            found = found and (
                hasattr(rules.Exposed, token)
                or hasattr(importlib.import_module(f"envs.exposed.{module[:-3]}"), token)
            )
            if not found:
                wrong.append(f"{token} (row says {module})")
    assert count > 40
    assert wrong == []


def test_face_docstring_is_generated_from_the_declarations():
    from envs import exposed_v0

    doc = exposed_v0.__doc__
    assert "tabletop/Exposed-v0" in doc and "`candidates`" in doc and "| swap |" in doc


def test_resample_after_a_wrestler_and_a_dentist_answer_stays_consistent():
    g, p = start(n=6)
    r = (p + 2) % 6
    steal_mark(g, "Wrestler")
    new = g.ident[p]
    assert not g.player_exposed[p]
    rng = np.random.default_rng(4)
    drawn = set()
    for _ in range(30):
        s = g.resample_hidden(r, rng)
        assert np.array_equal(s.observation(r), g.observation(r))
        assert not s.player_exposed[p] and s.public_candidates[p, s.ident[p]]
        s.check_invariants()
        drawn.add(s.ident[p])
        assert g.resample_hidden(p, rng).ident[p] == new  # p knows its own new card
    assert len(drawn) > 1


def _mechanic_worlds():
    """Two tables that differ only in the thief's secret Guest, next to a Mechanic Mark with 1
    Wallet: in world "stuck" nothing around the thief's Guest holds a Wallet after the theft, in
    world "free" the tile (2, 0) does."""
    worlds = {}
    for world in ("stuck", "free"):
        g = new_game(2, 7)
        p = g.current_player()
        q = 1 - p
        make_mark(g, "Mechanic")
        spare = [x for x in g.deck[2:] if not g.is_mark[x]]  # not the cards clean-up draws next
        names = [GUESTS[x].name for x in spare]
        stuck, free = names[0], names[1]
        put(g, "Mechanic", at(g, 0, 0))
        put(g, stuck, at(g, 0, 1))
        put(g, free, at(g, 1, 0))
        put(g, GUESTS[g.ident[q]].name, at(g, 3, 3))
        set_identity(g, p, stuck if world == "stuck" else free)
        g.wallets_on[[at(g, 0, 0), at(g, 2, 0)]] = 1
        g.wallets_on[[at(g, 0, 1), at(g, 0, 2), at(g, 1, 0), at(g, 1, 1), at(g, 1, 2), at(g, 2, 1)]] = 0
        rebalance(g)
        worlds[world] = g
    return worlds, p, q


def test_an_item_that_cannot_act_is_offered_and_tells_nothing_about_the_thief():
    worlds, p, q = _mechanic_worlds()
    for g in worlds.values():
        do(g, g.OFF_STEAL + at(g, 0, 0))
        mask = g.legal_action_mask()
        assert mask[g.A_USE] and mask[g.A_PASS]  # offered in both worlds
    stuck, free = worlds["stuck"], worlds["free"]
    assert np.array_equal(stuck.observation(q), free.observation(q))
    for g in worlds.values():
        do(g, g.A_USE)  # the Mechanic's extra Steal: a decision in both worlds, passable
        assert g.current_player() == p and g.legal_action_mask()[g.A_PASS]
    assert not stuck.legal_action_mask()[stuck.OFF_STEAL : stuck.OFF_EXPOSE].any()  # nothing to steal
    assert free.legal_action_mask()[free.OFF_STEAL + at(free, 2, 0)]
    assert np.array_equal(stuck.observation(q), free.observation(q))
    for g in worlds.values():
        do(g, g.A_PASS)  # using it did nothing but what the rules say: no Wallet moved
        assert g.stash[p] == 1 and g.current_player() == q
    assert np.array_equal(stuck.observation(q), free.observation(q))
    # what q's observation and resampling allow for the thief: both Guests next to the Mark
    cand = flat_obs(stuck, q)["candidates"][1]
    assert cand[at(stuck, 0, 1)] == 1 and cand[at(stuck, 1, 0)] == 1
    rng = np.random.default_rng(0)
    cells = set()
    for _ in range(60):
        s = stuck.resample_hidden(q, rng)
        assert np.array_equal(s.observation(q), stuck.observation(q))
        cells.add(int(s.cell_of_guest[s.ident[p]]))
    assert {at(stuck, 0, 1), at(stuck, 1, 0)} <= cells
