"""The generic PettingZoo AEC face over any Game, and the one thin safety layer `env()` adds."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from .errors import IllegalActionError, OrderError
from .render import check_view, show, view_player


class TabletopAECEnv(AECEnv):
    """Any `Game` as a PettingZoo AEC environment (the `raw_env` of every game).

    Observations are dicts {"observation": float32 vector, "action_mask": int8 vector}; the mask is
    all zero for agents not to move. `reset(seed=...)` makes the whole game reproducible.
    """

    def __init__(self, game_class, config, render_mode: str | None = None, render_view="table"):
        super().__init__()
        if render_mode not in (None, "ansi", "rgb_array", "human"):
            raise ValueError(f"render_mode must be None, 'ansi', 'rgb_array' or 'human', got {render_mode!r}")
        self.game_class = game_class
        self.config = config
        self.render_mode = render_mode
        self.render_view = render_view
        self.metadata = {
            "render_modes": ["ansi", "rgb_array", "human"],
            "name": f"{game_class.name}_v0",
            "is_parallelizable": False,
            "render_fps": 2,
        }
        probe = game_class(config, np.random.default_rng(0))
        self.game = probe
        n = probe.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(*probe.observation_layout.bounds(), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (probe.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(probe.num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(-np.inf, np.inf, (probe.state_layout.size,), np.float32)
        check_view(render_view, n)
        self._rng = np.random.default_rng()
        self._zero_mask = np.zeros(probe.num_actions, dtype=np.int8)
        self._last_returns = np.zeros(n)
        self._rewarded = False
        self._rewards_along = probe.game_type().reward_model == "rewards"

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ----- AEC API -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game; `options={"state": position}` starts from a saved position (Game.to_dict) instead
        (a bad position raises PositionError and leaves the env as it was)."""
        loaded = self.game_class.start_from(options, self.config)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(2**63))
        self.game = loaded or self.game_class(self.config, np.random.default_rng(game_seed))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._last_returns = np.asarray(
            self.game.returns(), dtype=np.float64
        ).copy()  # paid before: not again
        self._rewarded = False  # whether the last step changed a return (rewards then need a reset)
        self.agent_selection = self.possible_agents[self.game.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self._agent_index[agent]
        game = self.game
        if player == game.current_player():
            mask = game.legal_action_mask().astype(np.int8)
        else:
            mask = self._zero_mask.copy()
        return {"observation": game.observation(player), "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """The current agent's legal actions as a bool array (sb3-contrib's MaskablePPO hook)."""
        return self.game.legal_action_mask().copy()

    def state(self) -> np.ndarray:
        return self.game.state_tensor()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        game = self.game
        # any action the space contains (int, numpy integer, 0-d array); raises IllegalActionError and
        # changes nothing if illegal
        game.apply_action(action)
        self._cumulative_rewards[agent] = 0.0
        over = game.is_terminal() or game.is_truncated()
        if over or self._rewards_along:  # a terminal reward model pays nothing before the end
            self._hand_out_rewards(game.returns())
        if over:
            done = self.terminations if game.is_terminal() else self.truncations
            for a in self.agents:
                done[a] = True
            # every agent is then stepped with None once, as PettingZoo expects
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[game.current_player()]
        if self.render_mode == "human":
            self.render()

    def _hand_out_rewards(self, returns: np.ndarray) -> None:
        """Each agent's reward is the change of its return since the last step."""
        delta = returns - self._last_returns
        if self._rewarded or delta.any():
            self._last_returns = returns
            self._rewarded = bool(delta.any())  # the next step resets these rewards to 0
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(delta[i])
                self._cumulative_rewards[a] += float(delta[i])

    def render(self):
        if self.render_mode is None:
            return None
        player = view_player(self.render_view, self.game)
        if self.render_mode == "ansi":
            return self.game.to_string(player)
        picture = self.game.render_rgb(player)
        if self.render_mode == "human":
            show(picture, self.metadata["name"])
            return None
        return picture

    def close(self):
        pass


class TabletopEnv(BaseWrapper):
    """`env()`: the raw env plus order enforcement and illegal-action handling, in one thin layer.

    illegal_action="raise" (default) raises IllegalActionError and leaves the game as it was;
    "penalize" ends the game when the agent to move plays an in-space action the rules forbid now: the
    offender gets `illegal_reward`, every other agent 0 (as PettingZoo's TerminateIllegalWrapper does).
    An action outside the space (anything `action_space.contains()` refuses: None for a live agent, a
    string, a float, an out-of-range number) raises IllegalActionError in both modes and changes nothing.
    An agent that is done is stepped with None, as PettingZoo expects.
    """

    def __init__(self, env: TabletopAECEnv, illegal_action: str = "raise", illegal_reward: float = -1.0):
        super().__init__(env)
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._has_reset = False
        self._ended_by_illegal = False

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"accessing private attribute '{name}' is prohibited")
        return getattr(self.env, name)

    # The per-decision attributes are properties: a training loop reads them every step, and the
    # `__getattr__` fallback (a failed lookup first) costs more than the rest of this layer.
    def _after_reset(self, name: str) -> Any:
        if not self.__dict__.get("_has_reset", False):
            raise OrderError(f"{name} is not available before reset() is called")
        return getattr(self.env, name)

    agents = property(lambda self: self._after_reset("agents"))
    agent_selection = property(lambda self: self._after_reset("agent_selection"))
    rewards = property(lambda self: self._after_reset("rewards"))
    terminations = property(lambda self: self._after_reset("terminations"))
    truncations = property(lambda self: self._after_reset("truncations"))
    infos = property(lambda self: self._after_reset("infos"))
    _cumulative_rewards = property(lambda self: self._after_reset("_cumulative_rewards"))

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._has_reset = True
        self._ended_by_illegal = False
        self.env.reset(seed=seed, options=options)

    def agent_iter(self, max_iter: int = 2**63):
        """PettingZoo's agent iterator; once reset() was called, over the raw env, whose attributes it
        then reads directly every step (the same values, without the checked properties' cost)."""
        return (self.env if self._has_reset else super()).agent_iter(max_iter)

    def observe(self, agent: str):
        if not self._has_reset:
            raise OrderError("observe() called before reset()")
        return self.env.observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise OrderError("last() called before reset()")
        return self.env.last(observe)

    def render(self):
        if not self._has_reset:
            raise OrderError("render() called before reset()")
        return self.env.render()

    def state(self):
        if not self._has_reset:
            raise OrderError("state() called before reset()")
        return self.env.state()

    def action_masks(self):
        if not self._has_reset:
            raise OrderError("action_masks() called before reset()")
        return self.env.action_masks()

    def step(self, action):
        if not self._has_reset:
            raise OrderError("step() called before reset()")
        env = self.env
        if not env.agents:
            raise OrderError("step() called after every agent is done; call reset()")
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            if action is not None:
                raise OrderError(f"{agent} is done: step(None) is the only step it may take")
            return env.step(None)
        try:
            env.step(action)
        except IllegalActionError:
            # only a move the space contains is one the rules may forbid: anything else is a caller's
            # error in every mode, as in the Gymnasium face
            if self.illegal_action == "raise" or not env.action_space(agent).contains(action):
                raise
            self._end_with_penalty(agent)

    def _end_with_penalty(self, offender: str):
        env = self.env
        self._ended_by_illegal = True
        for a in env.agents:
            env.rewards[a] = self.illegal_reward if a == offender else 0.0
            env._cumulative_rewards[a] = env.rewards[a]
            env.terminations[a] = True
            env.infos[a]["illegal_action"] = a == offender

    def __str__(self):
        return str(self.env)
