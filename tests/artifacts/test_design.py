"""The designed cards are complete and RULES.md's tables are generated from data.py."""

from __future__ import annotations

import pytest

from envs.artifacts import data as D
from envs.artifacts_v0 import env
from envs.core import ConfigError


def test_decks_hold_25_artifacts_and_25_events():
    assert D.NUM_ARTIFACTS * D.PIECES_PER_ARTIFACT == 25 and len(D.ARTIFACTS) == 5
    assert len(D.EVENTS) == 25 and len({e.name for e in D.EVENTS}) == 25


def test_the_five_named_events_and_every_type_are_present():
    names = {e.name for e in D.EVENTS}
    assert set(D.NAMED_EVENTS) <= names
    types = {e.type for e in D.EVENTS}
    assert types == {D.ACTION, D.STORAGE, D.RANDOM, D.ELECTION}
    assert any(e.delay for e in D.EVENTS)  # Delayed
    assert D.EVENTS[D.EVENT_ID["Scapegoat"]].type == D.RANDOM
    assert D.EVENTS[D.EVENT_ID["Chosen One"]].type == D.RANDOM
    assert D.EVENTS[D.EVENT_ID["Storage Expansion"]].type == D.STORAGE
    assert D.EVENTS[D.EVENT_ID["Borrow Exhibit"]].type == D.STORAGE


def test_deaths_are_possible_but_rare():
    killers = [e.name for e in D.EVENTS if e.effect == "kill"]
    assert 1 <= len(killers) <= 3


def test_resources_have_costs_and_are_printed_on_cards():
    assert len(D.RESOURCES) >= 3 and all(r.cost >= 1 for r in D.RESOURCES)
    printed = {r for e in D.EVENTS for r in e.resources}
    assert printed == set(range(len(D.RESOURCES)))


def test_sites_include_china_and_spain_and_one_more():
    assert {"china", "spain"} <= set(D.SITES) and len(set(D.SITES) - {"none", "china", "spain"}) >= 1


@pytest.mark.parametrize("pref", D.PREFERENCES)
@pytest.mark.parametrize("n", range(5, 11))
def test_role_chart(n, pref):
    roles = D.role_chart(n, pref)
    assert len(roles) == n
    assert sum(D.ROLE_SIDE[r] == D.LOOTERS for r in roles) == D.LOOTER_COUNT[n]
    assert roles.count(D.MAFIA_BOSS) == 1 and roles.count(D.POSSESSED) == 1
    assert roles.count(D.SHAMAN) == 1 and roles.count(D.TOMB_RAIDER) >= 1


def test_roles_include_named_and_two_more_per_side():
    names = set(D.ROLE_NAMES)
    assert {"Tomb Raider", "Mafia Boss", "Possessed", "Shaman", "Academic"} <= names
    extra_a = [
        r for r in D.ROLES if r.side == D.ACADEMICS and r.name not in ("Possessed", "Shaman", "Academic")
    ]
    extra_l = [r for r in D.ROLES if r.side == D.LOOTERS and r.name not in ("Tomb Raider", "Mafia Boss")]
    assert len(extra_a) >= 2 and len(extra_l) >= 2


def test_rules_md_tables_are_generated_from_data():
    text = D.RULES_PATH.read_text()
    assert D.rules_with_tables(text) == text, "run python -m envs.artifacts.data"
    for e in D.EVENTS:
        assert e.name in text


def test_bad_options_are_clear_errors():
    with pytest.raises(ConfigError, match="preference"):
        env(preference="chaos")
    with pytest.raises(ConfigError, match="site"):
        env(site="atlantis")
    with pytest.raises(ConfigError, match="num_players"):
        env(num_players=4)
    with pytest.raises(ConfigError, match="talk"):
        env(talk="yes")


def test_set_table_rejects_bad_tables_and_leaves_the_game_as_it_was():
    import numpy as np

    from envs.artifacts.rules import Artifacts

    g = Artifacts(rng=np.random.default_rng(0), num_players=7)
    before = (g.roles.tobytes(), list(g.storage), list(g.pile))
    for bad in (
        {"roles": ["Possessed"] * 7},
        {"roles": ["Pirate"] * 7},
        {"storage": (4, 0, 0, 0, 0)},
        {"sold": (3, 0, 0, 0, 0), "discard": (3, 0, 0, 0, 0)},
        {"top": ["No Such Event"]},
        {"top": [7]},
    ):
        with pytest.raises(ValueError):
            g.set_table(**bad)
        assert (g.roles.tobytes(), list(g.storage), list(g.pile)) == before
