"""The Gymnasium face plugs into sb3-contrib's MaskablePPO as it is."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envs

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_maskable_ppo_trains_a_few_thousand_steps(name):
    spec = envs.spec(name)
    env = gymnasium.make(spec.gym_id, **spec.benchmark_config)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=128,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [32]},
        device="cpu",
    )
    model.learn(total_timesteps=2048)
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]
    obs, reward, terminated, truncated, info = env.step(action)  # predict's 0-d array, as sb3 users pass it
    assert env.unwrapped.game.num_decisions >= 1 and not info.get("illegal_action", False)
    assert np.isfinite(model.logger.name_to_value.get("train/loss", 0.0))
