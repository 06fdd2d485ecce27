"""RLlib trains the native networks: the module is the native PolicyNet for every network kind, the
columns training reads beside each decision come from the episodes, and a recurrent state is carried
across the chunks RLlib cuts a turn-based game into. (No Ray cluster: RLlib's EnvRunner in process.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch  # noqa: E402
from ray.rllib.connectors.learner import AddOneTsToEpisodesAndTruncate  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402

from tests.training import toy_game  # noqa: E402, F401 - so its name resolves
from training.config import load_config  # noqa: E402
from training.rllib.columns import TEACHER, TrainingColumns  # noqa: E402
from training.rllib.env import STATE_INFO, TabletopRLlibEnv  # noqa: E402
from training.rllib.module import AUX_OUT, AUX_TARGET, H_IN, HIDDEN, STATE  # noqa: E402
from training.rllib.recurrent import RecurrentStateIn  # noqa: E402
from training.rllib.selfplay import MAIN, SnapshotLeague, game_spaces  # noqa: E402
from training.rllib.trainer import tabletop_ppo_config_class  # noqa: E402
from training.run import run_game  # noqa: E402

TOY = "tests.training.toy_game:SPEC"
SMALL = ["net.hidden=[32]", "net.critic_hidden=[32]", "net.embed=8", "net.conv_channels=4"]


def _league(path, *overrides):
    config = load_config(path, list(overrides))
    info = run_game(config)  # binds the network to the game, as a run does
    return config, info, SnapshotLeague(config, info)


def _module(league, config, info, inference_only=False):
    spec = league.module_spec(*game_spaces(config.game, info.game_config))
    spec.inference_only = inference_only
    return spec.build()


def _decisions(config, info, n: int, seed: int = 0):
    """(observation batch, state tensor) of the players to move along random games."""
    env = TabletopRLlibEnv({"game": config.game, "game_config": info.game_config, "with_state": True})
    rng = np.random.default_rng(seed)
    rows, states = [], []
    obs, infos = env.reset(seed=seed)
    while len(rows) < n:
        ((agent, o),) = obs.items()
        rows.append(o)
        states.append(infos[agent][STATE_INFO])
        obs, _, term, trunc, infos = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if term["__all__"] or trunc["__all__"]:
            obs, infos = env.reset()
    batch = {
        Columns.OBS: {
            "observation": torch.as_tensor(np.stack([r["observation"] for r in rows])),
            "action_mask": torch.as_tensor(np.stack([r["action_mask"] for r in rows])),
        }
    }
    return batch, torch.as_tensor(np.stack(states))


FEED_FORWARD = {
    # the shipped configs that RLlib refused before: cell heads with keys, seat heads and a central
    # critic; then every other option on top of Artifacts' network
    "exposaurus default": ("configs/exposaurus.yaml", ()),
    "artifacts default": ("configs/artifacts.yaml", ()),
    "artifacts aux direct normalize": (
        "configs/artifacts.yaml",
        ("net.aux_state=1.0", "net.direct=true", "net.normalize_obs=true"),
    ),
    "exposaurus layout shared critic": ("configs/exposaurus.yaml", ("net.critic=shared",)),
}


@pytest.mark.parametrize("name", list(FEED_FORWARD))
def test_the_module_is_the_native_network(name):
    path, extra = FEED_FORWARD[name]
    config, info, league = _league(path, *SMALL, *extra)
    torch.manual_seed(0)
    module = _module(league, config, info)
    net = league.policy_net(module.get_state())  # the weights, read back as a native network
    if net.obs_norm is not None:  # statistics that are not the identity
        net.obs_norm.update(np.random.default_rng(0).random((50, info.obs_dim)) * 3)
        module.net.obs_norm.load_state_dict(net.obs_norm.state_dict())
    batch, state = _decisions(config, info, 48)
    central = config.net.critic == "central"
    if central:
        batch[STATE] = state
    obs, mask = batch[Columns.OBS]["observation"], batch[Columns.OBS]["action_mask"] > 0
    aux = net.aux_head is not None
    native = net.evaluate_flat(obs, mask, state if central else None, aux)
    out = module.forward_train(batch)
    assert torch.allclose(out[Columns.ACTION_DIST_INPUTS], native[0], atol=1e-5)
    assert torch.allclose(module.compute_values(batch), native[1], atol=1e-5)
    if aux:
        assert torch.allclose(out[AUX_OUT], native[2], atol=1e-5)
    # the EnvRunner's copy acts from the observation alone: no critic, no auxiliary head, same logits
    runner = _module(league, config, info, inference_only=True)
    runner.set_state(module.get_state(inference_only=True))
    kept = {key.split(".")[1] for key in runner.state_dict()}
    assert not kept & {"critic", "value_head", "aux_head"}, kept
    acting = runner.forward_exploration({Columns.OBS: batch[Columns.OBS]})[Columns.ACTION_DIST_INPUTS]
    assert torch.allclose(acting, native[0], atol=1e-5)
    # the central critic reads the state: another state, other values
    if central:
        other = dict(batch, **{STATE: torch.roll(state, 1, 0)})
        assert not torch.allclose(module.compute_values(other), native[1])


def test_a_recurrent_module_is_the_native_gru():
    config, info, league = _league(None, f"game={TOY}", "net.kind=gru", "net.gru_size=16", *SMALL)
    torch.manual_seed(0)
    module = _module(league, config, info)
    net = league.policy_net(module.get_state())
    batch, _ = _decisions(config, info, 24)
    obs, mask = batch[Columns.OBS]["observation"], batch[Columns.OBS]["action_mask"] > 0
    h0 = torch.randn(4, 16)
    # training: [B, T] sequences from STATE_IN, as native sequences [T, B] from h0
    seq = {
        Columns.OBS: {k: v.reshape(4, 6, -1) for k, v in batch[Columns.OBS].items()},
        Columns.STATE_IN: {HIDDEN: h0},
    }
    starts = torch.zeros(6, 4, dtype=torch.bool)
    logits, values = net.sequence(
        obs.reshape(4, 6, -1).transpose(0, 1), mask.reshape(4, 6, -1).transpose(0, 1), starts, h0
    )
    out = module.forward_train(seq)
    assert torch.allclose(out[Columns.ACTION_DIST_INPUTS], logits.transpose(0, 1), atol=1e-5)
    assert torch.allclose(module.compute_values(seq), values.transpose(0, 1), atol=1e-5)
    # acting: one step with a time axis of one; the state it started from is recorded beside the new one
    step = {
        Columns.OBS: {k: v[:4, None] for k, v in batch[Columns.OBS].items()},
        Columns.STATE_IN: {HIDDEN: h0},
    }
    acted = module.forward_exploration(step)
    native_logits, _, native_h = net.step(obs[:4], mask[:4], h0, need_value=False)
    assert torch.allclose(acted[Columns.ACTION_DIST_INPUTS][:, 0], native_logits, atol=1e-5)
    assert torch.allclose(acted[Columns.STATE_OUT][HIDDEN], native_h, atol=1e-5)
    assert torch.equal(acted[H_IN][:, 0], h0)


def _runner(config, info, league, num_envs=2, fragment=16, with_state=True, seed=0):
    """RLlib's own EnvRunner (in this process) with main in every seat."""
    algo_config = (
        tabletop_ppo_config_class()()
        .environment(
            TabletopRLlibEnv,
            env_config={"game": config.game, "game_config": info.game_config, "with_state": with_state},
            disable_env_checking=True,
        )
        .env_runners(num_env_runners=0, num_envs_per_env_runner=num_envs, rollout_fragment_length=fragment)
        .multi_agent(
            policies={MAIN}, policy_mapping_fn=lambda agent, episode, **kw: MAIN, policies_to_train=[MAIN]
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: league.module_spec()}))
        .debugging(seed=seed)
    )
    return MultiAgentEnvRunner(config=algo_config)


def test_the_columns_training_reads_come_from_the_episodes():
    config, info, league = _league(
        None, f"game={TOY}", "game_config.num_players=3", "net.critic=central", "net.aux_state=1.0", *SMALL
    )
    runner = _runner(config, info, league)
    episodes = runner.sample(num_timesteps=60, explore=True)
    AddOneTsToEpisodesAndTruncate()(
        rl_module=runner.module, batch={}, episodes=episodes, shared_data={}
    )  # as PPO does
    columns = TrainingColumns(
        game=config.game, game_config=info.game_config, state=True, aux_target=True, teacher_share=1.0
    )
    batch = columns(rl_module=runner.module, batch={}, episodes=episodes)
    teacher = info.scripted(0)
    checked = 0
    for episode in episodes:
        for agent, sa in episode.agent_episodes.items():
            key = (episode.id_, agent, MAIN)
            n = len(sa)
            states = np.stack([i[STATE_INFO] for i in sa.get_infos(slice(0, n))])
            assert np.array_equal(np.stack(batch[STATE][key]), states)
            seat = int(agent.rsplit("_", 1)[-1])
            assert np.array_equal(
                np.stack(batch[AUX_TARGET][key]), info.state_seen_by(states, np.full(n, seat))
            )
            labels = batch[TEACHER][key]
            observations = sa.get_observations(slice(0, n))
            for t in range(n - 1):  # every decision labelled by the baseline, never the bootstrap step
                o, m = observations["observation"][t], observations["action_mask"][t] > 0
                assert labels[t] == teacher(o, m)
            assert labels[n - 1] == -1
            checked += n
    assert checked >= 60
    # the state comes from the env's infos: an env that does not leave it there is named
    runner = _runner(config, info, league, with_state=False)
    episodes = runner.sample(num_timesteps=10, explore=True)
    with pytest.raises(ValueError, match="with_state"):
        columns(rl_module=runner.module, batch={}, episodes=episodes)


def test_a_recurrent_state_is_carried_across_the_chunks_of_a_game():
    # 3 seats in turn, chunks of 4 env steps: at every cut, two of the three agents last acted 2 and 3
    # env steps back, beyond the one env step RLlib keeps in a continuing chunk's lookback, where
    # RLlib's own learner piece fails (on 34 of 54 chunks here, measured)
    config, info, league = _league(
        None,
        f"game={TOY}",
        "game_config.num_players=3",
        "game_config.pile=30",
        "net.kind=gru",
        "net.gru_size=8",
        *SMALL,
    )
    runner = _runner(config, info, league, num_envs=1, fragment=4)
    last: dict = {}  # (game, agent) -> its latest STATE_OUT so far
    carried = 0
    for _ in range(40):
        episodes = runner.sample(num_timesteps=4, explore=True)
        for episode in episodes:
            for agent, sa in episode.agent_episodes.items():
                if len(sa) == 0:
                    continue
                h_in = np.asarray(sa.get_extra_model_outputs(key=H_IN, indices=0))
                before = last.get((episode.id_, agent))
                if before is None:  # the agent's first decision of the game starts from zero
                    assert sa.t_started == 0 and not h_in.any()
                else:
                    np.testing.assert_allclose(h_in, before, atol=1e-6)
                    carried += 1
                outs = sa.get_extra_model_outputs(key=Columns.STATE_OUT)
                last[(episode.id_, agent)] = np.asarray(
                    outs[HIDDEN][-1] if isinstance(outs, dict) else outs[-1][HIDDEN]
                )
            # the learner's training sequences start from the state the first decision had
            AddOneTsToEpisodesAndTruncate()(
                rl_module=runner.module, batch={}, episodes=[episode], shared_data={}
            )
            batch = RecurrentStateIn()(rl_module=runner.module, batch={}, episodes=[episode])
            for key, (starts,) in batch.get(Columns.STATE_IN, {}).items():  # (one batched item)
                sa = episode.agent_episodes[key[1]]
                first = np.asarray(sa.get_extra_model_outputs(key=H_IN, indices=0))
                np.testing.assert_allclose(starts[HIDDEN][0], first, atol=1e-6)
    assert carried >= 20


@pytest.mark.parametrize("normalize", [True, False])
def test_the_learner_standardizes_each_minibatchs_advantages_as_the_native_update(monkeypatch, normalize):
    """RLlib standardizes advantages once over the whole batch; with ppo.normalize_advantages our
    learner standardizes each minibatch's own (over its unpadded rows), as training.ppo does."""
    from types import SimpleNamespace

    from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
    from ray.rllib.evaluation.postprocessing import Postprocessing

    from training.rllib.learner import MINIBATCH_ADVANTAGES, TabletopPPOLearner

    seen = {}

    def rllib_loss(self, *, module_id, config, batch, fwd_out):
        seen["advantages"] = batch[Postprocessing.ADVANTAGES].clone()
        return torch.zeros(())

    monkeypatch.setattr(PPOTorchLearner, "compute_loss_for_module", rllib_loss)
    learner = object.__new__(TabletopPPOLearner)
    learner.config = SimpleNamespace(learner_config_dict={MINIBATCH_ADVANTAGES: normalize})
    advantages = torch.tensor([1.0, 2.0, 6.0, 100.0])  # the last row is padding
    batch = {
        Postprocessing.ADVANTAGES: advantages,
        Columns.LOSS_MASK: torch.tensor([True, True, True, False]),
    }
    learner.compute_loss_for_module(
        module_id=MAIN, config=None, batch=batch, fwd_out={Columns.ACTION_DIST_INPUTS: torch.zeros(4, 3)}
    )
    got = seen["advantages"]
    if not normalize:
        assert torch.equal(got, advantages)
        return
    real = got[:3]
    assert abs(real.mean().item()) < 1e-6 and abs(real.std(unbiased=False).item() - 1) < 1e-4
    assert torch.allclose(real, (advantages[:3] - 3.0) / advantages[:3].std(unbiased=False), atol=1e-4)
