"""A recurrent module's training sequences in the chunks RLlib cuts a turn-based game into.

RLlib (2.60) samples a game in chunks of `rollout_fragment_length` env steps, and a continuing chunk
keeps one env step of the game's past (`MultiAgentEpisode.cut`, the lookback). Acting is not hurt: an
EnvRunner carries each agent's state on. Learning is: RLlib's learner piece (AddStatesFromEpisodesToBatch)
starts a continuing chunk from the last STATE_OUT in the lookback, and in a turn-based game an agent's
last decision usually lies further back, so that piece fails (IndexError; ray-project/ray PR 64081,
whose fix restarts such a chunk from a zero state, which the acting module never had).

`RecurrentStateIn` (learners, just before RLlib's piece, which then leaves the batch as it is) starts
each training sequence from the state its first decision really had, which the acting module recorded
as `H_IN`; later steps follow their predecessors' STATE_OUT, as in RLlib's piece.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns

from .module import H_IN, HIDDEN


class RecurrentStateIn(ConnectorV2):
    """Learner piece: the STATE_IN of each training sequence of a stateful module."""

    def __call__(self, *, rl_module, batch: dict[str, Any], episodes, **kwargs) -> Any:
        if Columns.STATE_IN in batch:
            return batch
        for episode in self.single_agent_episode_iterator(episodes, agents_that_stepped_only=False):
            module = rl_module[episode.module_id]
            if not module.is_stateful():
                continue
            seq = module.model_config["max_seq_len"]
            first = np.asarray(episode.get_extra_model_outputs(key=H_IN, indices=0))
            outs = _stacked_hidden(episode.get_extra_model_outputs(key=Columns.STATE_OUT))
            before = np.concatenate([first[None], outs[:-1]])  # the state each step started from
            starts = before[::seq]
            self.add_n_batch_items(batch, Columns.STATE_IN, {HIDDEN: starts}, len(starts), episode)
        return batch


def _stacked_hidden(state_outs) -> np.ndarray:
    """[T, hidden] from an episode's STATE_OUTs (a numpy'd episode gives a dict of arrays, else a list)."""
    if isinstance(state_outs, dict):
        return np.asarray(state_outs[HIDDEN])
    return np.stack([np.asarray(s[HIDDEN]) for s in state_outs])
