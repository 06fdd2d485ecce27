"""A scripted Exposed player that reads only its observation and mask.

Steals from Marks first (their items are then used), exposes the cell most likely to hold an
opponent (from the `candidates` piece), steals Wallets off its own tile into its Stash (hiding the
tile's value), steals from the richest surrounding tile, and otherwise makes a random legal move.
Item steps: uses every offered item, picks uniformly among the non-pass choices.
"""

from __future__ import annotations

import numpy as np

from .rules import ACTION, OFFER, PILOT, Exposed, ExposedConfig

EXPOSE_CONFIDENCE = 0.34  # expose at once when an opponent is at least this likely on the cell


class ScriptedExposedPolicy:
    def __init__(self, config: ExposedConfig | None = None, seed: int | None = None, **options):
        probe = (
            Exposed(config, np.random.default_rng(0), **options)
            if config is not None
            else Exposed(None, np.random.default_rng(0), **options)
        )
        self.layout = probe.observation_layout
        self.g = probe
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        g, t = self.g, self.g.num_tiles
        v = self._cells(np.asarray(observation))
        mask = np.asarray(action_mask).astype(bool)
        legal = np.flatnonzero(mask)
        decision = int(np.argmax(v["decision"]))
        if decision == OFFER:
            return g.A_USE
        if decision == PILOT:
            return g.A_PASS
        likely = self._likely(v)
        if decision == ACTION:
            steal = mask[g.OFF_STEAL : g.OFF_STEAL + t]
            marks = steal & (v["marks"] > 0)
            if marks.any():
                return g.OFF_STEAL + int(np.flatnonzero(marks)[0])
            expose = mask[g.OFF_EXPOSE : g.OFF_EXPOSE + t]
            if expose.any():
                best = int(np.argmax(np.where(expose, likely, -1)))
                if likely[best] >= EXPOSE_CONFIDENCE:
                    return g.OFF_EXPOSE + best
            own = np.flatnonzero(v["identity"][0])
            if len(own) and steal[own[0]] and v["tile_wallets"][own[0]] > 0:
                return g.OFF_STEAL + int(own[0])
            if steal.any():
                wallets = np.where(steal, v["tile_wallets"], -1)
                return g.OFF_STEAL + int(np.argmax(wallets))
            if expose.any():
                return g.OFF_EXPOSE + int(np.argmax(np.where(expose, likely, -1)))
        cells = mask[g.OFF_CELL : g.OFF_CELL + t]
        if decision != ACTION and cells.any() and not mask[g.A_PASS]:
            return g.OFF_CELL + int(np.argmax(np.where(cells, likely + 0.01 * self.rng.random(t), -1)))
        choices = legal[legal != g.A_PASS] if len(legal) > 1 else legal
        return int(choices[self.rng.integers(len(choices))])

    def _cells(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The observation's pieces, grid pieces (rows x columns) flattened to cells (the action order)."""
        t = self.g.num_tiles
        out = {}
        for piece in self.layout:
            view = observation[piece.slice]
            out[piece.name] = view.reshape(
                piece.shape[:-2] + (t,) if piece.axes[-2:] == ("row", "col") else piece.shape
            )
        return out

    @staticmethod
    def _likely(v) -> np.ndarray:
        """Chance that each cell holds some opponent (uniform over each opponent's candidates)."""
        cand = v["candidates"][1:] * (1 - v["exposed_players"][1:, None])
        sizes = cand.sum(axis=1, keepdims=True)
        return (cand / np.maximum(sizes, 1)).sum(axis=0)
