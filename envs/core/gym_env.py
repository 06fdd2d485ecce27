"""The single-seat Gymnasium face: one learning seat, the other seats played by given policies."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .config import build_config
from .errors import IllegalActionError, OrderError, did_you_mean
from .registry import GameSpec
from .render import show
from .search import reads_game, unguided_search

MAX_REDEALS = 100
NAMED_OPPONENTS = ("random", "scripted", "search")  # and "search:<run>"


class SingleSeatEnv(gymnasium.Env):
    """Play one seat of a tabletop game; the others are played by `opponents`.

    opponents: None (uniform random over legal actions), one callable
    `policy(observation, action_mask) -> action` for every other seat, or a list with one per seat
    (the learner's own entry is ignored). A name stands for a player too: "random", "scripted",
    "search" (envs.core.search.Search: ISMCTS from the seat's information) or "search:<run>" (search
    guided by a trained run; needs the training package); a Search object plays through
    `act(game, seat)`. Optional hooks of a policy: `reset()`, called at the start of
    every game; `for_seat(seat) -> policy`, asked for one policy per seat when a single policy plays
    several seats (so each keeps its own recurrent state). A policy gets a mask it may write to.
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
        from envs import spec

        self.spec_ = game if isinstance(game, GameSpec) else spec(game)
        self.game_class = self.spec_.game_class
        self.config = build_config(self.game_class.config_class, config)
        self._options = dict(config)
        probe = self.game_class(self.config, np.random.default_rng(0))
        self.num_players = probe.num_players
        if seat is not None and (
            isinstance(seat, (bool, np.bool_))
            or not isinstance(seat, (int, np.integer))
            or not 0 <= seat < self.num_players
        ):
            raise ValueError(
                f"seat must be None (a random seat) or an integer 0..{self.num_players - 1}, got {seat!r}"
            )
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
        self.fixed_seat = None if seat is None else int(seat)
        self._has_reset = False
        self.dict_observation = dict_observation
        self.opponents = self._seat_policies(opponents)
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

    def _seat_policies(self, opponents) -> list[Callable | None]:
        if opponents is None:
            return [None] * self.num_players
        if isinstance(opponents, str):
            return [self._named_policy(opponents, s) for s in range(self.num_players)]
        if callable(opponents) or reads_game(opponents):
            # a policy with recurrent state gives each seat its own copy (the policy protocol below)
            for_seat = getattr(opponents, "for_seat", None)
            if callable(for_seat):
                return [for_seat(s) for s in range(self.num_players)]
            return [opponents] * self.num_players
        opponents = list(opponents)
        if len(opponents) != self.num_players:
            raise ValueError(f"give one opponent policy per seat ({self.num_players}), got {len(opponents)}")
        return [self._named_policy(o, s) if isinstance(o, str) else o for s, o in enumerate(opponents)]

    def _named_policy(self, name: str, seat: int):
        """ "random", "scripted", "search" (ISMCTS), or "search:<run>" (guided by a trained run: this asks
        the training package, which must be installed, for it)."""
        if name == "random":
            return None
        if name == "scripted":
            if self.spec_.scripted_policy is None:
                raise ValueError(f"{self.spec_.name} has no scripted player")
            return self.spec_.scripted_policy(self.config, seat)
        if name == "search":
            return unguided_search(self.spec_, self.config, seed=seat)
        if name.startswith("search:"):
            try:
                from training.games import spec_info
                from training.search import search_agent
            except ImportError as exc:
                raise ValueError(
                    f"{name!r} needs the training package: pip install 'tabletop-rl[train]'"
                ) from exc
            return search_agent(name, spec_info(self.spec_, self._options), seed=seat)
        raise ValueError(
            f"unknown opponent {name!r}: use 'random', 'scripted', 'search', 'search:<run>' or a policy"
            + did_you_mean(name, NAMED_OPPONENTS)
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._has_reset = True
        rng = self.np_random
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(self.num_players))
        self._last_return = 0.0
        self._ended_by_illegal = False
        # An episode starts at the learner's first decision; a deal whose game ends before the learner
        # ever acts (rare: e.g. an early kill in Artifacts) is not an episode of that seat: deal again.
        for _ in range(MAX_REDEALS):
            self.game = self.game_class(self.config, np.random.default_rng(int(rng.integers(2**63))))
            self._reset_opponents()
            self._play_others()
            if not self._over():
                return self._observe(), self._info()
        raise RuntimeError(f"seat {self.seat} never got a decision in {MAX_REDEALS} deals")

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

    def _reset_opponents(self) -> None:
        """A new game: policies with a `reset()` hook forget the last one (recurrent state)."""
        seen = set()
        for policy in self.opponents:
            reset = getattr(policy, "reset", None)
            if callable(reset) and id(policy) not in seen:
                seen.add(id(policy))
                reset()

    def _over(self) -> bool:
        return self.game.is_terminal() or self.game.is_truncated()

    def _play_others(self):
        game, rng = self.game, self.np_random
        while not self._over() and game.current_player() != self.seat:
            player = game.current_player()
            mask = game.legal_action_mask()
            policy = self.opponents[player]
            if policy is None:
                legal = np.flatnonzero(mask)
                action = int(legal[rng.integers(len(legal))])
            elif reads_game(policy):  # a search agent: it reads the game through resample_hidden only
                action = policy.act(game, player)
            else:  # a copy: the policy may write to its mask
                action = policy(game.observation(player), mask.copy())
            game.apply_action(action)

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
