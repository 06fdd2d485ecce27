"""RLlib's PPO learner with the native trainer's optimizer (Adam, eps 1e-5) and its two extra loss
terms (`training.ppo` has the same):

- the auxiliary target (net.aux_state): the actor's features predict the state as the deciding seat
  sees it (`PolicyNet.aux_loss`, already weighted by net.aux_state);
- the teacher (teacher.coef): a cross-entropy towards the scripted baseline's labels
  (`ppo.imitation_loss`), its weight set by the driver every iteration (`set_teacher_coef`), falling
  from teacher.coef to 0 as the native trainer's does.

With ppo.normalize_advantages it standardizes each minibatch's advantages, as the native update does
(RLlib standardizes them once over the whole batch; a minibatch's then need not have mean 0).
It also starts a recurrent module's training sequences from the states the acting module recorded
(`recurrent.RecurrentStateIn`, in place of RLlib's piece that fails on turn-based episodes). The loss
terms read the columns the learner connector added (`columns`) and skip RLlib's padding and bootstrap
rows (its loss mask), as RLlib's own loss terms do.
"""

from __future__ import annotations

import torch
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.connectors.common import AddStatesFromEpisodesToBatch
from ray.rllib.core.columns import Columns
from ray.rllib.evaluation.postprocessing import Postprocessing

from ..ppo import imitation_loss, standardized
from .columns import TEACHER
from .module import AUX_OUT, AUX_TARGET
from .recurrent import RecurrentStateIn

MINIBATCH_ADVANTAGES = "minibatch_advantages"  # learner_config_dict key: ppo.normalize_advantages


class TabletopPPOLearner(PPOTorchLearner):
    teacher_coef: float = 0.0

    def build(self) -> None:
        super().build()
        if self._learner_connector is not None and self.config.add_default_connectors_to_learner_pipeline:
            self._learner_connector.insert_before(AddStatesFromEpisodesToBatch, RecurrentStateIn())

    def configure_optimizers_for_module(self, module_id, config=None) -> None:
        """Adam as the native trainer's (eps 1e-5, not torch's 1e-8), the lr under RLlib's schedule."""
        params = self.get_parameters(self._module[module_id])
        self.register_optimizer(
            module_id=module_id,
            optimizer=torch.optim.Adam(params, eps=1e-5),
            params=params,
            lr_or_lr_schedule=config.lr,
        )

    def set_teacher_coef(self, coef: float) -> None:
        self.teacher_coef = float(coef)

    def compute_loss_for_module(self, *, module_id, config, batch, fwd_out):
        logits = fwd_out[Columns.ACTION_DIST_INPUTS]
        mask = batch.get(Columns.LOSS_MASK)
        weight = mask.float() if mask is not None else torch.ones(logits.shape[:-1], device=logits.device)
        if self.config.learner_config_dict.get(MINIBATCH_ADVANTAGES):
            batch[Postprocessing.ADVANTAGES] = standardized(batch[Postprocessing.ADVANTAGES], weight)
        loss = super().compute_loss_for_module(
            module_id=module_id, config=config, batch=batch, fwd_out=fwd_out
        )
        stats = {}
        if AUX_OUT in fwd_out:
            aux = self.module[module_id].unwrapped().net.aux_loss(fwd_out[AUX_OUT], batch[AUX_TARGET], weight)
            loss = loss + aux
            stats["aux_state_loss"] = aux.detach()
        if self.teacher_coef > 0 and TEACHER in batch:
            imitation, agreement = imitation_loss(torch.log_softmax(logits, -1), batch[TEACHER], weight)
            loss = loss + self.teacher_coef * imitation
            stats |= {"teacher_cross_entropy": imitation.detach(), "teacher_agreement": agreement}
            stats["teacher_coef"] = self.teacher_coef
        if stats:
            self.metrics.log_dict(stats, key=module_id, window=1)
        return loss
