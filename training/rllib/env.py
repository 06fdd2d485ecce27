"""Any registered game as an RLlib MultiAgentEnv, through PettingZoo's RLlib wrapper (`PettingZooEnv`).

The AEC env is the game's `env()` face (order checks, illegal actions raise `IllegalActionError` by
default). `PettingZooEnv` steps the agent to move and then reports the next agent to move, with every
agent's rewards accumulated since its own last decision - the turn-based credit assignment the
native trainer uses. This subclass adds two things: rewards multiplied by `ppo.reward_scale`, and the
game's final `returns` (unscaled, every seat) and whether it was `truncated` in each agent's info at
the end, for the self-play callback.

The state: with env_config["with_state"] (a central critic or the auxiliary target), every
observation's info carries `state_tensor()` at that moment under "state", for the learner connector
(`columns`) to put beside the decision - the critic's input in training only, as MAPPO-style critics
read it; the acting module never sees it.

Truncation: once the game reaches `game_type().max_decisions` without ending, the AEC env sets
truncations for every agent, so every agent's episode ends truncated (`truncateds["__all__"]`) and
RLlib's PPO bootstraps each agent from the value of its last observation (a terminated agent gets 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from envs.core.face import make_faces

from ..games import resolve_spec

ENV_NAME = "tabletop_rllib"


def make_aec(game: str, game_config: dict, illegal_action: str = "raise"):
    """The PettingZoo AEC env (`env()` face) of a registered game name or "module:ATTR" GameSpec (in
    an EnvRunner process: the name the driver resolved, so its module may be imported here)."""
    spec = resolve_spec(game, may_import=True)
    _raw, env = make_faces(spec.game_class)
    return env(illegal_action=illegal_action, **dict(game_config))


STATE_INFO = "state"  # info key of state_tensor() (env_config["with_state"])


class TabletopRLlibEnv(PettingZooEnv):
    """env_config: {"game": name, "game_config": {...}, "reward_scale": 1.0, "illegal_action": "raise",
    "with_state": False}."""

    def __init__(self, env_config: dict[str, Any] | None = None):
        cfg = dict(env_config or {})
        if "game" not in cfg:
            raise ValueError("TabletopRLlibEnv needs env_config['game'] (a registered game or 'module:ATTR')")
        self.reward_scale = float(cfg.get("reward_scale", 1.0))
        self.with_state = bool(cfg.get("with_state", False))
        super().__init__(
            make_aec(cfg["game"], cfg.get("game_config", {}), cfg.get("illegal_action", "raise"))
        )

    @property
    def game(self):
        """The engine behind the env (the game in progress)."""
        return self.env.unwrapped.game

    def reset(self, *, seed=None, options=None):
        obs, infos = super().reset(seed=seed, options=options)
        return obs, self._with_state(obs, {a: dict(infos.get(a, {})) for a in obs})

    def _with_state(self, obs: dict, infos: dict) -> dict:
        """The state beside each observation (env_config["with_state"])."""
        if self.with_state and obs:
            state = np.asarray(self.game.state_tensor(), np.float32)
            for agent in obs:
                infos[agent] = {**infos.get(agent, {}), STATE_INFO: state}
        return infos

    def step(self, action):
        obs, rewards, terminateds, truncateds, infos = super().step(action)
        infos = self._with_state(obs, infos)
        if self.reward_scale != 1.0:
            rewards = {a: r * self.reward_scale for a, r in rewards.items()}
        if terminateds.get("__all__") or truncateds.get("__all__"):
            end = {
                "returns": np.asarray(self.game.returns(), float).tolist(),
                "truncated": bool(self.game.is_truncated()),
            }
            for agent in obs:
                infos[agent] = {**infos.get(agent, {}), **end}
        return obs, rewards, terminateds, truncateds, infos


def register(name: str = ENV_NAME) -> str:
    """Register the env creator with Ray (call after `ray.init` when joining a cluster)."""
    from ray.tune.registry import register_env

    register_env(name, lambda env_config: TabletopRLlibEnv(env_config))
    return name
