"""Resampled states agree with the whole public history, not only with the observer's observation.

Exposaurus is open but for the stock's order and future die rolls. Random games record every public
fact as it happens (each starting tile, each tile turned up, each die roll shown, every action: die
removals, recruitments, discoveries with their marker, excavations, placements with cell and rotation,
gems chosen); every `resample_hidden(p)` must agree with all of them.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.registry import config_id
from envs.exposaurus import rules as R
from envs.exposaurus.data import NUM_TILES, SCIENTISTS
from envs.exposaurus_v0 import SPEC


class History:
    def __init__(self, g: R.Exposaurus):
        self.start = list(g.start_tile)  # each seat's starting tile
        self.turned_up = list(g.display)  # every tile turned face up, in order
        self.actions: list[tuple[int, int]] = []  # (player, action): every decision is public
        self.die: int | None = g.die_value if g.phase == R.DIE else None

    def watch(self, g: R.Exposaurus, player: int, action: int, display_before: list[int]) -> None:
        self.actions.append((player, action))
        self.turned_up += [t for t in g.display if t not in display_before]
        self.die = g.die_value if g.phase == R.DIE else None

    def check(self, sample: R.Exposaurus, original: R.Exposaurus) -> None:
        n = sample.num_players
        seen = set(self.start) | set(self.turned_up)
        # the stock is exactly the tiles nobody has seen; the seen tiles are where the actions put them
        assert sorted(sample.stock) == sorted(set(range(NUM_TILES)) - seen)
        assert sample.start_tile == self.start
        placed = {p: [(R.CENTRE, self.start[p], 0)] for p in range(n)}
        removed, excavated, gems = set(), {}, [[0, 0, 0] for _ in range(n)]
        national, discs, paleo = [0] * n, [False] * n, [True] * n
        for player, a in self.actions:
            if a < R.A_DIE_KEEP:
                removed.add(a)
            elif a == R.A_RECRUIT:
                national[player] += 1
            elif a == R.A_DISCOVER_DISC:
                discs[player] = True
            elif R.A_EXCAVATE <= a < R.A_QUIT:
                t = (a - R.A_EXCAVATE) % NUM_TILES
                excavated[player] = t
                paleo[player] &= a < R.A_EXCAVATE_PALEO
            elif R.A_PLACE <= a < R.A_GEM:
                cell, rot = divmod(a - R.A_PLACE, 4)
                placed[player].append((cell, excavated.pop(player), rot))
            elif a >= R.A_GEM:
                gems[player][a - R.A_GEM] += 1
        for p in range(n):
            assert [(c, sample.grid[p][c], sample.rotation[p][c]) for c in sample.tiles_of[p]] == placed[p]
            assert sample.national[p] == national[p] and sample.paleo[p] == paleo[p]
            assert (sample.disc[p] != R.DISC_UNUSED) == discs[p]
            assert sum(sample.gems[p]) >= sum(gems[p])  # plain-colour gems come with the placement
            assert (
                sample.camp[p] + sample.museum_sci[p] + sample.field_sci[p] + sample.national[p] == SCIENTISTS
            )
        assert {t for t in range(NUM_TILES) if sample.where[t] == R.W_BOX} == removed
        assert sample.display == [t for t in self.turned_up if t in original.display]
        for t in sample.display:  # who lies on each displayed tile was seen as it happened
            assert (sample.marker[t], sample.marker_owner[t]) == (
                original.marker[t],
                original.marker_owner[t],
            )
        assert sample.pending == (excavated[sample.player] if sample.player in excavated else -1)
        if self.die is not None:  # a die roll is public once thrown
            assert sample.phase == R.DIE and sample.die_value == self.die
        assert sample.scores() == original.scores() and sample.supply == original.supply


@pytest.mark.parametrize("cfg", SPEC.test_configs, ids=[config_id(c) for c in SPEC.test_configs])
def test_resampled_states_agree_with_the_whole_public_history(cfg):
    rng = np.random.default_rng(3)
    for game_index in range(6):
        g = R.Exposaurus(rng=np.random.default_rng(40 + game_index), **cfg)
        history = History(g)
        while not g.is_terminal():
            if rng.random() < 0.2:
                for p in range(g.num_players):
                    sample = g.resample_hidden(p, rng)
                    history.check(sample, g)
                    np.testing.assert_array_equal(sample.observation(p), g.observation(p))
            legal = np.flatnonzero(g.legal_action_mask())
            action, player, before = int(legal[rng.integers(len(legal))]), g.current_player(), list(g.display)
            g.apply_action(action)
            history.watch(g, player, action, before)
        history.check(g.resample_hidden(0, rng), g)
