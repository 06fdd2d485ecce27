"""The project's own RLModules for RLlib's new API stack, reading our `observation` / `action_mask` keys.

- `MaskedPolicyModule`: the PPO policy, the native `PolicyNet` itself (`self.net`), built from the same
  `NetConfig`: every network the native trainer trains (MLP, GRU, layout encoders with cell heads and
  keys, seat heads, a separate, shared or central critic, the auxiliary head, `direct`, observation
  normalization) trains here too. Its state dict is a `PolicyNet` state dict under the prefix `net.`
  (`policy_weights` / `module_weights` convert), so export to a native checkpoint is a copy (see
  `trainer.export_checkpoint`). Illegal actions get the logit `MASKED_LOGIT` (-1e9): probability
  exactly 0, and no 0 * inf in the entropy or the KL. On EnvRunners (inference-only copies) the
  critic and the auxiliary head are dropped: they act from the observation alone.
- `RandomMaskedModule`: uniform over the legal actions (the pool's "random" opponent).
- `ScriptedModule`: the game's scripted baseline (`GameSpec.scripted_policy`), one call per row.

Observations arrive as the dict `{"observation": float32[obs_dim], "action_mask": int8[num_actions]}`
that every game's AEC env produces (RLlib's own example module wants the key `observations`). What
only training reads beside a decision - the state for a central critic, the auxiliary target, the
teacher's label - comes as extra batch columns from the learner connector (`columns`).
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
from ..nets import PolicyNet
from ..netshape import NetShape

OBS_KEY = "observation"
MASK_KEY = "action_mask"
STATE = "state"  # batch column: state_tensor() at each decision (net.critic=central), see `columns`
AUX_TARGET = "aux_target"  # batch column: the state as the deciding seat sees it (net.aux_state)
AUX_OUT = "aux_state"  # forward_train output: the auxiliary head's prediction
HIDDEN = "h"  # the recurrent state's key (net.kind=gru)
H_IN = "h_in"  # acting output of a recurrent module: the state each decision started from (`columns`)
PREFIX = "net."


def policy_weights(module_weights: dict) -> dict:
    """A MaskedPolicyModule's weights as a native PolicyNet state dict."""
    return {k.removeprefix(PREFIX): v for k, v in module_weights.items()}


def module_weights(net_weights: dict) -> dict:
    """A native PolicyNet state dict as a MaskedPolicyModule's weights."""
    return {PREFIX + k: v for k, v in net_weights.items()}


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
    """PPO actor-critic over our dict observations. model_config: {"net": NetConfig fields as a dict,
    "shape": the game's NetShape as a dict (sizes, observation pieces, action blocks), "max_seq_len": the
    length of a recurrent training sequence}.

    Batches are [B, ...] rows, or [B, T, ...] sequences for a recurrent net (RLlib adds the time axis
    and the recurrent state `{"h": [B, gru_size]}` for stateful modules)."""

    def setup(self):
        net_config = NetConfig(**dict(self.model_config.get("net", {})))
        net_config.validate()
        space = self.observation_space
        if not hasattr(space, "spaces") or OBS_KEY not in space.spaces or MASK_KEY not in space.spaces:
            raise ValueError(
                f"MaskedPolicyModule needs a Dict observation space with {OBS_KEY!r} and {MASK_KEY!r}"
            )
        obs_dim = int(space[OBS_KEY].shape[0])
        num_actions = int(self.action_space.n)
        if space[MASK_KEY].shape != (num_actions,):
            raise ValueError(f"action_mask shape {space[MASK_KEY].shape} does not fit {num_actions} actions")
        shape = NetShape.from_dict(self.model_config["shape"])
        if (shape.obs_dim, shape.num_actions) != (obs_dim, num_actions):
            raise ValueError(
                f"the network's shape ({shape.obs_dim} inputs, {shape.num_actions} actions) does not fit the "
                f"spaces ({obs_dim}, {num_actions})"
            )
        self.net = PolicyNet(shape, net_config)
        self.net_config = net_config
        self.obs_dim, self.num_actions = obs_dim, num_actions
        if self.inference_only:
            # dropped here: RLlib's own removal (TorchRLModule.__init__) cannot reach into self.net
            for name in self.get_non_inference_attributes():
                setattr(self.net, name.removeprefix(PREFIX), None)

    def get_non_inference_attributes(self) -> list[str]:
        """What acting never reads: the critic, its value head, the auxiliary head."""
        names = [PREFIX + "value_head", PREFIX + "aux_head"]
        return names if self.net_config.critic == "shared" else [PREFIX + "critic", *names]

    def get_initial_state(self) -> dict:
        """A GRU's zero state (RLlib treats a module with an initial state as recurrent)."""
        if not self.net.recurrent:
            return {}
        return {HIDDEN: torch.zeros(self.net.hidden_size)}

    # ----- acting (EnvRunners): one decision per row, no critic -----------------------------------
    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs, mask = split_obs(batch)
        if not self.net.recurrent:
            logits, _, _ = self.net.step(obs, mask, need_value=False)
            return {Columns.ACTION_DIST_INPUTS: logits}
        # RLlib gives a stateful module a time axis of one step on the EnvRunners
        h = batch[Columns.STATE_IN][HIDDEN]
        logits, _, h = self.net.step(obs[:, 0], mask[:, 0], h, need_value=False)
        return {
            Columns.ACTION_DIST_INPUTS: logits[:, None],
            Columns.STATE_OUT: {HIDDEN: h},
            H_IN: batch[Columns.STATE_IN][HIDDEN][:, None],  # (RLlib drops the one-step time axis)
        }

    # ----- training (learners): logits, values, the auxiliary prediction -----------------------------
    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        logits, values, predicted = self._evaluate(batch, predict_state=self.net.aux_head is not None)
        out = {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values}
        if predicted is not None:
            out[AUX_OUT] = predicted
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The critic's values; `embeddings` are the values `_forward_train` computed in its own pass."""
        if embeddings is not None:
            return embeddings
        if not self.net.recurrent:
            obs, _ = split_obs(batch)
            return self.net.values(obs, batch.get(STATE))
        return self._evaluate(batch, predict_state=False)[1]

    def _evaluate(self, batch: dict, predict_state: bool):
        """(logits, values, predicted state or None) of a batch of rows or of [B, T] sequences."""
        obs, mask = split_obs(batch)
        state = batch.get(STATE)
        if not self.net.recurrent:
            outs = self.net.evaluate_flat(obs, mask, state, predict_state)
            return outs[0], outs[1], outs[2] if predict_state else None
        # RLlib's [B, T] sequences start from STATE_IN and never cross the start of a game
        time_major = [x.transpose(0, 1) if x is not None else None for x in (obs, mask, state)]
        starts = torch.zeros(time_major[0].shape[:2], dtype=torch.bool, device=obs.device)
        outs = self.net.sequence(
            time_major[0],
            time_major[1],
            starts,
            batch[Columns.STATE_IN][HIDDEN],
            time_major[2],
            predict_state,
        )
        outs = [x.transpose(0, 1) for x in outs]
        return outs[0], outs[1], outs[2] if predict_state else None


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
