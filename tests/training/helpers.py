"""Small configurations shared by the training tests (tiny networks, a few thousand decisions)."""

from __future__ import annotations

import copy

import numpy as np
import torch

from envs.core.workers import split, stream
from training.actors import NetActor
from training.config import NetConfig, load_config
from training.expert import Lessons, play_round
from training.games import game_info
from training.nets import PolicyNet
from training.runner import Runner

from . import toy_game  # noqa: F401 - imported, so that TOY resolves (names never import code)

TOY = "tests.training.toy_game:SPEC"


# every kind of opponent, snapshots early: the mix the whole-run tests train against
OPPONENT_MIX = [
    "opponents.self_play=0.4",
    "opponents.snapshot=0.2",
    "opponents.scripted=0.2",
    "opponents.random=0.2",
    "opponents.snapshot_every=2",
    "total_steps=1200",
]

# a run with a short warm start (the toy game's scripted player cloned), then a few PPO iterations
CLONED = ["total_steps=300", "pretrain.games=60", "pretrain.epochs=3", "eval.games=40"]


def tiny_config(run_dir, *overrides, game: str = TOY, **kw):
    base = [
        f"game={game}",
        f"run_dir={run_dir}",
        "total_steps=2000",
        "ppo.num_envs=8",
        "ppo.rollout_steps=16",
        "eval.every=0",
        "eval.games=20",
        "checkpoint_every=5",
        "progress=false",
        "net.hidden=[32]",
        "net.critic_hidden=[32]",
        "net.gru_size=16",
    ]
    return load_config(None, base + list(overrides))


@torch.no_grad()
def batch_log_probs(net, batch) -> tuple[torch.Tensor, np.ndarray]:
    """Log-probabilities of the actions at the batch's rows under `net`, as the update computes them
    (a GRU re-runs each seat's chain from its stored hidden state), and the rows they belong to: every
    row of a chain for a GRU, the trainable rows otherwise."""
    state = batch.state if net.uses_state else None
    if net.recurrent:
        layout = batch.layout
        safe = np.where(layout >= 0, layout, 0)
        logits, _ = net.sequence(
            torch.from_numpy(batch.obs[safe]),
            torch.from_numpy(batch.mask[safe]),
            torch.from_numpy(batch.start[safe]),
            torch.from_numpy(batch.hbefore[safe[0]]),
            torch.from_numpy(state[safe]) if state is not None else None,
        )
        valid = layout >= 0
        return torch.log_softmax(logits, -1)[torch.from_numpy(valid)], layout[valid]
    rows = np.flatnonzero(batch.trainable)
    logits, _ = net.evaluate_flat(
        torch.from_numpy(batch.obs[rows]),
        torch.from_numpy(batch.mask[rows]),
        torch.from_numpy(state[rows]) if state is not None else None,
    )
    return torch.log_softmax(logits, -1), rows


def toy_rollout(net_config: NetConfig):
    """(info, net, batch): a fresh network (torch seed 0) of `net_config` playing both seats of 8
    two-player Nim games for 16 steps each, every decision recorded."""
    info = game_info(TOY, {})
    torch.manual_seed(0)
    net = PolicyNet(info.net_shape, net_config)
    runner = Runner(
        info,
        8,
        np.random.default_rng(0),
        {"learner": NetActor(net)},
        lambda s, r, g: (["learner"] * 2, None),
        record=True,
        capacity=8 * 16,
    )
    return info, net, runner.collect(16, 1.0, 0.95)


def ship_reference(run, folder, monkeypatch, version: int = 1):
    """Freeze `run` as a reference agent in `folder` and make it the only one shipped (for this test)."""
    from training import references
    from training.references.freeze import freeze

    entry = freeze(run, version, minutes=0.1, folder=folder)
    monkeypatch.setattr(references, "FOLDER", folder)
    monkeypatch.setattr(references, "shipped", lambda: (references.Reference(**entry),))
    return entry


class RoundSpy:
    """Wraps a Teacher's `play`: keeps a copy of each policy a round was played with (before the
    distillation moves its weights) and the workers it was played on, then plays the round."""

    def __init__(self, teacher):
        self._play = teacher.play
        self.calls: list = []
        teacher.play = self

    def __call__(self, policy, workers=None):
        self.calls.append((copy.deepcopy(policy), workers))
        return self._play(policy, workers)


def round_in_shares(info, policy, cfg, reward_scale: float, seed, count: int) -> Lessons:
    """A round of `cfg.games` played here share by share, as `count` workers play it: worker w's share
    of the games from stream (seed, count, w)."""
    with torch.no_grad():
        parts = [
            play_round(info, policy, cfg, reward_scale, len(share), stream(seed, count, w), uses_state=False)
            for w, share in enumerate(split(cfg.games, count))
        ]
    return Lessons.join(parts)


def assert_same_lessons(a: Lessons, b: Lessons) -> None:
    assert len(a) == len(b) > 0
    np.testing.assert_array_equal(a.obs[:], b.obs[:])
    for name in ("mask", "target", "returns", "seat", "game", "searched_result"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
