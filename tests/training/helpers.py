"""Small configurations shared by the training tests (tiny networks, a few thousand decisions)."""

from __future__ import annotations

from training.config import load_config

TOY = "tests.training.toy_game:SPEC"


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
