"""The RLlib pieces without a Ray cluster: the masking module (and its negative control through RLlib's
own EnvRunner), the env wrapper's rewards, the self-play mapping, the config translation."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402

from envs.core.errors import ConfigError, IllegalActionError  # noqa: E402
from tests.training import toy_game  # noqa: E402, F401 - so its name resolves
from training.config import NetConfig, load_config  # noqa: E402
from training.games import game_info, team_outcomes  # noqa: E402
from training.nets import MASKED_LOGIT, PolicyNet  # noqa: E402
from training.rllib.env import TabletopRLlibEnv  # noqa: E402
from training.rllib.module import (  # noqa: E402
    MaskedPolicyModule,
    RandomMaskedModule,
    ScriptedModule,
    module_weights,
    policy_weights,
)
from training.rllib.options import RLlibConfig  # noqa: E402
from training.rllib.selfplay import (  # noqa: E402
    MAIN,
    RANDOM,
    STATS_KEY,
    TEAMS_KEY,
    EpisodeTeams,
    SelfPlayCallback,
    SelfPlayMapping,
    game_spaces,
    main_module_spec,
)
from training.rllib.trainer import ppo_settings, rllib_options  # noqa: E402

TOY = "tests.training.toy_game:SPEC"
DEV = ("expressions", {"num_players": 2})  # the development game: cooperative, 300 actions
NET = NetConfig(hidden=[32], critic_hidden=[32])


def model_config(game, net=NET) -> dict:
    """What main's module is built from: the user's settings and the game's shape."""
    return {"net": net.__dict__, "shape": game_info(*game).net_shape.to_dict()}


def _module(game=DEV, net=NET, inference_only=False, cls=MaskedPolicyModule):
    obs_space, act_space = game_spaces(*game)
    spec = main_module_spec(net.__dict__, game_info(*game).net_shape.to_dict(), obs_space, act_space)
    spec.module_class = cls
    spec.inference_only = inference_only
    return spec.build()


def _batch(env_obs: list[dict]) -> dict:
    return {
        Columns.OBS: {
            "observation": torch.as_tensor(np.stack([o["observation"] for o in env_obs])),
            "action_mask": torch.as_tensor(np.stack([o["action_mask"] for o in env_obs])),
        }
    }


def _observations(n: int, seed: int = 0, game=DEV) -> list[dict]:
    """Observations of the player to move along random games (with their masks)."""
    env = TabletopRLlibEnv({"game": game[0], "game_config": game[1]})
    rng = np.random.default_rng(seed)
    out = []
    obs, _ = env.reset(seed=seed)
    while len(out) < n:
        ((agent, o),) = obs.items()
        out.append(o)
        obs, _, term, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if term["__all__"]:
            obs, _ = env.reset()
    return out


def test_module_is_a_policynet_and_masks_illegal_actions():
    torch.manual_seed(0)
    module = _module()
    info = game_info(*DEV)
    net = PolicyNet(info.net_shape, NET)
    # the native network itself under the prefix "net.": export is a copy
    assert list(policy_weights(module.state_dict())) == list(net.state_dict())
    assert list(module_weights(net.state_dict())) == list(module.state_dict())
    net.load_state_dict(policy_weights(module.state_dict()))
    obs = _observations(64)
    batch = _batch(obs)
    out = module.forward_exploration(batch)
    logits = out[Columns.ACTION_DIST_INPUTS]
    mask = batch[Columns.OBS]["action_mask"] > 0
    assert torch.all(logits[~mask] == MASKED_LOGIT)
    native_logits, native_values = net.evaluate_flat(batch[Columns.OBS]["observation"], mask)
    assert torch.allclose(logits, native_logits)
    assert torch.allclose(module.compute_values(batch), native_values)
    # sampling from RLlib's own distribution class never picks a masked action
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    for _ in range(20):
        actions = dist.sample()
        assert mask[torch.arange(len(actions)), actions].all()
    # the EnvRunner copy (inference-only) has no critic; its actor gives the same logits
    runner_copy = _module(inference_only=True)
    assert not any(k.startswith(("net.critic", "net.value_head")) for k in runner_copy.state_dict())
    runner_copy.set_state(module.get_state(inference_only=True))
    assert torch.allclose(runner_copy.forward_inference(batch)[Columns.ACTION_DIST_INPUTS], logits)


def test_shared_critic_drops_only_the_value_head():
    net = NetConfig(hidden=[16], critic="shared")
    full, light = _module(net=net), _module(net=net, inference_only=True)
    assert "net.value_head.weight" in full.state_dict() and "net.value_head.weight" not in light.state_dict()
    assert "net.trunk.0.weight" in light.state_dict()
    assert full.compute_values(_batch(_observations(5))).shape == (5,)


class UnmaskedModule(MaskedPolicyModule):
    """Negative control: the same network with the mask ignored (uniform-ish over all actions)."""

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]["observation"].float()
        return {Columns.ACTION_DIST_INPUTS: self.net.actor_head(self.net.trunk(obs))}


def _runner(module_class, game=DEV, seed=0):
    config = (
        PPOConfig()
        .environment(
            TabletopRLlibEnv, env_config={"game": game[0], "game_config": game[1]}, disable_env_checking=True
        )
        .env_runners(num_env_runners=0, num_envs_per_env_runner=2, rollout_fragment_length=100)
        .multi_agent(
            policies={MAIN}, policy_mapping_fn=lambda agent, episode, **kw: MAIN, policies_to_train=[MAIN]
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    MAIN: RLModuleSpec(module_class=module_class, model_config=model_config(game))
                }
            )
        )
        .debugging(seed=seed)
    )
    return MultiAgentEnvRunner(config=config)


def test_masking_negative_control_through_rllibs_env_runner():
    # masked: 400 decisions of Expressions (300 actions, most illegal at any time) sample cleanly
    episodes = _runner(MaskedPolicyModule).sample(num_timesteps=400, explore=True)
    assert sum(e.env_steps() for e in episodes) >= 400
    for episode in episodes:
        for agent in episode.agent_ids:
            sa = episode.agent_episodes[agent]
            actions, masks = sa.get_actions(), sa.get_observations()["action_mask"][:-1]
            assert all(masks[i][a] for i, a in enumerate(actions[: len(masks)]))
    # unmasked: the same network without the mask soon picks an illegal action; the env raises
    with pytest.raises(RuntimeError) as failure:
        _runner(UnmaskedModule).sample(num_timesteps=400, explore=True)
    cause = failure.value.__cause__
    assert isinstance(cause, IllegalActionError), repr(cause)
    assert "illegal" in str(cause)


def test_random_and_scripted_opponent_modules_choose_legal_actions():
    obs = _observations(40, game=(TOY, {}))
    batch = {Columns.OBS: {k: np.stack([o[k] for o in obs]) for k in ("observation", "action_mask")}}
    obs_space, act_space = game_spaces(TOY, {})
    rnd = RLModuleSpec(
        module_class=RandomMaskedModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config={"seed": 1},
    ).build()
    scr = RLModuleSpec(
        module_class=ScriptedModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config={"game": TOY, "game_config": {}},
    ).build()
    mask = batch[Columns.OBS]["action_mask"] > 0
    seen = set()
    for _ in range(10):
        a = rnd.forward_exploration(batch)[Columns.ACTIONS]
        assert mask[np.arange(len(a)), a].all()
        seen |= set(a.tolist())
    assert seen == {0, 1, 2}
    info = game_info(TOY, {})
    policy = info.scripted(0)
    a = scr.forward_exploration(batch)[Columns.ACTIONS]
    assert a.tolist() == [policy(o["observation"], o["action_mask"] > 0) for o in obs]
    assert not isinstance(rnd, torch.nn.Module)  # no parameters: learners give it no optimizer


def test_env_wrapper_pays_each_seat_its_rewards_since_its_last_decision():
    # toy Nim with stone_reward: the taker is paid 0.5 per stone when it moves; +-1 at the end
    env = TabletopRLlibEnv(
        {"game": TOY, "game_config": {"pile": 5, "stone_reward": 0.5}, "reward_scale": 2.0}
    )
    obs, _ = env.reset(seed=3)
    total = {a: 0.0 for a in env.possible_agents}
    last_info = {}
    done = False
    while not done:
        ((agent, o),) = [(a, v) for a, v in obs.items() if v["action_mask"].any()] or list(obs.items())
        obs, rew, term, trunc, infos = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
        for a, r in rew.items():
            total[a] += r
        done = term["__all__"]
        last_info = infos
    returns = env.game.returns()
    assert sorted(total) == ["player_0", "player_1"]
    for a in total:
        i = int(a.rsplit("_", 1)[1])
        assert total[a] == pytest.approx(2.0 * returns[i])  # every reward reaches its seat, scaled
        assert last_info[a]["returns"] == pytest.approx(list(returns))  # unscaled game returns at the end


class _Episode:
    """What the mapping reads of an episode: its id and its game's teams."""

    def __init__(self, id_, teams=(0, 1)):
        self.id_ = id_
        self.custom_data = {TEAMS_KEY: EpisodeTeams(teams=list(teams))}


def test_selfplay_mapping_draws_once_per_episode_by_the_table():
    mapping = SelfPlayMapping([(MAIN, 0.5), ("random", 0.3), ("snap_0", 0.2)])
    counts = {MAIN: 0, "random": 0, "snap_0": 0}
    main_seat = [0, 0]
    for i in range(3000):
        ep = _Episode(f"episode{i}")
        a, b = mapping("player_0", ep), mapping("player_1", ep)
        assert MAIN in (a, b)  # main always plays
        assert (a, b) == (mapping("player_0", ep), mapping("player_1", ep))  # stable within the episode
        other = b if a == MAIN else a
        counts[other] += 1
        if other != MAIN:
            main_seat[0 if a == MAIN else 1] += 1
    assert counts[MAIN] / 3000 == pytest.approx(0.5, abs=0.04)
    assert counts["random"] / 3000 == pytest.approx(0.3, abs=0.04)
    assert counts["snap_0"] / 3000 == pytest.approx(0.2, abs=0.04)
    assert abs(main_seat[0] - main_seat[1]) < 0.1 * sum(main_seat)  # main takes either seat
    # teams, read from each episode's game: an opponent plays every seat outside main's team
    teams = SelfPlayMapping([("scripted", 1.0)])
    sides = set()
    for i, dealt in enumerate([(0, 1, 0, 1), (1, 1, 0, 0), (7, 9, 9, 7)] * 4):
        ep = _Episode(f"t{i}", dealt)
        seats = [teams(f"player_{s}", ep) for s in range(4)]
        main_side = {dealt[s] for s in range(4) if seats[s] == MAIN}
        assert len(main_side) == 1 and seats.count(MAIN) == 2  # one whole side, as dealt
        assert {seats[s] for s in range(4) if dealt[s] not in main_side} == {"scripted"}
        sides |= main_side
    assert sides == {0, 1, 7, 9}  # main takes either side
    # cooperative: main in every seat whatever the table says
    coop = SelfPlayMapping([("random", 1.0)])
    ep = _Episode("c", (0, 0, 0))
    assert {coop(f"player_{s}", ep) for s in range(3)} == {MAIN}


class _RecordingCallback(SelfPlayCallback):
    """SelfPlayCallback, plus a record of each finished episode's game, read from its env directly."""

    games: dict = {}

    def on_episode_end(self, *, episode, env=None, env_index=0, **kwargs) -> None:
        super().on_episode_end(episode=episode, env=env, env_index=env_index, **kwargs)
        self.games[episode.id_] = env.envs[env_index].unwrapped.game.clone()


def test_artifacts_episodes_seat_main_and_its_opponent_on_the_dealt_sides():
    # Artifacts at 7 players deals 4 Academics (side 0) and 3 Looters (side 1) secretly, not in the role
    # chart's order [0, 0, 0, 0, 1, 1, 1]: every episode must seat main on exactly one dealt side and
    # the opponent on the other, and score main by the dealt sides. Games are cut at 60 decisions.
    game = ("artifacts", {"num_players": 7, "max_decisions": 60})
    config = (
        PPOConfig()
        .environment(
            TabletopRLlibEnv, env_config={"game": game[0], "game_config": game[1]}, disable_env_checking=True
        )
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .multi_agent(
            policies={MAIN, RANDOM},
            policy_mapping_fn=SelfPlayMapping([(RANDOM, 1.0)]),
            policies_to_train=[MAIN],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    MAIN: RLModuleSpec(module_class=MaskedPolicyModule, model_config=model_config(game)),
                    RANDOM: RLModuleSpec(module_class=RandomMaskedModule),
                }
            )
        )
        .callbacks(_RecordingCallback)
        .debugging(seed=0)
    )
    runner = MultiAgentEnvRunner(config=config)
    _RecordingCallback.games.clear()
    # RLlib's random episode ids seed the opponent draws, so which games end before the cut varies
    # between runs; about 60% of the games are cut, so "some cut, some ended" (below) fails in about
    # 0.03% of runs with 16 games (2% with 8)
    episodes = runner.sample(num_episodes=16, explore=True)
    assert len(episodes) == 16
    deals, scores, both, cut = set(), [], 0, 0
    for episode in episodes:
        played = _RecordingCallback.games[episode.id_]
        dealt = played.teams()
        assert sorted(dealt) == [0, 0, 0, 0, 1, 1, 1]
        deals.add(tuple(dealt))
        # (a seat that never decided before a quick end has no agent episode)
        modules = {int(a.rsplit("_", 1)[1]): episode.module_for(a) for a in episode.agent_ids}
        main_sides = {dealt[s] for s, m in modules.items() if m == MAIN}
        random_sides = {dealt[s] for s, m in modules.items() if m == RANDOM}
        assert set(modules.values()) <= {MAIN, RANDOM}
        assert len(main_sides) <= 1 and len(random_sides) <= 1 and not main_sides & random_sides, (
            dealt,
            modules,
        )
        both += len(main_sides) == len(random_sides) == 1
        assert played.is_truncated() or played.is_terminal()
        (end,) = {str(i) for i in episode.get_infos(-1).values()}  # every agent gets the same end info
        assert f"'truncated': {played.is_truncated()}" in end
        # what RLlib's PPO reads to bootstrap: a cut game is truncated, never terminal, for every agent
        flags = {(sa.is_terminated, sa.is_truncated) for sa in episode.agent_episodes.values()}
        assert flags == {(not played.is_truncated(), played.is_truncated())}
        # main's side as drawn for the episode (also where it ended before main's seats decided)
        _, side = episode.agent_to_module_mapping_fn.main_team(episode, dealt)
        assert main_sides <= {side} and not random_sides & {side}
        if played.is_truncated():
            assert episode.is_truncated and not episode.is_terminated
            scores.append(0.5)  # a draw between the two sides
            cut += 1
        else:  # scored by the dealt sides
            scores.append(team_outcomes(np.asarray(played.returns()), dealt)[side])
    assert len(deals) > 1 and both >= 4  # sides vary from deal to deal
    assert 0 < cut < len(scores)  # some games were cut, some ended
    stats = {k: float(v) for k, v in runner.get_metrics()[STATS_KEY][RANDOM].items()}
    assert (stats["games"], stats["score"]) == (len(episodes), pytest.approx(sum(scores))), (stats, scores)
    assert stats["truncated"] == cut


def test_config_translation_and_clear_errors(tmp_path):
    config = load_config(
        None,
        [
            f"game={TOY}",
            "ppo.num_envs=30",
            "ppo.rollout_steps=10",
            "ppo.minibatches=3",
            "total_steps=1000",
            "opponents.self_play=0.5",
            "opponents.random=0.5",
        ],
    )
    info = game_info(TOY, {})
    s = ppo_settings(config, info, RLlibConfig(num_env_runners=4))
    assert s["env_runners"]["num_envs_per_env_runner"] == 8  # 30 games over 4 runners, rounded up
    # main makes an expected 3/4 of the moves (self-play in half the games): 14 env steps per game give
    # it the native iteration's 10 decisions per game, 300 in all (3/4 of 420), in 3 minibatches
    assert s["env_runners"]["rollout_fragment_length"] == 14
    assert s["training"]["train_batch_size_per_learner"] == 420
    assert s["training"]["minibatch_size"] == 105
    # lr anneals to 0 over the env-step clock: main makes ~3/4 of the decisions here
    assert s["training"]["lr"] == [[0, config.ppo.lr], [1333, 0.0]]
    assert s["training"]["vf_clip_param"] == float("inf") and s["training"]["use_kl_loss"] is False
    # the same value loss: RLlib's is the squared error, the native one half of it
    assert s["training"]["vf_loss_coeff"] == config.ppo.vf_coef / 2
    from training.rllib.trainer import RLlibRun

    # every network and training option of the native trainer builds a run (Ray starts only in train())
    for good in (
        "net.kind=gru",
        "net.critic=central",
        "net.normalize_obs=true",
        "net.direct=true",
        "net.aux_state=1.0",
        "teacher.coef=1.0",
        "game=artifacts net.seats=true",  # a game with seat blocks
        "game=exposaurus net.kind=layout net.cells=true net.cell_keys=8",  # cell heads with keys
    ):
        RLlibRun(load_config(None, [f"game={TOY}", *good.split()]), tmp_path / "x", overwrite=True)
    # what RLlib itself cannot do is refused, with the reason
    for bad, word in (
        ("net.normalize_obs=true rllib.num_learners=2", "each learner would keep its own running statistics"),
        ("device=mps", "RLlib's learners run on CUDA GPUs or the CPU"),
    ):
        cfg = load_config(None, [f"game={TOY}", *bad.split()])
        with pytest.raises(ConfigError, match=word):
            RLlibRun(cfg, tmp_path / "x")
    with pytest.raises(ConfigError, match="num_env_runners"):
        rllib_options(config, {"num_env_runners": -1})
    # a misspelt option is not silently ignored: the backend checks its options as the config its keys
    with pytest.raises(ConfigError, match="unknown config key 'rllib.num_env_runner'"):
        rllib_options(config, {"num_env_runner": 2})
    with pytest.raises(ConfigError, match="rllib.num_cpus must be an integer"):
        rllib_options(config, {"num_cpus": "many"})
    # the config's own rllib section (the command line's rllib.<name>=...), explicit options on top
    config.rllib = {"num_env_runners": 3, "num_cpus": 2}
    assert (rllib_options(config).num_env_runners, rllib_options(config).num_cpus) == (3, 2)
    assert rllib_options(config, {"num_cpus": 4}).num_cpus == 4


def test_cli_backend_option_errors_are_one_line(tmp_path, capsys):
    from training.cli import main

    args = ["train", f"game={TOY}", f"run_dir={tmp_path / 'r'}", "backend=rllib", "progress=false"]
    assert main([*args, "rllib.num_env_runner=2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "unknown config key 'rllib.num_env_runner'" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r").exists()  # refused before anything was written


def test_cli_names_every_option_the_backend_lacks_at_once(tmp_path, capsys):
    from training.cli import main

    args = ["train", "artifacts", "backend=rllib", f"run_dir={tmp_path / 'r'}", "progress=false"]
    assert main([*args, "net.normalize_obs=true", "rllib.num_learners=2", "device=mps"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(
        "error: backend=rllib does not support net.normalize_obs=true with rllib.num_learners=2"
    )
    assert (
        "; device=mps (RLlib's learners run on CUDA GPUs or the CPU): change them or train with backend=native"
        in err
    )
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_overwriting_a_run_directory_keeps_a_persons_other_files(tmp_path):
    # the run lifecycle's one policy: a fresh run over an old one removes only the run's own files
    from training.rllib.trainer import RLlibRun
    from training.run import RUN_FILES

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "latest.pt").write_bytes(b"old")
    (run_dir / "rllib_checkpoint").mkdir()
    (run_dir / "eval.json").write_text("[]")
    (run_dir / "notes.md").write_text("my notes")
    config = load_config(None, [f"game={TOY}", f"run_dir={run_dir}", "progress=false"])
    with pytest.raises(FileExistsError, match="pick another run_dir"):
        RLlibRun(config)
    assert (run_dir / "checkpoints" / "latest.pt").exists()
    RLlibRun(config, overwrite=True)  # Ray starts only in train()
    assert [p.name for p in run_dir.iterdir()] == ["notes.md"]
    assert "rllib_checkpoint" in RUN_FILES


def test_league_turns_lifetime_outcome_sums_into_pfsp_records():
    from training.rllib.selfplay import SnapshotLeague

    config = load_config(
        None,
        [
            f"game={TOY}",
            "opponents.self_play=0.5",
            "opponents.random=0.25",
            "opponents.snapshot=0.25",
            "opponents.pool_size=1",
            "net.hidden=[8]",
        ],
    )
    info = game_info(TOY, {})
    league = SnapshotLeague(config, info)
    assert league.fixed_modules() == ["random"] and [m for m, _ in league.table()] == [MAIN, "random"]
    net = PolicyNet(info.net_shape, config.net)
    league.slots["snap_0"] = league.pool.add_snapshot(net)[1]
    first = {
        "selfplay": {
            "random": {"games": 10.0, "score": 7.0, "return": 4.0},
            "snap_0": {"games": 4.0, "score": 1.0, "return": -2.0},
        }
    }
    assert league.record(first) == {"random": (10, 7.0, 4.0), "snapshot": (4, 1.0, -2.0)}
    # RLlib reports lifetime sums: the next iteration counts only the new games
    second = {
        "selfplay": {
            "random": {"games": 15.0, "score": 9.0, "return": 5.0},
            "snap_0": {"games": 4.0, "score": 1.0, "return": -2.0},
        }
    }
    assert league.record(second) == {"random": (5, 2.0, 1.0)}
    assert league.pool.stats["random"].rate < 0.75  # 9 of 15 with the prior and decay
    # a new snapshot evicts the old one (pool_size=1) and reuses its module; PFSP favours the hard one
    league.slots["snap_0"] = league.pool.add_snapshot(net)[1]
    table = dict(league.table())
    assert set(table) == {MAIN, "random", "snap_0"} and sum(table.values()) == pytest.approx(1.0)
    third = {"selfplay": {"snap_0": {"games": 6.0, "score": 1.0, "return": 0.0}}}
    assert league.record(third) == {"snapshot": (2, 0.0, 2.0)}
    assert ("snap", league.slots["snap_0"]) in league.pool.stats
