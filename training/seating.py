"""Who plays each seat of a new training game, and what each finished game tells the run.

The same in one process and in every rollout worker (`training.workers`): a new game draws its
opponent from the pool (self-play, a snapshot, the scripted players, random play, the fixed player); the
learner takes one team, drawn at random (a seat in games without teams), the opponent every other seat,
except that with `opponents.fixed_seats` = k the fixed player takes k of them, drawn at random, and
`opponents.fixed_among` the rest. A finished
game becomes an `Outcome`, plain data handed to `report`: the trainer's statistics in one process, a
list a worker sends back with its rollout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .actors import NetActor, RandomActor, ScriptedActor
from .games import final_outcomes


class Outcome(NamedTuple):
    """A finished training game: who the learner met (`key`: "self", "scripted", "random" or
    ("snap", id)), its team, every seat's team, every seat's return, whether it was cut at the length
    limit, and each team's result (1 win, 1/k a shared first place, 0 a loss; a cut game is a draw)."""

    key: object
    team: int
    teams: list
    returns: list
    truncated: bool
    results: dict


def opponent_actors(config, info) -> dict:
    """The actors a run's games may seat besides the learner and its snapshots: random play, the scripted
    baseline, the fixed player (opponents.fixed_player, when opponents.fixed > 0)."""
    from .evaluate import make_actor  # (evaluate imports the runner; seating stays below it)

    actors = {"random": RandomActor()}
    if info.spec.scripted_policy is not None:
        actors["scripted"] = ScriptedActor(info)
    o = config.opponents
    if o.fixed:
        actors["fixed"] = make_actor(o.fixed_player, info, greedy=o.fixed_greedy)
    return actors


class Seating:
    """`assign` and `on_episode` for a Runner (see `training.runner.Runner`): opponents from `pool`,
    played by the actors in `actors` (a drawn snapshot is seated there on first use, as a network
    `make_net()` builds with the snapshot's weights)."""

    def __init__(self, info, pool, actors: dict, make_net: Callable, report: Callable[[Outcome], None]):
        self.info, self.pool, self.actors = info, pool, actors
        self.make_net, self.report = make_net, report

    def assign(self, slot, rng, game):
        info = self.info
        key = self.pool.sample(rng)
        teams = info.teams_of(game)
        if info.cooperative or key == "self":
            return ["learner"] * info.num_players, ("self", -1, teams)
        if isinstance(key, tuple) and key not in self.actors:
            self.seat_snapshot(key, self.pool.snapshots[key[1]])
        ids = sorted(set(teams))
        team = ids[int(rng.integers(len(ids)))]
        seats = ["learner" if t == team else key for t in teams]
        if key == "fixed" and self.pool.cfg.fixed_seats:
            self.seat_among_others(seats, rng)
        return seats, (key, team, teams)

    def seat_among_others(self, seats: list, rng) -> None:
        """Leave the fixed player `fixed_seats` of its seats, drawn at random; `fixed_among` plays the rest
        (an exploiter met among other players: alone against three of it, a learner may win no game)."""
        cfg = self.pool.cfg
        theirs = [s for s, key in enumerate(seats) if key == "fixed"]
        kept = set(rng.choice(theirs, size=cfg.fixed_seats, replace=False).tolist())
        for s in theirs:
            if s not in kept:
                seats[s] = cfg.fixed_among

    def seat_snapshot(self, key, weights: dict) -> None:
        net = self.make_net()
        net.load_state_dict(weights)
        self.actors[key] = NetActor(net, name=f"snapshot{key[1]}")

    def on_episode(self, slot, meta, game) -> None:
        key, team, teams = meta
        returns = [float(r) for r in np.asarray(game.returns(), float)]
        results = final_outcomes(game, teams)  # a truncated game is a draw, not a loss
        self.report(Outcome(key, team, list(teams), returns, bool(game.is_truncated()), results))

    def prune(self, in_use: list[list]) -> None:
        """Unseat the snapshots that left the pool once no game in progress (`in_use`: the actor keys of
        each game) still plays them."""
        playing = {k for keys in in_use for k in keys}
        for key in [k for k in self.actors if isinstance(k, tuple)]:
            if key[1] not in self.pool.snapshots and key not in playing:
                del self.actors[key]

    def seated_snapshots(self) -> dict:
        """Weights of the snapshots already dropped from the pool but still seated in games in progress
        (a checkpoint keeps them, so a resume can seat them again)."""
        return {
            k[1]: a.net.state_dict()
            for k, a in self.actors.items()
            if isinstance(k, tuple) and k[1] not in self.pool.snapshots
        }

    def reseat(self, in_use: list[list], seated: dict) -> None:
        """After a resume: seat every snapshot the games in progress play, from the pool or `seated`."""
        for keys in in_use:
            for key in keys:
                if isinstance(key, tuple) and key not in self.actors:
                    self.seat_snapshot(key, self.pool.snapshots.get(key[1], seated.get(key[1])))
