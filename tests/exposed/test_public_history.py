"""Resampled states agree with the whole public history, not only with the observer's observation.

A recorder watches random games as the table does: every decision (who decides, what kind, the
action taken) and the public table after it. From those alone it keeps, for every player and every
Identity card they held, the Guests that card can still be: a Steal (also the Mechanic's) puts the
thief's Guest around the robbed tile or on it, an Expose puts the exposer's Guest in the target's
row or column, the Accountant's destination and the Snitch's flipped tile are not the user's Guest,
a Senator payment puts a player's Guest around the Senator (no payment: not around it), and each
state in which the game goes on says that no unexposed player's Stash + Guest reaches 7. Privately:
a Dentist answer tells the asker a line, a Snitch shows a card, Astronaut/Mayor cards seen stay put.
Every `resample_hidden(p)` draw must satisfy every one of those facts that `p` knows.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.exposed.baseline import ScriptedExposedPolicy
from envs.exposed.data import GUEST_INDEX, WIN_WALLETS
from envs.exposed.rules import ACTION, B_GUEST, B_STEAL, DENTIST, OFFER, PICK, SNITCH_FLIP, Exposed, ItemStep
from envs.exposed_v0 import SPEC

from .helpers import at, plain, put, rebalance, set_identity, start

SENATOR = GUEST_INDEX["Senator"]


class PublicRecord:
    """What the table has learnt about each player's card, from the public history alone."""

    def __init__(self, game: Exposed):
        n, t = game.num_players, game.num_tiles
        self.n, self.t = n, t
        self.epoch = list(game.epoch)  # public: a card changes hands only by Wrestler / Clown
        self.public = np.ones((n, t), dtype=bool)  # [player, Guest]
        self.private = np.ones((n, n, t), dtype=bool)  # [observer, player, Guest]
        self.steps = 0

    def _fact(self, q: int, guests: np.ndarray, observer: int | None = None) -> None:
        if observer is None:
            self.public[q] &= guests
        else:
            self.private[observer, q] &= guests

    def before(self, g: Exposed, action: int) -> dict:
        """Facts the action itself tells (read before it changes the table)."""
        decision = g.decision
        kind, d = decision.kind, decision.player
        detail = decision.args[1] if len(decision.args) > 1 else None  # Guest, asker or ItemStep
        step = detail if isinstance(detail, ItemStep) else None
        cg = g.guest_on
        where = np.zeros(self.t, dtype=bool)
        steal = g.OFF_STEAL <= action < g.OFF_EXPOSE and (
            kind == ACTION or (kind == PICK and step.block == B_STEAL)
        )
        if steal:  # the thief's Guest surrounds the robbed tile, or is it
            where[cg[g.near[action - g.OFF_STEAL]]] = True
            self._fact(d, where)
        elif kind == ACTION and g.OFF_EXPOSE <= action < g.OFF_SNITCH:  # same row or column
            where[cg[g.rowcol[action - g.OFF_EXPOSE]]] = True
            self._fact(d, where)
        elif kind == ACTION and g.OFF_SNITCH <= action < g.OFF_CELL:  # the shown player learns the card
            shown = (d + action - g.OFF_SNITCH) % self.n
            where[g.ident[d]] = True
            self._fact(d, where, observer=shown)
        elif kind == SNITCH_FLIP or (kind == PICK and step.allowed is Exposed._cells_but_own):  # not your own
            where[:] = True
            where[cg[action - g.OFF_CELL]] = False
            self._fact(d, where)
        elif kind == DENTIST:  # the target tells the asker a line holding its Guest
            where[cg[g.line_mask[action - g.OFF_LINE]]] = True
            self._fact(d, where, observer=detail)
        senator = (kind == OFFER and detail == SENATOR and action == g.A_USE) or (
            kind == PICK
            and step.block == B_GUEST
            and step.then is Exposed._use_item
            and action - g.OFF_GUEST == SENATOR
        )
        return {
            "mark_stolen": steal and bool(g.is_mark[cg[action - g.OFF_STEAL]]),
            "senator": int(g.cell_of_guest[SENATOR]) if senator else -1,
            "stash": list(g.stash),
            "unexposed": [not x for x in g.player_exposed],
        }

    def after(self, g: Exposed, seen: dict) -> None:
        """Facts the public outcome tells."""
        if seen["mark_stolen"] and not g.is_terminal():  # always offered: the offer tells nothing
            assert g.decision_kind == OFFER
        for q in range(self.n):
            if g.epoch[q] != self.epoch[q]:  # a new card: what was known of the old one is void
                self.epoch[q] = g.epoch[q]
                self.public[q] = True
                self.private[:, q] = True
        if seen["senator"] >= 0:  # paid players' Guests surround the Senator, the others' do not
            around = np.zeros(self.t, dtype=bool)
            around[g.guest_on[g.surround[seen["senator"]]]] = True
            for q in range(self.n):
                if seen["unexposed"][q] and not g.player_exposed[q]:
                    paid = g.stash[q] > seen["stash"][q]
                    self._fact(q, around if paid else ~around)
        if not g.is_terminal():  # the game goes on: nobody unexposed holds 7 Wallets
            on_guest = g.wallets_on[g.cell_of_guest]
            for q in range(self.n):
                if not g.player_exposed[q]:
                    self._fact(q, g.stash[q] + on_guest < WIN_WALLETS)
        self.steps += 1

    def allowed(self, observer: int, q: int) -> np.ndarray:
        return self.public[q] & self.private[observer, q]


def _check(g: Exposed, record: PublicRecord, s: Exposed, p: int) -> None:
    """The resampled state `s` (for seat p) agrees with the table and with everything p knows."""
    for name in ("guest_on", "wallets_on", "tile_exposed", "is_mark", "is_discarded"):
        assert np.array_equal(getattr(s, name), getattr(g, name)), name
    assert (s.stash, s.player_exposed, s.marks, s.stolen, s.discard) == (
        g.stash,
        g.player_exposed,
        g.marks,
        g.stolen,
        g.discard,
    )
    assert (len(s.deck), s.lost_found, s.epoch, s.known_by) == (
        len(g.deck),
        g.lost_found,
        g.epoch,
        g.known_by,
    )
    s.check_invariants()
    assert s.ident[p] == g.ident[p]
    for q in range(g.num_players):
        if g.player_exposed[q]:
            assert s.ident[q] == g.ident[q]
        assert record.allowed(p, q)[s.ident[q]], (
            f"seat {p}'s draw gives seat {q} a Guest the history rules out"
        )
    bit = 1 << p
    for i, flags in enumerate(g.deck_seen):
        if flags & bit:
            assert s.deck[i] == g.deck[i], "a deck card the observer has seen moved"


@pytest.mark.parametrize(
    "config", SPEC.test_configs, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_resampled_states_agree_with_the_whole_public_history(config):
    rng = np.random.default_rng(12)
    draws = 0
    for seed in range(20):
        g = Exposed(rng=np.random.default_rng(seed), **config)
        # half random, half the scripted player (it steals Marks and uses items: more history)
        scripted = [ScriptedExposedPolicy(g.config, seed=q) for q in range(g.num_players)]
        record = PublicRecord(g)
        while not g.is_terminal():
            legal = g.legal_actions()
            d = g.current_player()
            if rng.random() < 0.5:
                a = int(legal[rng.integers(len(legal))])
            else:
                a = int(scripted[d](g.observation(d), g.legal_action_mask()))
            seen = record.before(g, a)
            g.apply_action(a)
            record.after(g, seen)
            for o in range(g.num_players):  # the recorder itself agrees with the truth
                assert all(record.allowed(o, q)[g.ident[q]] for q in range(g.num_players))
            if record.steps % 3 == 0 and not g.is_terminal():
                for p in range(g.num_players):
                    _check(g, record, g.resample_hidden(p, rng), p)
                    draws += 1
    assert draws > 50


def _play(g: Exposed, record: PublicRecord, action: int) -> None:
    seen = record.before(g, action)
    g.apply_action(action)
    record.after(g, seen)


def test_a_past_seven_wallet_deduction_survives_the_wallets_leaving():
    """A tile held 6 Wallets while q had 1 in the Stash and the game went on: q's Guest is not that
    tile, also after the tile lost Wallets (today's count alone would allow it)."""
    g, p = start(n=2, me="Mayor")
    q = 1 - p
    set_identity(g, q, "Lawyer")
    put(g, "Lawyer", at(g, 3, 3))
    corner = at(g, 0, 0)
    plain(g, corner)
    g.wallets_on[corner] = 6
    g.stash[q] = 1
    rebalance(g)
    record = PublicRecord(g)
    edge = g.edge_of
    for a, b in [((2, 0), (2, 1)), ((3, 0), (3, 1)), ((0, 2), (0, 3)), ((1, 2), (1, 3))]:  # p, then q, moves
        _play(g, record, edge[(at(g, *a), at(g, *b))])
    assert g.current_player() == p
    _play(g, record, g.OFF_STEAL + corner)  # the tile drops to 5: 5 + 1 < 7 today
    assert g.wallets_on[corner] == 5 and not record.allowed(p, q)[g.guest_on[corner]]
    rng = np.random.default_rng(3)
    for _ in range(150):
        _check(g, record, g.resample_hidden(p, rng), p)
