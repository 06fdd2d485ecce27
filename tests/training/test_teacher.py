"""The scripted baseline as a teacher of the learner's own decisions (TeacherConfig): its labels, the
imitation term in the PPO loss, its falling weight, and the config's checks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from envs.core import ConfigError
from training.config import NetConfig, PPOConfig
from training.ppo import ppo_update
from training.trainer import Trainer, resume

from .helpers import batch_log_probs, tiny_config, toy_rollout
from .toy_game import toy_scripted


def _toy_batch(kind: str):
    return toy_rollout(NetConfig(kind=kind, hidden=[16], gru_size=8))


def _teacher_logp(net, batch) -> float:
    """Mean log-probability of the teacher's labels."""
    log_probs, rows = batch_log_probs(net, batch)
    return log_probs.gather(-1, torch.from_numpy(batch.teacher[rows]).unsqueeze(-1)).mean().item()


@pytest.mark.parametrize("kind", ["mlp", "gru"])
def test_the_imitation_term_pulls_the_policy_to_the_teachers_choice(kind):
    info, net, batch = _toy_batch(kind)
    policy = toy_scripted(info.config, 0)
    batch.teacher = np.array([policy(o, m) for o, m in zip(batch.obs, batch.mask)], np.int64)
    batch.advantage[:] = 0.0  # no policy gradient: only the teacher can move the policy
    before = _teacher_logp(net, batch)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    cfg = PPOConfig(epochs=10, minibatches=2, ent_coef=0.0, vf_coef=0.0)
    stats = ppo_update(net, opt, batch, cfg, np.random.default_rng(0), teacher_coef=1.0)
    assert _teacher_logp(net, batch) > before + 0.3
    assert 0.0 <= stats["teacher/agreement"] <= 1.0 and stats["teacher/cross_entropy"] > 0


def test_without_a_coefficient_the_labels_are_ignored():
    info, net, batch = _toy_batch("mlp")
    batch.advantage[:] = 0.0
    batch.teacher = np.zeros(len(batch), np.int64)
    state = {k: v.clone() for k, v in net.state_dict().items()}
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    cfg = PPOConfig(epochs=1, minibatches=1, ent_coef=0.0, vf_coef=0.0)
    stats = ppo_update(net, opt, batch, cfg, np.random.default_rng(0), teacher_coef=0.0)
    assert "teacher/agreement" not in stats
    # zero advantages, no entropy, no value loss, no teacher: nothing to learn
    assert all(torch.equal(state[k], v) for k, v in net.state_dict().items())


def test_the_teacher_labels_the_learners_decisions_with_the_scripted_choice(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "t", "teacher.coef=1.0", "teacher.share=1.0"), log=False)
    batch = trainer.backend.runner.collect(16, 1.0, 0.95)
    labels = trainer.backend._teacher_labels(batch)
    policy = toy_scripted(trainer.info.config, 0)
    rows = np.flatnonzero(batch.trainable)
    assert len(rows) > 0
    assert all(labels[r] == policy(batch.obs[r], batch.mask[r]) for r in rows)
    assert np.all(labels[~batch.trainable] == -1)
    assert all(batch.mask[r, labels[r]] for r in rows)


def test_a_share_of_the_decisions_is_labelled(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "t", "teacher.coef=1.0", "teacher.share=0.3"), log=False)
    batch = trainer.backend.runner.collect(16, 1.0, 0.95)
    labelled = trainer.backend._teacher_labels(batch) >= 0
    share = labelled.sum() / batch.trainable.sum()
    assert 0.15 < share < 0.45
    assert not np.any(labelled & ~batch.trainable)


def test_the_teachers_weight_falls_to_zero_at_until(tmp_path):
    config = tiny_config(tmp_path / "t", "total_steps=1000", "teacher.coef=2.0", "teacher.until=0.5")
    trainer = Trainer(config, log=False)
    weights = []
    for decisions in (0, 250, 500, 900):
        trainer.backend.runner.decisions = decisions
        weights.append(trainer.backend._teacher_coef())
    assert weights == [2.0, 1.0, 0.0, 0.0]
    trainer.backend.runner.decisions = 0
    stats = trainer.backend.iterate()
    assert stats["teacher/coef"] == 2.0 and "teacher/agreement" in stats


def test_no_teacher_by_default(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "t"), log=False)
    assert trainer.backend.teacher is None
    stats = trainer.backend.iterate()
    assert not any(k.startswith("teacher/") for k in stats)


@pytest.mark.parametrize(
    "override,words",
    [
        ("teacher.coef=-1", "teacher.coef must be >= 0"),
        ("teacher.until=0", "teacher.until must be in (0, 1]"),
        ("teacher.share=1.5", "teacher.share must be in (0, 1]"),
        ("teacher.coef=much", "teacher.coef must be a number"),
    ],
)
def test_bad_teacher_settings_are_named(tmp_path, override, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        tiny_config(tmp_path / "t", override)


def test_a_teacher_needs_a_scripted_baseline(tmp_path, monkeypatch):
    from tests.training import toy_game

    monkeypatch.setattr(toy_game, "SPEC", dataclasses.replace(toy_game.SPEC, scripted_policy=None))
    with pytest.raises(ConfigError, match="teacher.coef needs a scripted baseline"):
        Trainer(tiny_config(tmp_path / "t", "teacher.coef=1.0"), log=False)


def test_a_resumed_run_with_a_teacher_that_draws_at_random_is_the_uninterrupted_run(tmp_path):
    """Exposed's scripted teacher breaks ties with its own generator: a checkpoint keeps its state."""
    options = [
        "teacher.coef=1.0",
        "teacher.share=1.0",
        "teacher.until=1.0",
        "total_steps=640",
        "ppo.rollout_steps=8",
    ]
    full = Trainer(tiny_config(tmp_path / "full", *options, game="exposed"), log=False)
    full.train()
    resumed = resume(tmp_path / "full" / "checkpoints" / "iter_00005.pt", run_dir=tmp_path / "r", log=False)
    resumed.train()
    assert resumed.iteration == full.iteration == 10
    for a, b in zip(full.backend.net.state_dict().values(), resumed.backend.net.state_dict().values()):
        assert torch.equal(a, b)
