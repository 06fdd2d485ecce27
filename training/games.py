"""The game a run trains on, seen only through the engine contract and its GameSpec.

Teams come from the game itself: `game.teams()` per game (secret deals included, read by the referee to
seat and score the players, never shown to a policy) and `game.game_type()` (utility, team kind, return
bounds, the length limit `max_decisions`). Team ids are the game's own (Artifacts' 0 Academics and
1 Looters mean the same side in every game); nothing renumbers them.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from envs.core.config import build_config
from envs.core.errors import ConfigError
from envs.core.observer import seat_gathers
from envs.core.registry import GameSpec

from .netshape import NetShape


def resolve_spec(game: str, may_import: bool = False):
    """A registered game name ("expressions") or "package.module:ATTR" naming a GameSpec.

    A game name may come from a file (a checkpoint, a config, a run's config.yaml), and a file never
    makes this program import code: "module:ATTR" is looked up only in a module that is already
    imported - by the user's own script, or by `--import MODULE` on the command line - unless the
    caller passes `may_import` for a name the program itself chose (the RLlib workers get the name the
    driver already resolved)."""
    if ":" not in game:
        import envs

        try:
            return envs.spec(game)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    module_name, attr = game.split(":", 1)
    module = sys.modules.get(module_name)
    if module is None and may_import:
        try:
            module = importlib.import_module(module_name)
        except (ImportError, ValueError) as exc:  # ValueError: an empty module name (":SPEC")
            raise ConfigError(f"cannot import {module_name!r} for game {game!r}: {exc}") from None
    if module is None:
        raise ConfigError(
            f"game {game!r} is in module {module_name!r}, which is not imported: a checkpoint or config "
            "never makes this program import code. If you trust that module, name it yourself: "
            f"python -m training <command> --import {module_name} ... (or import it in your own script)"
        )
    spec = getattr(module, attr, None)
    if spec is None:
        raise ConfigError(f"module {module_name!r} has no {attr!r} (game {game!r})")
    if not isinstance(spec, GameSpec):
        raise ConfigError(
            f"game {game!r} names {module_name}.{attr}, a {type(spec).__name__}, not a GameSpec "
            "(envs.core.GameSpec): give a registered game name or module:ATTR naming a GameSpec"
        )
    return spec


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
    teams: list[int]  # team id per seat of a probe game: the fixed teams, or one deal of secret sides
    game_type: Any = None  # envs.core.game.GameType of this configuration
    state_layout: Any = None  # envs.core.Layout of state_tensor(), seat axes by absolute seat
    net_shape: Any = None  # training.netshape.NetShape: what a policy network reads of this game

    def state_seen_by(self, states: np.ndarray, chains: np.ndarray) -> np.ndarray:
        """State rows renumbered as each row's seat sees the table: every seat axis the state layout
        declares rotated from that seat, as observations are (envs.core.observer). A recorded
        decision's chain is game x num_players + seat."""
        index = self._state_gathers[np.asarray(chains) % self.num_players]
        return np.take_along_axis(np.asarray(states), index, axis=1)

    @cached_property
    def _state_gathers(self) -> np.ndarray:
        return seat_gathers(self.state_layout, self.num_players)

    @property
    def num_teams(self) -> int:
        return len(set(self.teams))

    @property
    def cooperative(self) -> bool:
        return self.num_teams == 1

    @property
    def secret_teams(self) -> bool:
        """Sides are dealt per game: read them with `teams_of(game)`, never from `teams`."""
        return self.game_type is not None and self.game_type.teams == "secret"

    @property
    def rewards_along(self) -> bool:
        """Whether returns may change before the end (the game type's reward model; assumed without one)."""
        return self.game_type is None or self.game_type.reward_model == "rewards"

    @property
    def max_decisions(self) -> int | None:
        """Past this many decisions a game is cut (truncated), see `Game.is_truncated`."""
        return self.game_type.max_decisions if self.game_type is not None else None

    def new_game(self, seed: int):
        return self.spec.game_class(self.config, np.random.default_rng(seed))

    def teams_of(self, game) -> list[int]:
        """Team per seat of this game: `game.teams()` (secret sides as dealt at set-up, read by the
        referee to seat and score the players, never shown to a policy)."""
        return _teams(game, self.spec.name)

    def scripted(self, seat: int):
        if self.spec.scripted_policy is None:
            raise ConfigError(f"game {self.spec.name!r} has no scripted baseline (GameSpec.scripted_policy)")
        return self.spec.scripted_policy(self.config, seat)


def team_names(game: str) -> dict[str, str]:
    """Team id -> name where the game names its teams (`GameSpec.extra["team_names"]`; Artifacts:
    Academics, Looters), keyed as evaluations' `by_team` key them."""
    names = resolve_spec(game).extra.get("team_names") or []
    return {str(k): str(name) for k, name in enumerate(names)}


def game_info(game: str, game_config: dict, may_import: bool = False) -> GameInfo:
    return spec_info(resolve_spec(game, may_import), game_config)


def spec_info(spec, game_config: dict) -> GameInfo:
    config = build_config(spec.game_class.config_class, dict(game_config))
    probe = spec.game_class(config, np.random.default_rng(0))
    return GameInfo(
        spec=spec,
        config=config,
        game_config=dict(game_config),
        num_players=probe.num_players,
        num_actions=probe.num_actions,
        obs_dim=probe.observation_layout.size,
        state_dim=probe.state_layout.size,
        teams=_teams(probe, spec.name),
        game_type=probe.game_type(),
        state_layout=probe.state_layout,
        net_shape=NetShape.of(probe),
    )


def _teams(game, name: str) -> list[int]:
    teams = [int(t) for t in game.teams()]
    if len(teams) != game.num_players:
        raise ConfigError(f"{name}: teams() gave {len(teams)} entries for {game.num_players} players")
    return teams


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


def final_outcomes(game, teams: list[int]) -> dict[int, float]:
    """`team_outcomes` of a game that is over. A game cut at its length limit (`game.is_truncated()`)
    has no result: it is scored as a draw among the teams (every team the same score), never as a
    loss, whatever the returns so far."""
    if game.is_truncated():
        return team_outcomes(np.zeros(len(teams)), teams)
    return team_outcomes(np.asarray(game.returns(), float), teams)


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
