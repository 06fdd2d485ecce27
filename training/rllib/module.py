"""The project's own RLModules for RLlib's new API stack, reading our `observation` / `action_mask` keys.

- `MaskedPolicyModule`: the PPO policy. Its layers are exactly those of the native `PolicyNet` (an MLP
  trunk, an actor head, a separate or shared critic), built by `PolicyNet` itself and kept under the same
  attribute names, so its state dict *is* a `PolicyNet` state dict: export to a native checkpoint is a
  copy (see `trainer.export_checkpoint`). Illegal actions get the logit `MASKED_LOGIT` (-1e9): probability exactly 0,
  and no 0 * inf in the entropy or the KL. On EnvRunners (inference-only copies) the critic is dropped.
- `RandomMaskedModule`: uniform over the legal actions (the pool's "random" opponent).
- `ScriptedModule`: the game's scripted baseline (`GameSpec.scripted_policy`), one call per row.

Observations arrive as the dict `{"observation": float32[obs_dim], "action_mask": int8[num_actions]}`
that every game's AEC env produces (RLlib's own example module wants the key `observations`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule

from ..config import NetConfig
from ..nets import PolicyNet, masked_logits
from .options import check_supported

OBS_KEY = "observation"
MASK_KEY = "action_mask"


def split_obs(batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """(observation, bool mask) from a batch whose OBS column is our dict observation."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or OBS_KEY not in obs or MASK_KEY not in obs:
        keys = list(obs) if isinstance(obs, dict) else type(obs).__name__
        raise ValueError(
            f"the tabletop RLModules need dict observations with keys {OBS_KEY!r} and {MASK_KEY!r}, got {keys}"
        )
    return obs[OBS_KEY].float(), obs[MASK_KEY] > 0


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """PPO actor-critic over our dict observations; model_config = {"net": NetConfig fields as a dict}."""

    def setup(self):
        net_config = NetConfig(**dict(self.model_config.get("net", {})))
        net_config.validate()
        check_supported(net_config)
        space = self.observation_space
        if not hasattr(space, "spaces") or OBS_KEY not in space.spaces or MASK_KEY not in space.spaces:
            raise ValueError(
                f"MaskedPolicyModule needs a Dict observation space with {OBS_KEY!r} and {MASK_KEY!r}"
            )
        obs_dim = int(space[OBS_KEY].shape[0])
        num_actions = int(self.action_space.n)
        if space[MASK_KEY].shape != (num_actions,):
            raise ValueError(f"action_mask shape {space[MASK_KEY].shape} does not fit {num_actions} actions")
        net = PolicyNet(obs_dim, num_actions, 0, net_config)
        # the same submodules under the same names: this module's state dict is a PolicyNet's
        self.trunk = net.trunk
        self.actor_head = net.actor_head
        self.critic = net.critic  # None for a shared critic (value head on the actor trunk)
        self.value_head = net.value_head
        self.net_config = net_config
        self.obs_dim, self.num_actions = obs_dim, num_actions

    def get_non_inference_attributes(self) -> list[str]:
        return ["value_head"] if self.net_config.critic == "shared" else ["critic", "value_head"]

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs, mask = split_obs(batch)
        feat = self.trunk(obs)
        return {
            Columns.ACTION_DIST_INPUTS: masked_logits(self.actor_head(feat), mask),
            Columns.EMBEDDINGS: feat,
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        obs, _ = split_obs(batch)
        if self.critic is None:
            feat = embeddings if embeddings is not None else self.trunk(obs)
            return self.value_head(feat).squeeze(-1)
        return self.value_head(self.critic(obs)).squeeze(-1)


def _numpy_obs(batch: dict) -> tuple[np.ndarray, np.ndarray]:
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or OBS_KEY not in obs or MASK_KEY not in obs:
        raise ValueError(
            f"the tabletop RLModules need dict observations with keys {OBS_KEY!r} and {MASK_KEY!r}"
        )
    o, m = obs[OBS_KEY], obs[MASK_KEY]
    o = o.detach().cpu().numpy() if isinstance(o, torch.Tensor) else np.asarray(o)
    m = m.detach().cpu().numpy() if isinstance(m, torch.Tensor) else np.asarray(m)
    return o.astype(np.float32, copy=False), m > 0


class _FixedModule(RLModule):
    """A parameter-free opponent (a plain RLModule, so learners give it no optimizer)."""

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} is an opponent and is not trained")

    def compile(self, *args, **kwargs):  # EnvRunners may ask torch modules to compile
        pass


class RandomMaskedModule(_FixedModule):
    """Uniform over the legal actions; model_config = {"seed": int} (optional)."""

    def setup(self):
        self._rng = np.random.default_rng((self.model_config or {}).get("seed"))

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        _, mask = _numpy_obs(batch)
        noise = self._rng.random(mask.shape)
        return {Columns.ACTIONS: np.where(mask, noise, -1.0).argmax(-1).astype(np.int64)}


class ScriptedModule(_FixedModule):
    """The game's scripted baseline; model_config = {"game": name, "game_config": dict}.

    The baselines decide from (observation, mask) alone, and observations are seat-relative, so one
    policy object (made for seat 0) serves every seat.
    """

    def setup(self):
        from ..games import game_info

        # (in a Ray process: the driver resolved this game name, so its module may be imported here)
        info = game_info(
            self.model_config["game"], dict(self.model_config.get("game_config", {})), may_import=True
        )
        self._policy = info.scripted(0)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs, mask = _numpy_obs(batch)
        return {
            Columns.ACTIONS: np.array([int(self._policy(obs[i], mask[i])) for i in range(len(obs))], np.int64)
        }
