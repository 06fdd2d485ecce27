"""Helpers for the Artifacts rule tests: build a chosen table and answer decisions."""

from __future__ import annotations

import numpy as np

from envs.artifacts import data as D
from envs.artifacts.rules import Artifacts


def table(n=7, roles=None, seed=0, **kw) -> Artifacts:
    """A game of n players restarted at round 1 with the given table (see Artifacts.set_table)."""
    options = {k: kw.pop(k) for k in ("preference", "site", "sold_start", "talk") if k in kw}
    g = Artifacts(rng=np.random.default_rng(seed), num_players=n, **options)
    g.set_table(roles=roles, **kw)
    g.check_invariants()
    return g


# default role order for 7 players, standard chart: seat -> role
SEVEN = ["Possessed", "Shaman", "Curator", "Detective", "Tomb Raider", "Mafia Boss", "Smuggler"]
FIVE_BASIC = ["Possessed", "Shaman", "Academic", "Tomb Raider", "Mafia Boss"]


def act(g: Artifacts, action: int, player: int | None = None) -> None:
    g.apply_action(int(action), player=player)
    g.check_invariants()


def put(g: Artifacts, name: str, s: int, value) -> None:
    """Set seat s's entry of a per-seat tuple (alive, revealed, cleared, ability_used, silenced_until)
    by hand; the observation is rebuilt."""
    values = getattr(g, name)
    setattr(g, name, (*values[:s], value, *values[s + 1 :]))
    g.touch()


def kill(g: Artifacts, s: int) -> None:
    """Seat s dies, as an event would kill it, and the rules take their next steps; a dying player
    with an unused Active ability passes on it."""
    g._kill(s)
    g.touch()
    g._advance()
    if g.phase == D.PH_DEATH and g.current_player() == s:
        act(g, g.A_PASS)


def seat_action(g: Artifacts, target: int, block: str = "seat") -> int:
    """The action naming absolute seat `target` for the current player."""
    start = g.blocks[block][0]
    return start + (target - g.current_player()) % g.num_players


def pass_window(g: Artifacts) -> None:
    """Everyone passes in this round's window."""
    r = g.round
    while g.phase == D.PH_WINDOW and g.round == r:
        act(g, g.A_PASS)


def vote_all(g: Artifacts, choice, phase=None) -> None:
    """Everyone in the open vote votes `choice(seat)` (an action) or the fixed action `choice`."""
    phase = g.phase if phase is None else phase
    while g.phase == phase and not g.is_terminal():
        s = g.current_player()
        act(g, choice(s) if callable(choice) else choice)


def talk_none(g: Artifacts) -> None:
    while g.phase == D.PH_TALK:
        act(g, g.A_PASS)


def elect(g: Artifacts, target_of) -> None:
    """Answer the discussion with silence and elect `target_of(voter)` (absolute seats)."""
    talk_none(g)
    vote_all(g, lambda s: g.A_SEAT + (target_of(s) - s) % g.num_players, D.PH_ELECT)


def finish_round(g: Artifacts) -> int:
    """Answer every decision with a neutral choice until the next round starts; returns the round."""
    r = g.round
    while g.round == r and not g.is_terminal():
        mask = g.legal_action_mask()
        if g.phase == D.PH_WINDOW and g.A_CALL < len(mask):
            act(g, g.A_PASS)
        elif mask[g.A_PASS]:
            act(g, g.A_PASS)
        elif g.phase in (D.PH_KEEP, D.PH_AGREE):
            act(g, g.A_NO)
        else:
            act(g, int(np.flatnonzero(mask)[0]))
    return g.round


# ten players with every role of the `full` preference
TEN_FULL = [
    "Possessed",
    "Shaman",
    "Curator",
    "Detective",
    "Academic",
    "Academic",
    "Tomb Raider",
    "Mafia Boss",
    "Smuggler",
    "Forger",
]
