"""The turn flow, the handler tables and the observation bookkeeping of Artifacts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.artifacts import abilities, events, resources, votes
from envs.artifacts import data as D
from envs.artifacts.rules import Artifacts
from envs.core import IllegalActionError
from envs.core.flow import Decide, Do

from .util import SEVEN, TEN_FULL, act, kill, pass_window, table


def test_every_data_row_names_a_handler():
    assert set(events.EVENT_EFFECTS) == set(D.EFFECTS)
    assert [events.EVENT_EFFECTS[e.effect] for e in D.EVENTS] == list(events.EVENT_EFFECT)
    for role, row in enumerate(D.ROLES):
        assert (abilities.ROLE_ABILITY[role] is not None) == D.ROLE_ACTIVE[role] == (row.ability == "active")
    assert set(resources.RESOURCE_RULES) == {r.name for r in D.RESOURCES}
    assert [resources.RESOURCE_RULES[r.name] for r in D.RESOURCES] == list(resources.RESOURCE_RULE)
    assert set(events.EVENT_TARGETS) == set(D.TARGETS)
    assert [events.EVENT_TARGETS[D.TARGETS[e.target]] for e in D.EVENTS] == list(events.EVENT_TARGET)
    assert set(votes.PIECE_VOTES) == set(D.TYPE_VOTES)
    assert tuple(votes.VOTES) == D.VOTE_PHASES  # every vote kind: mask, ballot, close, resampled ballot


@pytest.mark.parametrize(
    "event, targets",
    [("Quiet Day", "none"), ("Foxfire", "drawer"), ("Scapegoat", "random"), ("Interrogation", "elected")],
)
def test_an_event_resolves_through_the_target_rule_its_row_names(event, targets, monkeypatch):
    """_resolve follows EVENT_TARGET (the row's T_* name in data.TARGETS): swap the rule, the event
    follows the swap."""
    ev = D.EVENT_ID[event]
    assert D.TARGETS[D.EVENTS[ev].target] == targets
    seen = []
    table_of = list(events.EVENT_TARGET)
    table_of[ev] = lambda game, e, ballot_box: seen.append((e, ballot_box))
    monkeypatch.setattr(events, "EVENT_TARGET", tuple(table_of))
    g = table(7, SEVEN, top=[event])
    pass_window(g)
    assert seen == [(ev, 0)]


def test_the_window_mask_and_the_illegal_action_reason_come_from_one_refusal():
    """Every window option is allowed exactly when its refusal is empty, and a refused one raises
    with that refusal."""
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(8):
        for site in ("none", "spain"):
            g = Artifacts(rng=np.random.default_rng(seed), num_players=7, site=site)
            while not g.is_terminal():
                mask = g.legal_action_mask()
                if g.phase == D.PH_WINDOW:
                    s = g.current_player()
                    for action, (option, k) in g._window_action:
                        why = option.refusal(g, s, k)
                        assert mask[action] == (why == ""), (action, why)
                        if why:
                            with pytest.raises(IllegalActionError, match=re.escape(why)):
                                g.apply_action(action)
                            checked += 1
                legal = np.flatnonzero(mask)
                g.apply_action(int(legal[rng.integers(len(legal))]))
    assert checked > 100


def test_a_resource_the_card_does_not_list_is_refused_with_the_reason():
    g = table(7, SEVEN, sold=(3, 3, 0, 0, 0), top=[2])  # an artifact: it lists no resource
    with pytest.raises(IllegalActionError, match="the current card does not list that resource"):
        g.apply_action(g.A_RES + D.LAWYER)
    g = table(7, SEVEN, sold=(1, 0, 0, 0, 0), top=["Interrogation"])
    with pytest.raises(IllegalActionError, match="Sold holds fewer pieces than that resource costs"):
        g.apply_action(g.A_RES + D.LAWYER)
    with pytest.raises(IllegalActionError, match="only under Spain"):
        g.apply_action(g.A_CALL)


def test_knowledge_is_the_one_rule_the_observation_reads():
    """knowledge() gives the roles and sides each observer knows; the observation's known_roles and
    known_sides are its rows by relative seat (a Forger checked shows as an Academic until Revealed)."""
    g = table(10, TEN_FULL, site="greece", preference="full")  # seat 8 checks the Forger (seat 9)
    know = g.knowledge()
    assert know.side[8, 9] == D.ACADEMICS and know.role[8, 9] == -1
    g._reveal(9)
    g.touch()
    know = g.knowledge()
    assert know.side[8, 9] == D.LOOTERS and know.role[8, 9] == D.FORGER
    rng = np.random.default_rng(1)
    for _ in range(150):
        if g.is_terminal():
            break
        know, n = g.knowledge(), g.num_players
        for p in range(n):
            view = g.observation_dict(p)
            for k in range(n):
                s = (p + k) % n
                assert (
                    view["known_roles"][k].argmax() == know.role[p, s]
                    if know.role[p, s] >= 0
                    else not view["known_roles"][k].any()
                )
                assert (
                    view["known_sides"][k].argmax() == know.side[p, s]
                    if know.side[p, s] >= 0
                    else not view["known_sides"][k].any()
                )
                assert g.knows_role(p, s) == (know.role[p, s] >= 0) and g.known_side(p, s) == know.side[p, s]
        legal = np.flatnonzero(g.legal_action_mask())
        g.apply_action(int(legal[rng.integers(len(legal))]))


def test_a_vote_is_one_decision_per_voter_over_the_step_that_closes_it():
    g = table(7, SEVEN, top=[1])
    pass_window(g)
    voters = g.voters()
    frames = g.flow.frames
    ballots = frames[-len(voters) :]
    assert [f.player for f in reversed(ballots)] == voters  # in seat order from the drawer
    assert all(type(f) is Decide and f.kind == D.PH_KEEP for f in ballots)
    close = frames[-len(voters) - 1]
    assert type(close) is Do and close.run is Artifacts._close_keep
    before = [g.observation(p) for p in range(7)]
    act(g, g.A_YES)  # a secret ballot: nobody's observation changes but for who acts
    for p in range(7):
        changed = g.observation_layout.split(g.observation(p) != before[p])
        assert {name for name, diff in changed.items() if diff.any()} <= {"to_act"}


def test_a_win_clears_what_is_left_to_do():
    g = table(7, SEVEN, top=["Quiet Day"])
    kill(g, 0)  # the Possessed dies
    assert g.winner == D.LOOTERS and len(g.flow) == 0 and g.current_player() == -1 and g.phase == -1


def fresh_observations(g: Artifacts) -> list[np.ndarray]:
    """Every seat's observation built from scratch (no cached public table or knowledge)."""
    c = g.clone()
    c._derive()  # the observation caches dropped, as a loaded position has them
    return [c.observation(p) for p in range(g.num_players)]


@pytest.mark.parametrize(
    "cfg", [dict(num_players=5), dict(num_players=7, site="spain"), dict(num_players=10, site="china")]
)
def test_the_cached_observation_is_always_a_fresh_one(cfg):
    """The public table is rebuilt only after steps and choices that may change it (QUIET_* aside):
    along random games every observation equals one built from nothing."""
    rng = np.random.default_rng(0)
    for seed in range(4):
        g = Artifacts(rng=np.random.default_rng(seed), **cfg)
        while not g.is_terminal():
            got = [g.observation(p) for p in range(g.num_players)]
            for p, want in enumerate(fresh_observations(g)):
                np.testing.assert_array_equal(got[p], want)
            legal = np.flatnonzero(g.legal_action_mask())
            g.apply_action(int(legal[rng.integers(len(legal))]))
