"""The opponent pool: past snapshots, the scripted baseline and random play, drawn by weights and PFSP.

Each new training game draws a kind by `opponents` weights (self, snapshot, scripted, random). A
snapshot is drawn by prioritized fictitious self-play from the learner's win rate p against it:
"hard" weights (1 - p)^2 (AlphaStar), "even" p (1 - p), "uniform" all alike. The learner takes a
random team (a random seat in games without teams); the drawn opponent plays every other seat.
In cooperative games (one team) the learner plays every seat.
"""

from __future__ import annotations

import copy

import numpy as np


class WinStats:
    """Outcomes (1 win, 0.5 tie, 0 loss) with a prior of one tie, so new entries start at p = 0.5."""

    def __init__(self):
        self.games = 1.0
        self.score = 0.5

    def add(self, outcome: float, decay: float = 0.99) -> None:
        self.games = self.games * decay + 1.0
        self.score = self.score * decay + outcome

    @property
    def rate(self) -> float:
        return self.score / self.games


class OpponentPool:
    def __init__(self, cfg, info):
        self.cfg = cfg
        self.info = info
        self.snapshots: dict[int, dict] = {}  # id -> state_dict
        self.stats: dict = {}  # opponent key -> WinStats
        self.next_id = 0
        weights = dict(cfg.weights())
        if info.spec.scripted_policy is None:
            weights["scripted"] = 0.0
        if sum(weights.values()) <= 0:
            weights["self"] = 1.0
        self.weights = weights

    def add_snapshot(self, net) -> tuple:
        sid = self.next_id
        self.next_id += 1
        self.snapshots[sid] = copy.deepcopy({k: v.detach().clone() for k, v in net.state_dict().items()})
        while len(self.snapshots) > self.cfg.pool_size:
            oldest = min(self.snapshots)
            del self.snapshots[oldest]
            self.stats.pop(("snap", oldest), None)
        return ("snap", sid)

    def _snapshot_probs(self) -> tuple[list, np.ndarray]:
        keys = [("snap", s) for s in sorted(self.snapshots)]
        p = np.array([self.stats.get(k, WinStats()).rate for k in keys])
        if self.cfg.pfsp == "hard":
            w = (1 - p) ** 2
        elif self.cfg.pfsp == "even":
            w = p * (1 - p)
        else:
            w = np.ones(len(keys))
        w = w + 1e-3
        return keys, w / w.sum()

    def sample(self, rng: np.random.Generator):
        """An opponent key: "self", "scripted", "random", "fixed" or ("snap", id)."""
        kinds = ["self", "snapshot", "scripted", "random"] + (["fixed"] if self.weights["fixed"] else [])
        w = np.array([self.weights[k] for k in kinds], float)
        if not self.snapshots:
            w[1] = 0.0
        if w.sum() <= 0:
            w[0] = 1.0
        kind = kinds[int(rng.choice(len(kinds), p=w / w.sum()))]
        if kind != "snapshot":
            return kind
        keys, probs = self._snapshot_probs()
        return keys[int(rng.choice(len(keys), p=probs))]

    def record(self, key, outcome: float) -> None:
        self.stats.setdefault(key, WinStats()).add(outcome)

    def state_dict(self) -> dict:
        return {
            "snapshots": self.snapshots,
            "stats": {k: (s.games, s.score) for k, s in self.stats.items()},
            "next_id": self.next_id,
        }

    def load_state_dict(self, state: dict) -> None:
        self.snapshots = state["snapshots"]
        self.next_id = state["next_id"]
        self.stats = {}
        for k, (games, score) in state["stats"].items():
            s = WinStats()
            s.games, s.score = games, score
            self.stats[k] = s

    def table(self) -> dict[str, float]:
        return {_name(k): round(s.rate, 3) for k, s in self.stats.items()}


def _name(key) -> str:
    return f"snapshot{key[1]}" if isinstance(key, tuple) else str(key)
