"""Scripted baselines, one per side, reading only the observation and the mask.

Academics keep the artifact they are collecting (most pieces in Storage), sell others only when
Storage is full, elect and accuse the players who vote to sell most (and any Looter they know), and use
their abilities on the prime suspect. Looters vote to sell, push the artifacts Sold + Discard lacks,
and hunt the Possessed: the players who vote for or accuse known Looters are suspects, and the Mafia Boss
kills the prime suspect. The side is read from the observation's own role.
"""

from __future__ import annotations

import numpy as np

from .data import (
    EVENTS,
    LOOTERS,
    MAFIA_BOSS,
    MAX_ARTIFACT_DRAWS,
    MAX_ELECTIONS,
    MAX_ROUNDS,
    NUM_ARTIFACTS,
    PH_AGREE,
    PH_DEATH,
    PH_DONATION,
    PH_ELECT,
    PH_EXTRA,
    PH_FOXFIRE,
    PH_KEEP,
    PH_OVERFLOW,
    PH_PEEK,
    PH_REPLACE,
    PH_RESTORE,
    PH_TALK,
    PH_TARGET,
    PH_THEFT,
    PH_WINDOW,
    POSSESSED,
    ROLE_SIDE,
)
from .layouts import action_blocks, observation_layout


class ScriptedArtifactsPolicy:
    """policy(observation, action_mask) -> action for any seat of an n-player game."""

    def __init__(self, num_players: int, seed: int | None = None):
        self.n = n = num_players
        self.layout = observation_layout(n)
        self.blocks = action_blocks(n)
        self.rng = np.random.default_rng(seed)
        self.seat0 = self.blocks["seat"][0]
        self.art0 = self.blocks["artifact"][0]

    # ----- reading the observation ------------------------------------------------------------
    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = self.layout.split(observation)
        mask = np.asarray(action_mask, dtype=bool)
        legal = np.flatnonzero(mask)
        role = int(np.argmax(v["my_role"]))
        looter = ROLE_SIDE[role] == LOOTERS
        phase = int(np.argmax(v["phase"]))
        action = self._choose(v, mask, role, looter, phase)
        if action is None or not mask[action]:
            action = int(legal[self.rng.integers(len(legal))])
        return int(action)

    def _known_looters(self, v) -> np.ndarray:
        return v["known_sides"][:, 1] > 0

    def _suspicion(self, v) -> np.ndarray:
        """Academics' suspicion of each relative seat: sell votes, known sides, accusations."""
        ks = v["keep_sell_record"]
        score = (
            (ks[:, 1] - ks[:, 0])
            * MAX_ARTIFACT_DRAWS
            / np.maximum(1.0, (ks[:, 0] + ks[:, 1]) * MAX_ARTIFACT_DRAWS)
            * 3
        )
        score = score + self._known_looters(v) * 10 - (v["known_sides"][:, 0] > 0) * 10
        score[0] = -100  # never myself
        score = score - (1 - v["alive"]) * 100
        return score

    def _possessed_suspicion(self, v) -> np.ndarray:
        """Looters' suspicion that a seat is the Possessed: it votes for or accuses known Looters."""
        looters = self._known_looters(v).astype(np.float32)
        looters[0] = 1.0
        er = v["election_record"] * MAX_ELECTIONS
        talk = v["talk_record"] * MAX_ELECTIONS
        score = (
            er @ looters
            - np.minimum(talk, 0) @ looters
            + (v["keep_sell_record"][:, 0] * MAX_ARTIFACT_DRAWS) * 0.2
        )
        kr = v["known_roles"]
        score = score + kr[:, POSSESSED] * 100
        score = score - looters * 100 - (v["known_sides"][:, 0] > 0) * 0  # cleared players stay suspects
        score = score - (1 - v["alive"]) * 1000
        return score

    def _seat_action(self, mask, scores: np.ndarray, block: str = "seat") -> int | None:
        start = self.blocks[block][0]
        best, arg = -1e9, None
        for k in range(self.n):
            if mask[start + k] and scores[k] > best:
                best, arg = scores[k], start + k
        return arg

    def _art_action(self, mask, scores, lowest: bool) -> int | None:
        opts = [a for a in range(NUM_ARTIFACTS) if mask[self.art0 + a]]
        if not opts:
            return None
        pick = min(opts, key=lambda a: (scores[a], a)) if lowest else max(opts, key=lambda a: (scores[a], -a))
        return self.art0 + pick

    def _choose(self, v, mask, role, looter, phase):
        b = self.blocks
        storage = v["storage"] * 5
        target = int(np.argmax(storage))  # the artifact being collected
        gone = (v["sold"] + v["discard"]) * 5
        event = int(np.argmax(v["card"])) - NUM_ARTIFACTS if v["card"][NUM_ARTIFACTS:].any() else -1
        rounds = v["round"][0] * MAX_ROUNDS
        if phase == PH_KEEP:
            if looter:
                return b["no"][0]
            card = int(np.argmax(v["card"][:NUM_ARTIFACTS]))
            full = storage.sum() >= v["pile_sizes"][0] * 6
            return (
                b["yes"][0] if card == target or not full or storage[card] >= storage[target] else b["no"][0]
            )
        if phase in (PH_OVERFLOW, PH_REPLACE, PH_EXTRA, PH_THEFT):
            if looter:
                if phase == PH_THEFT:
                    return self._art_action(mask, storage, lowest=False)
                return self._art_action(mask, gone, lowest=True)
            if phase == PH_EXTRA:
                return b["pass"][0]
            keep_score = storage.copy()
            keep_score[target] += 10
            return self._art_action(mask, keep_score, lowest=True)
        if phase in (PH_RESTORE, PH_DONATION):
            return self._art_action(mask, storage, lowest=looter)
        if phase == PH_AGREE:
            return b["yes"][0] if looter else b["no"][0]
        if phase == PH_ELECT:
            fx = EVENTS[event].effect if event >= 0 else ""
            if looter:
                scores = self._possessed_suspicion(v)
                if fx == "check_side":
                    scores = np.zeros(self.n)
                    scores[0] = 1
                return self._seat_action(mask, scores)
            scores = self._suspicion(v)
            if fx == "check_side":
                scores = np.zeros(self.n)
                scores[0] = 1
            elif fx == "kill" and role == POSSESSED:
                pass
            return self._seat_action(mask, scores)
        if phase == PH_TALK:
            if looter:
                return self._seat_action(mask, self._possessed_suspicion(v), "accuse")
            scores = self._suspicion(v)
            if scores.max() >= 2:
                return self._seat_action(mask, scores, "accuse")
            return b["pass"][0]
        if phase == PH_PEEK:
            scores = self._possessed_suspicion(v) if looter else self._suspicion(v)
            scores = scores - (v["known_sides"].sum(axis=1) > 0) * 50
            return self._seat_action(mask, scores)
        if phase == PH_FOXFIRE:
            return b["role"][0] + (POSSESSED if looter else MAFIA_BOSS)
        if phase == PH_DEATH:
            return b["use"][0]
        if phase == PH_TARGET:
            if mask[b["use"][0]]:
                return b["use"][0]
            if mask[self.art0 : self.art0 + NUM_ARTIFACTS].any():
                return (
                    self._art_action(mask, storage, lowest=False)
                    if looter
                    else self._art_action(mask, -np.abs(np.arange(NUM_ARTIFACTS) - target), lowest=False)
                )
            scores = self._possessed_suspicion(v) if looter else self._suspicion(v)
            return self._seat_action(mask, scores)
        if phase == PH_WINDOW:
            if mask[b["call"][0]] and looter and (v["pile_sizes"][1] + v["pile_sizes"][2]) * 25 >= 10:
                return b["call"][0]
            if mask[b["use"][0]]:
                if role == MAFIA_BOSS:
                    scores = self._possessed_suspicion(v)
                    if scores[1:].max() >= 100 or rounds >= 8 or (scores[1:].max() >= 3 and rounds >= 4):
                        return b["use"][0]
                elif looter:
                    if storage.max() >= 3:
                        return b["use"][0]
                else:
                    scores = self._suspicion(v)
                    if scores[1:].max() >= 5 or (rounds >= 6 and scores[1:].max() >= 1.5):
                        return b["use"][0]
            return b["pass"][0]
        return None


def scripted_policy(config, seat: int = 0):
    """The scripted policy for a seat of the game `config` (the side is read from the observation)."""
    return ScriptedArtifactsPolicy(config.num_players, seed=seat)
