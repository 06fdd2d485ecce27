"""The learner connector piece that puts beside each decision what only training reads.

RLlib builds a train batch from the EnvRunners' episodes through a learner connector pipeline; this
piece runs first (after PPO's own piece that appends a bootstrap step to every episode chunk), reads the
episodes and adds, per decision, the columns the config needs:

- `state` (net.critic=central): `state_tensor()` at the decision, from the info the env left beside the
  observation (`env.STATE_INFO`). The central critic reads it, as MAPPO-style critics do; acting never.
- `aux_target` (net.aux_state): that state as the deciding seat sees the table (its seat axes rotated
  from that seat, `GameInfo.state_seen_by`), the auxiliary head's target.
- `teacher` (teacher.coef > 0): the scripted baseline's action on a teacher.share of main's decisions
  (-1 elsewhere). The baseline reads only (observation, mask), so it can label any position reached.

With net.normalize_obs it also updates main's running observation statistics from main's decisions,
once per train batch before the update, as the native trainer does (the statistics are buffers of the
module, so they reach the EnvRunners with the weights).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.connectors.connector_v2 import ConnectorV2

from ..games import game_info
from .env import STATE_INFO
from .module import AUX_TARGET, MASK_KEY, OBS_KEY, STATE
from .selfplay import MAIN, seat_of

TEACHER = "teacher"  # batch column: the scripted baseline's action, -1 where it gave none


class TrainingColumns(ConnectorV2):
    """Adds `state`, `aux_target` and `teacher` columns (those asked for) to the train batch."""

    def __init__(
        self,
        input_observation_space=None,
        input_action_space=None,
        *,
        game: str,
        game_config: dict,
        state: bool = False,
        aux_target: bool = False,
        teacher_share: float = 0.0,
        normalize: bool = False,
        seed: int = 0,
        **kwargs,
    ):
        super().__init__(input_observation_space, input_action_space, **kwargs)
        self.state, self.aux_target, self.normalize = state, aux_target, normalize
        self.teacher_share = float(teacher_share)
        # (in a learner process: the name the driver resolved, so its module may be imported here)
        self.info = game_info(game, dict(game_config), may_import=True)
        self.teacher = self.info.scripted(0) if self.teacher_share > 0 else None
        self.rng = np.random.default_rng(seed)

    def __call__(self, *, rl_module, batch: dict[str, Any], episodes, **kwargs) -> Any:
        seen: list[np.ndarray] = []
        for episode in self.single_agent_episode_iterator(episodes, agents_that_stepped_only=False):
            n = len(episode)  # the decisions, and the bootstrap step PPO appended (a copy of the last)
            if self.state or self.aux_target:
                self._add_state(batch, episode, n)
            if episode.module_id == MAIN and (self.teacher is not None or self.normalize):
                observations = stacked(episode.get_observations(slice(0, n)))
                if self.normalize:
                    seen.append(observations[OBS_KEY][: n - 1])
            if self.teacher is not None:
                labels = self._labels(observations, n) if episode.module_id == MAIN else np.full(n, -1)
                self.add_n_batch_items(batch, TEACHER, list(labels), n, episode)
        if seen and self.normalize:
            rl_module[MAIN].net.obs_norm.update(np.concatenate(seen))
        return batch

    def _add_state(self, batch: dict, episode, n: int) -> None:
        infos = episode.get_infos(slice(0, n))
        if any(STATE_INFO not in info for info in infos):
            raise ValueError(
                "an observation came without the state beside it: the env needs env_config['with_state']"
            )
        states = np.stack([info[STATE_INFO] for info in infos]).astype(np.float32)
        if self.state:
            self.add_n_batch_items(batch, STATE, list(states), n, episode)
        if self.aux_target:
            seen = self.info.state_seen_by(states, np.full(n, seat_of(episode.agent_id)))
            self.add_n_batch_items(batch, AUX_TARGET, list(seen.astype(np.float32)), n, episode)

    def _labels(self, observations: dict, n: int) -> np.ndarray:
        """The baseline's action on a teacher.share of the decisions (never the bootstrap step)."""
        labels = np.full(n, -1, np.int64)
        rows = np.arange(n - 1)
        if self.teacher_share < 1:
            rows = rows[self.rng.random(len(rows)) < self.teacher_share]
        obs, masks = observations[OBS_KEY], observations[MASK_KEY] > 0
        for r in rows:
            labels[r] = self.teacher(obs[r], masks[r])
        return labels


def stacked(observations) -> dict[str, np.ndarray]:
    """An episode's dict observations as arrays (a numpy'd episode gives them so, a fresh one as a list)."""
    if isinstance(observations, dict):
        return {
            OBS_KEY: np.asarray(observations[OBS_KEY], np.float32),
            MASK_KEY: np.asarray(observations[MASK_KEY]),
        }
    return {
        OBS_KEY: np.stack([o[OBS_KEY] for o in observations]).astype(np.float32),
        MASK_KEY: np.stack([o[MASK_KEY] for o in observations]),
    }
