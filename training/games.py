"""The game a run trains on, seen only through the engine contract and its GameSpec."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.config import build_config
from envs.core.errors import ConfigError


def resolve_spec(game: str):
    """A registered game name ("expressions") or "package.module:ATTR" naming a GameSpec."""
    if ":" in game:
        module_name, attr = game.split(":", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(f"cannot import {module_name!r} for game {game!r}: {exc}") from None
        try:
            return getattr(module, attr)
        except AttributeError:
            raise ConfigError(f"module {module_name!r} has no {attr!r} (game {game!r})") from None
    import envs

    try:
        return envs.spec(game)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


@dataclass
class GameInfo:
    """What training needs to know about one game configuration."""

    spec: Any
    config: Any
    game_config: dict
    num_players: int
    num_actions: int
    obs_dim: int
    state_dim: int
    teams: list[int]  # team index per seat

    @property
    def num_teams(self) -> int:
        return len(set(self.teams))

    @property
    def cooperative(self) -> bool:
        return self.num_teams == 1

    def seats_of(self, team: int) -> list[int]:
        return [s for s, t in enumerate(self.teams) if t == team]

    def new_game(self, seed: int):
        return self.spec.game_class(self.config, np.random.default_rng(seed))

    def teams_of(self, game) -> list[int]:
        """Team per seat of this game: the game's own `team_of(seat)` where it has one (secret sides
        dealt at set-up, read by the referee to seat the players, never shown to a policy), else the
        GameSpec teams."""
        team_of = getattr(game, "team_of", None)
        if callable(team_of):
            return [int(team_of(s)) for s in range(self.num_players)]
        return self.teams

    def scripted(self, seat: int):
        if self.spec.scripted_policy is None:
            raise ConfigError(f"game {self.spec.name!r} has no scripted baseline (GameSpec.scripted_policy)")
        return self.spec.scripted_policy(self.config, seat)


def game_info(game: str, game_config: dict) -> GameInfo:
    return spec_info(resolve_spec(game), game_config)


def spec_info(spec, game_config: dict) -> GameInfo:
    config = build_config(spec.game_class.config_class, dict(game_config))
    probe = spec.game_class(config, np.random.default_rng(0))
    n = probe.num_players
    teams = list(spec.teams(config)) if spec.teams is not None else list(range(n))
    if len(teams) != n:
        raise ConfigError(f"{spec.name}: teams() gave {len(teams)} entries for {n} players")
    # renumber teams 0..k-1 in order of first appearance
    order: dict[int, int] = {}
    teams = [order.setdefault(t, len(order)) for t in teams]
    return GameInfo(
        spec=spec,
        config=config,
        game_config=dict(game_config),
        num_players=n,
        num_actions=probe.num_actions,
        obs_dim=probe.observation_layout.size,
        state_dim=probe.state_layout.size,
        teams=teams,
    )


def team_outcomes(returns: np.ndarray, teams: list[int]) -> dict[int, float]:
    """Per team: 1 for a win, 1/k for a first place shared by k teams, 0 for a loss.

    Team score = the mean return of its seats; the best score wins (a shared first place is worth
    the chance of winning a random tie-break, so a two-player draw is 0.5). A cooperative game (one
    team) is won when the team's return is positive.
    """
    teams_arr = np.asarray(teams)
    ids = sorted(set(teams))
    scores = {t: float(returns[teams_arr == t].mean()) for t in ids}
    if len(ids) == 1:
        return {ids[0]: 1.0 if scores[ids[0]] > 0 else 0.0}
    best = max(scores.values())
    top = [t for t in ids if scores[t] == best]
    return {t: (1.0 / len(top) if t in top else 0.0) for t in ids}


def evaluation_info(info: GameInfo, eval_game_config: dict) -> GameInfo:
    """The game as evaluations score it: the training options with `eval.game_config` on top (e.g. the
    real win/loss reward when training used a dense one). The policy's inputs must not change."""
    if not eval_game_config:
        return info
    scored = spec_info(info.spec, {**info.game_config, **eval_game_config})
    shapes = ("obs_dim", "num_actions", "state_dim", "num_players")
    if any(getattr(scored, k) != getattr(info, k) for k in shapes):
        raise ConfigError(
            f"eval.game_config {eval_game_config} changes the observation, actions or players; "
            "it may only change how games are scored"
        )
    return scored
