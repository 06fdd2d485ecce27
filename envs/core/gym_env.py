"""The single-seat Gymnasium face: one learning seat, the other seats played by given policies."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .config import build_config
from .errors import IllegalActionError, OrderError, PositionError
from .policies import checked_seat, deal_for_seat, is_over, play_others, reset_policies, seat_policies
from .registry import GameSpec, spec
from .render import show


class SingleSeatEnv(gymnasium.Env):
    """Play one seat of a tabletop game; the others are played by `opponents`.

    opponents: None (uniform random over legal actions), one callable
    `policy(observation, action_mask) -> action` for every other seat, or a list with one per seat
    (the learner's own entry is ignored). A name stands for a player too, each seat getting the one
    made for it (envs.core.players.PLAYERS, where users register their own): "random", "scripted",
    "search" (envs.core.search.Search: ISMCTS from the seat's information), and with the training
    package "search:<run>" (search guided by a trained run) or a run directory or checkpoint (its
    trained policy); a Search object plays through `act(game, seat)`. Optional hooks of a policy:
    `reset()`, called at the start of every game; `for_seat(seat) -> policy`, asked for one policy per
    seat when a single policy plays several seats (so each keeps its own recurrent state). A policy gets a mask it may write to.
    seat: the learner's seat, or None for a random seat each episode. Observations are the flat vector
    (or, with dict_observation=True, the same dict as the AEC env); `action_masks()` gives the legal
    actions (sb3-contrib's MaskablePPO reads it), and so does info["action_mask"]. The reward is the learner's return, paid as it changes.
    An action is anything `action_space.contains()` accepts (int, numpy integer, 0-d integer array).
    illegal_action: "penalize" (default) ends the episode when the learner plays an in-space action the
    rules forbid now: reward `illegal_reward`, terminated, info["illegal_action"] = True (so learners
    without masks and Gymnasium's checker, which steps with `action_space.sample()`, work); "raise"
    raises IllegalActionError and changes nothing. An action outside the space always raises.
    Every episode ends: past the game's `max_decisions` (all seats' decisions counted) it is truncated.
    render_view: "learner" (default: pictures and text show only what the learner's seat may see) or
    "table" (the whole table, hidden information included); the picture says which.
    The env pickles (opponents must too), so `gymnasium.make_vec(..., vectorization_mode="async")` works.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        game: str | GameSpec,
        opponents: Callable | Sequence[Callable] | None = None,
        seat: int | None = None,
        render_mode: str | None = None,
        render_view="learner",
        dict_observation: bool = False,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        **config: Any,
    ):
        self.spec_ = game if isinstance(game, GameSpec) else spec(game)
        self.game_class = self.spec_.game_class
        self.config = build_config(self.game_class.config_class, config)
        self._options = dict(config)
        probe = self.game_class(self.config, np.random.default_rng(0))
        self.num_players = probe.num_players
        self.fixed_seat = checked_seat(seat, self.num_players)
        if render_mode not in (None, "ansi", "rgb_array", "human"):
            raise ValueError(f"unknown render_mode {render_mode!r}")
        if render_view not in ("learner", "table"):
            raise ValueError(
                f"render_view must be 'learner' (the learner's seat) or 'table', got {render_view!r}"
            )
        self.render_view = render_view
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._ended_by_illegal = False
        self.render_mode = render_mode
        self._has_reset = False
        self.dict_observation = dict_observation
        self.opponents = seat_policies(self.spec_, self.config, self._options, opponents, self.num_players)
        low, high = probe.observation_layout.bounds()
        vector = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(probe.num_actions)
        if dict_observation:
            self.observation_space = spaces.Dict(
                {"observation": vector, "action_mask": spaces.Box(0, 1, (probe.num_actions,), np.int8)}
            )
        else:
            self.observation_space = vector
        self.game = probe
        self.seat = 0
        self._rewards_along = probe.game_type().reward_model == "rewards"

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode; `options={"state": position}` starts from a saved position (Game.to_dict), the
        opponents playing from it up to the learner's seat (a bad position raises PositionError and
        leaves the env as it was)."""
        loaded = self.game_class.start_from(options, self.config)
        super().reset(seed=seed)
        rng = self.np_random
        seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(self.num_players))
        if loaded is None:
            # an episode starts at the learner's first decision (deal_for_seat deals again if it never comes)
            game = deal_for_seat(self.game_class, self.config, seat, self.opponents, rng)
        else:
            game = loaded
            reset_policies(self.opponents)
            play_others(game, seat, self.opponents, rng)
            if is_over(game):
                raise PositionError(f"the game from that position ends before seat {seat} acts")
        self._has_reset = True
        self.seat, self.game = seat, game
        self._last_return = float(game.returns()[seat])  # what was paid before the position is not paid again
        self._ended_by_illegal = False
        return self._observe(), self._info()

    def step(self, action):
        if not self._has_reset:
            raise OrderError("step() called before reset()")
        game = self.game
        if self._over() or self._ended_by_illegal:
            raise IllegalActionError("the episode is over; call reset()")
        try:
            game.apply_action(action, player=self.seat)
        except IllegalActionError:
            if self.illegal_action == "raise" or not self.action_space.contains(action):
                raise
            self._ended_by_illegal = True
            info = {**self._info(), "illegal_action": True}
            return self._observe(), self.illegal_reward, True, False, info
        self._play_others()
        terminated, truncated = game.is_terminal(), game.is_truncated()
        reward = 0.0
        if terminated or truncated or self._rewards_along:  # a terminal reward model pays only at the end
            ret = float(game.returns()[self.seat])
            reward, self._last_return = ret - self._last_return, ret
        return self._observe(), reward, terminated, truncated, self._info()

    def _over(self) -> bool:
        return is_over(self.game)

    def _play_others(self):
        play_others(self.game, self.seat, self.opponents, self.np_random)

    def _observe(self):
        obs = self.game.observation(self.seat)
        if self.dict_observation:
            return {"observation": obs, "action_mask": self.action_masks().astype(np.int8)}
        return obs

    def _info(self) -> dict:
        return {"action_mask": self.action_masks(), "seat": self.seat}

    def action_masks(self) -> np.ndarray:
        game = self.game
        if self._over() or game.current_player() != self.seat:
            return np.zeros(game.num_actions, dtype=bool)
        return game.legal_action_mask().copy()

    def render(self):
        if self.render_mode is None:
            return None
        player = self.seat if self.render_view == "learner" else None
        if self.render_mode == "ansi":
            return self.game.to_string(player)
        picture = self.game.render_rgb(player)
        if self.render_mode == "human":
            show(picture)
            return None
        return picture
