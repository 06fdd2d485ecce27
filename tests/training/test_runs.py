"""Whole runs: smoke runs per game, checkpoints, resume, determinism, clear errors, learning."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import envs
from envs.core.errors import ConfigError
from training import checkpoint as ckpt
from training.cli import main
from training.config import load_config
from training.evaluate import match
from training.games import game_info
from training.nets import PolicyNet
from training.trainer import Trainer, resume

from .helpers import CLONED, OPPONENT_MIX, TOY, tiny_config


def _weights(trainer):
    return [p.detach().clone() for p in trainer.backend.net.state_dict().values()]


def _same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_smoke_run_per_registered_game(name, tmp_path):
    spec = envs.spec(name)
    config = tiny_config(
        tmp_path / name,
        "total_steps=256",
        "ppo.num_envs=4",
        "ppo.rollout_steps=32",
        "ppo.epochs=1",
        "opponents.self_play=0.5",
        "opponents.random=0.25",
        "opponents.scripted=0.25",
        "eval.games=4",
        "eval.opponents=[random]",
        game=name,
    )
    config.game_config = dict(spec.benchmark_config)
    summary = Trainer(config, log=False).train()
    assert summary["decisions"] >= 256
    assert (tmp_path / name / "checkpoints" / "final.pt").exists()
    result = json.loads((tmp_path / name / "eval.json").read_text())[-1]
    assert any(isinstance(v, dict) and v["games"] == 4 for v in result.values())


def test_run_directory_and_same_seed_same_result(tmp_path):
    full = Trainer(tiny_config(tmp_path / "full", *OPPONENT_MIX, "eval.every=4"), log=True)
    full.train()
    run = tmp_path / "full"
    for part in (
        "config.yaml",
        "eval.json",
        "curve.png",
        "summary.json",
        "checkpoints/final.pt",
        "checkpoints/iter_00005.pt",
    ):
        assert (run / part).exists(), part
    assert any((run / "tb").iterdir())
    history = json.loads((run / "eval.json").read_text())
    assert len(history) >= 2 and {"random", "scripted"} <= set(history[-1])
    assert history[0]["decisions"] == 0 and history[0]["iteration"] == 0  # the curve starts at step 0
    # same config and seed -> the same network; another seed -> another network
    again = Trainer(tiny_config(tmp_path / "again", *OPPONENT_MIX, "eval.every=4"), log=False)
    again.train()
    assert _same(_weights(full), _weights(again))
    other = Trainer(tiny_config(tmp_path / "other", *OPPONENT_MIX, "seed=1"), log=False)
    other.train()
    assert not _same(_weights(full), _weights(other))


@pytest.mark.parametrize(
    "options",
    [
        ["net.kind=mlp", "net.critic=separate"],
        ["net.kind=gru", "net.critic=shared", "game_config.num_players=4", "game_config.teams=true"],
        ["net.kind=mlp", "net.critic=central", "game_config.num_players=3", "game_config.cooperative=true"],
        ["net.kind=gru", "net.critic=central", "net.normalize_obs=true", "game_config.stone_reward=0.1"],
        # games cut at their length limit: the bootstrap values travel through the resume too
        ["net.kind=gru", "net.critic=central", "game_config.max_decisions=5", "game_config.stone_reward=0.1"],
    ],
)
def test_resume_equals_uninterrupted_run(options, tmp_path):
    full = Trainer(tiny_config(tmp_path / "full", *OPPONENT_MIX, *options), log=False)
    full.train()
    resumed = resume(
        tmp_path / "full" / "checkpoints" / "iter_00005.pt", run_dir=tmp_path / "resumed", log=False
    )
    assert resumed.iteration == 5
    resumed.train()
    assert resumed.iteration == full.iteration
    assert resumed.backend.runner.decisions == full.backend.runner.decisions
    assert _same(_weights(full), _weights(resumed))


def test_checkpoint_round_trip_keeps_the_policy(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "run", "total_steps=300"), log=False)
    trainer.train()
    data = ckpt.read_checkpoint(tmp_path / "run")  # a run directory means its latest checkpoint
    net = ckpt.build_net(data)
    assert _same(_weights(trainer), [p for p in net.state_dict().values()])
    info = game_info(TOY, {})
    a = match(info, trainer.backend.net, "random", 50, seed=3)
    b = match(info, net, "random", 50, seed=3)
    assert a == b


def test_keep_checkpoints_keeps_the_newest_numbered_ones_and_the_run_resumes(tmp_path):
    run = tmp_path / "run"
    kept = Trainer(
        tiny_config(run, "total_steps=1000", "checkpoint_every=1", "keep_checkpoints=2"), log=False
    )
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "iter_notes.pt").write_bytes(b"")  # not a numbered checkpoint: left alone
    kept.train()
    names = sorted(p.name for p in (run / "checkpoints").iterdir())
    last = kept.iteration - 1  # (the final iteration writes final.pt, not a numbered one)
    assert names == sorted(
        ["final.pt", "latest.pt", "iter_notes.pt", f"iter_{last - 1:05d}.pt", f"iter_{last:05d}.pt"]
    )
    everything = Trainer(tiny_config(tmp_path / "all", "total_steps=1000", "checkpoint_every=1"), log=False)
    everything.train()
    assert len(list((tmp_path / "all" / "checkpoints").glob("iter_*.pt"))) == last  # the default keeps all
    assert _same(_weights(kept), _weights(everything))  # pruning changes no result
    longer = resume(run, {"total_steps": 1300}, log=False)
    longer.train()
    assert longer.decisions >= 1300


def test_corrupt_and_mismatched_checkpoints_give_clear_errors(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "run", "total_steps=200"), log=False)
    trainer.train()
    good = tmp_path / "run" / "checkpoints" / "final.pt"
    raw = good.read_bytes()

    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ckpt.CheckpointError, match="truncated.pt' is damaged or truncated"):
        ckpt.read_checkpoint(truncated)

    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"\x00not a checkpoint" * 100)
    with pytest.raises(ckpt.CheckpointError, match="garbage.pt' is not a checkpoint"):
        ckpt.read_checkpoint(garbage)

    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(ckpt.CheckpointError, match="not a training checkpoint"):
        ckpt.read_checkpoint(foreign)

    with pytest.raises(ckpt.CheckpointError, match="no checkpoint at"):
        ckpt.read_checkpoint(tmp_path / "missing.pt")

    # another game configuration: 4 players instead of 2
    data = ckpt.read_checkpoint(good)
    info4 = game_info(TOY, {"num_players": 4, "teams": True})
    with pytest.raises(ckpt.CheckpointError, match="num_players 2 vs 4") as refused:
        ckpt.check_compatible(data, info4, TOY)
    assert "predates" not in str(refused.value)
    # the same game, players and actions but another observation size: written before the game's
    # observation changed (as Exposed's did when it gained its item_choice pieces)
    older = {**data, "obs_dim": data["obs_dim"] - 7}
    info = game_info(TOY, {})
    with pytest.raises(
        ckpt.CheckpointError, match=f"obs_dim {info.obs_dim - 7} vs {info.obs_dim}"
    ) as refused:
        ckpt.check_compatible(older, info, TOY)
    assert f"predates a change of {TOY}'s observation" in str(refused.value)
    # a resume whose config names another network
    config = tiny_config(tmp_path / "other", "net.hidden=[64, 64]")
    with pytest.raises(ckpt.CheckpointError, match="does not fit the network"):
        Trainer(config, resume_from=data, log=False)
    # a damaged trainer state
    data = torch.load(good, weights_only=True)
    data["trainer"] = b"\x80garbage"
    torch.save(data, tmp_path / "damaged.pt")
    with pytest.raises(ckpt.CheckpointError, match="damaged trainer state"):
        resume(tmp_path / "damaged.pt", run_dir=tmp_path / "d", log=False)
    # the CLI prints the error instead of a traceback
    assert main(["evaluate", str(truncated), "--games", "4"]) == 2


def test_existing_run_directory_is_not_overwritten(tmp_path):
    Trainer(tiny_config(tmp_path / "run", "total_steps=200"), log=False).train()
    with pytest.raises(FileExistsError, match="--resume"):
        Trainer(tiny_config(tmp_path / "run", "total_steps=200"), log=False)


def test_config_errors_name_the_bad_key(tmp_path):
    with pytest.raises(ConfigError, match="unknown config key 'ppo.lrr'"):
        tiny_config(tmp_path, "ppo.lrr=0.1")
    with pytest.raises(ConfigError, match="net.kind must be one of"):
        tiny_config(tmp_path, "net.kind=transformer")
    with pytest.raises(ConfigError, match="ppo.num_envs must be an integer"):
        tiny_config(tmp_path, "ppo.num_envs=many")
    with pytest.raises(ConfigError, match="unknown game"):
        Trainer(tiny_config(tmp_path, game="no_such_game"), log=False)
    with pytest.raises(ConfigError, match="pile"):
        Trainer(tiny_config(tmp_path, "game_config.pile=0"), log=False)


def test_teams_and_cooperative_seating(tmp_path):
    trainer = Trainer(
        tiny_config(
            tmp_path / "t",
            "game_config.num_players=4",
            "game_config.teams=true",
            "opponents.self_play=0",
            "opponents.random=1",
        ),
        log=False,
    )
    rng = np.random.default_rng(0)
    seen_teams = set()
    game = trainer.info.new_game(0)
    for _ in range(40):
        keys, (key, team, _) = trainer.backend.seating.assign(0, rng, game)
        assert key == "random"
        assert (
            [k == "learner" for k in keys]
            == [t == team for t in game.teams()]
            == [t == team for t in [0, 1, 0, 1]]
        )
        seen_teams.add(team)
    assert seen_teams == {0, 1}
    coop = Trainer(
        tiny_config(
            tmp_path / "c",
            "game_config.num_players=3",
            "game_config.cooperative=true",
            "opponents.self_play=0",
            "opponents.random=1",
        ),
        log=False,
    )
    for _ in range(10):
        keys, _ = coop.backend.seating.assign(0, rng, coop.info.new_game(0))
        assert keys == ["learner"] * 3


def test_a_fixed_player_seated_among_others_takes_fixed_seats_of_the_seats_left(tmp_path):
    among = ("opponents.self_play=0", "opponents.fixed=1", "opponents.fixed_player=random")
    options = (
        "game_config.num_players=4",
        *among,
        "opponents.fixed_seats=1",
        "opponents.fixed_among=scripted",
    )
    trainer = Trainer(tiny_config(tmp_path / "f", *options), log=False)
    rng, game = np.random.default_rng(0), trainer.info.new_game(0)
    where = set()
    for _ in range(40):
        keys, (key, team, _) = trainer.backend.seating.assign(0, rng, game)
        assert key == "fixed" and keys[team] == "learner"  # each seat its own team: the learner's seat
        assert sorted(keys) == ["fixed", "learner", "scripted", "scripted"]
        where.add((team, keys.index("fixed")))
    assert len(where) > 6  # the learner's seat and the fixed player's both drawn
    summary = trainer.train()  # the mixed tables play, and their games count for the fixed player
    assert summary["decisions"] >= 2000 and "fixed" in trainer.backend.pool.table()
    for bad, message in (
        (("game_config.num_players=4", "opponents.fixed_seats=3"), "must be below the 3 seats"),
        (("game_config.num_players=2", "opponents.fixed_seats=1"), "must be below the 1 seats"),
        (
            ("game_config.num_players=4", "game_config.teams=true", "opponents.fixed_seats=1"),
            "played by teams",
        ),
        (("opponents.fixed_seats=-1",), "at least 0"),
        (("opponents.fixed_among=snapshot",), "must be one of"),
    ):
        with pytest.raises(ConfigError, match=message):
            Trainer(tiny_config(tmp_path / "bad", *among, *bad), log=False, overwrite=True)


def test_secret_teams_dealt_per_game_seat_the_learner_on_one_whole_side(tmp_path):
    trainer = Trainer(
        tiny_config(
            tmp_path / "s",
            "game_config.num_players=4",
            "game_config.secret_teams=true",
            "opponents.self_play=0",
            "opponents.random=1",
        ),
        log=False,
    )
    rng = np.random.default_rng(0)
    for seed in range(20):
        game = trainer.info.new_game(seed)
        keys, (_, team, teams) = trainer.backend.seating.assign(0, rng, game)
        assert teams == game.teams() and sorted(teams) == [7, 7, 9, 9]  # the game's own ids
        assert [k == "learner" for k in keys] == [t == team for t in teams]
    info = trainer.info
    result = match(info, "scripted", "random", 60, seed=2)
    assert set(result["by_team"]) == {"7", "9"}
    assert result["by_team"]["7"]["games"] == result["by_team"]["9"]["games"] == 30
    assert result["win_rate"] > 0.6  # the Nim strategy helps a whole team against random play


def test_artifacts_learner_is_seated_on_a_dealt_side(tmp_path):
    # Artifacts deals the sides secretly: the learner's seats are exactly one dealt side's seats, read
    # from the game (never the role chart's order), and side ids keep their meaning in every game
    trainer = Trainer(
        tiny_config(
            tmp_path / "a",
            "opponents.self_play=0",
            "opponents.random=1",
            "game_config.num_players=7",
            game="artifacts",
        ),
        log=False,
    )
    info = trainer.info
    assert info.secret_teams and info.game_type.teams == "secret"
    rng = np.random.default_rng(0)
    deals = set()
    for seed in range(12):
        game = info.new_game(seed)
        keys, (_, team, teams) = trainer.backend.seating.assign(0, rng, game)
        assert teams == game.teams() and sorted(teams) == [0, 0, 0, 0, 1, 1, 1]
        assert [k == "learner" for k in keys] == [t == team for t in teams]
        deals.add(tuple(teams))
    assert len(deals) > 1  # sides differ from deal to deal: no fixed seating could fit them


def test_match_scores_truncated_games_as_draws_and_counts_them():
    # 11 stones need at least 4 decisions: cut after 3, no game has a result
    info = game_info(TOY, {"max_decisions": 3})
    assert info.max_decisions == 3
    result = match(info, "scripted", "random", 20, seed=0)
    assert result["truncated"] == 20 and result["ties"] == 20
    assert result["wins"] == result["losses"] == 0 and result["win_rate"] == 0.5
    assert {t: r["win_rate"] for t, r in result["by_team"].items()} == {"0": 0.5, "1": 0.5}
    # with room to finish, the scripted Nim player wins as before and nothing is cut
    full = match(game_info(TOY, {}), "scripted", "random", 20, seed=0)
    assert full["truncated"] == 0 and full["win_rate"] > 0.85
    # some games cut, some finished: each cut game is a draw, each finished one keeps its result
    some = match(game_info(TOY, {"max_decisions": 5}), "scripted", "random", 60, seed=0)
    assert 0 < some["truncated"] < 60 and some["ties"] == some["truncated"]
    assert some["wins"] + some["losses"] == 60 - some["truncated"]


def test_short_run_with_games_cut_at_a_tiny_length_limit(tmp_path):
    config = tiny_config(
        tmp_path / "cut",
        "game_config.max_decisions=3",
        "total_steps=400",
        "opponents.self_play=0.5",
        "opponents.random=0.5",
        "eval.games=10",
        "eval.opponents=[random,scripted]",
    )
    trainer = Trainer(config, log=False)
    summary = trainer.train()
    assert summary["decisions"] >= 400 and summary["episodes"] > 50
    assert set(trainer.backend.episode_truncated) == {1}  # every game was cut at 3 decisions
    final = summary["final_eval"]
    for name in ("random", "scripted"):
        assert final[name]["truncated"] == 10 and final[name]["win_rate"] == 0.5
    batch = trainer.backend.runner.collect(4, 0.99, 0.95)
    assert batch.truncated.any() and np.array_equal(batch.truncated, batch.done)


def test_pretraining_imitates_the_scripted_baseline(tmp_path):
    from training.pretrain import collect_scripted

    config = tiny_config(
        tmp_path / "bc",
        "total_steps=64",
        "pretrain.games=200",
        "pretrain.epochs=20",
        "net.hidden=[64]",
        "opponents.random=1",
        "opponents.self_play=0",
    )
    trainer = Trainer(config, log=False)
    info = trainer.info
    data = collect_scripted(info, 20, seed=99, uses_state=False)
    # the recorded actions are the baseline's own choices, and returns run to the end of the game
    scripted = info.scripted(0)
    assert all(scripted(o, m) == a for o, m, a in zip(data["obs"], data["mask"], data["action"]))
    assert set(np.abs(data["returns"])) == {1.0}
    trainer.train()  # pretraining runs first, then PPO
    assert trainer.pretrain_stats["pretrain/accuracy"] > 0.9
    assert trainer.pretrain_stats["pretrain/seconds"] > 0
    assert trainer.history[0]["after_pretraining"]
    with torch.no_grad():
        logits, _ = trainer.backend.net.evaluate_flat(
            torch.from_numpy(data["obs"]), torch.from_numpy(data["mask"])
        )
    agree = (logits.argmax(-1).numpy() == data["action"]).mean()
    assert agree > 0.9


def test_init_starts_a_run_from_another_runs_warm_start_in_place_of_its_own(tmp_path):
    first = Trainer(tiny_config(tmp_path / "a", *CLONED), log=False)
    first.train()
    warm = tmp_path / "a" / "checkpoints" / "warm_start.pt"
    data = ckpt.read_checkpoint(warm)
    assert (data["iteration"], data["decisions"]) == (0, 0)
    second = Trainer(tiny_config(tmp_path / "b", *CLONED, f"init={warm}"), log=False)
    at_evaluations = []  # the policy's weights as each evaluation begins (the first: at step 0)
    evaluate = second.evaluate
    second.evaluate = lambda *a, **k: at_evaluations.append(_weights(second)) or evaluate(*a, **k)
    second.train()
    assert _same(at_evaluations[0], list(data["model"].values()))
    assert not _same(at_evaluations[0], _weights(second))  # and PPO trained on from there
    assert second.pretrain_stats == {} and not second.pretrained  # no scripted games, no cloning
    assert not (tmp_path / "b" / "checkpoints" / "warm_start.pt").exists()
    # the clone's weights and the same evaluation seed: the first run's step-0 games
    a0, b0 = first.history[0], second.history[0]
    assert b0["init"] == str(warm) and "after_pretraining" not in b0 and a0["after_pretraining"]
    assert (a0["random"], a0["scripted"]) == (b0["random"], b0["scripted"])
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["init"] == {"path": str(warm), "iteration": 0, "decisions": 0}
    assert summary["pretrain"] == {}


def test_a_run_stopped_after_its_warm_start_resumes_from_it_as_if_uninterrupted(tmp_path):
    full = Trainer(tiny_config(tmp_path / "full", *CLONED), log=False)
    full.train()
    warm = tmp_path / "full" / "checkpoints" / "warm_start.pt"
    resumed = resume(warm, run_dir=tmp_path / "resumed", log=False)
    assert resumed.iteration == 0 and resumed.pretrained
    resumed.train()
    assert resumed.pretrain_stats == full.pretrain_stats  # the warm start was not played again
    assert resumed.history == full.history
    assert _same(_weights(full), _weights(resumed))


def test_init_refuses_another_game_another_network_and_a_missing_file_before_writing(tmp_path):
    Trainer(tiny_config(tmp_path / "toy", "total_steps=64"), log=False).train()
    toy = tmp_path / "toy"
    with pytest.raises(ConfigError, match=r"net\.hidden=\[32\] there, \[48\] here"):
        Trainer(tiny_config(tmp_path / "wide", f"init={toy}", "net.hidden=[48]"), log=False)
    with pytest.raises(ckpt.CheckpointError, match="game .*'exposed'"):
        Trainer(tiny_config(tmp_path / "exposed", f"init={toy}", game="exposed"), log=False)
    with pytest.raises(ckpt.CheckpointError, match="no checkpoint at"):
        Trainer(tiny_config(tmp_path / "none", f"init={tmp_path / 'missing.pt'}"), log=False)
    assert not any((tmp_path / name).exists() for name in ("wide", "exposed", "none"))


@pytest.mark.parametrize("smoothing", [0.2, 0.4])
def test_label_smoothing_leaves_that_share_of_the_clone_spread_over_the_legal_actions(smoothing):
    from training.config import NetConfig, PretrainConfig
    from training.pretrain import collect_scripted, pretrain

    info = game_info(TOY, {"num_players": 4, "teams": True})
    data = collect_scripted(info, 100, seed=5, uses_state=False)
    obs, mask, action = (torch.from_numpy(data[k]) for k in ("obs", "mask", "action"))
    legal = mask.sum(-1)
    assert (legal > 1).float().mean() > 0.5  # most decisions have something to spread onto
    probs, stats = {}, {}
    for eps in (0.0, smoothing):
        torch.manual_seed(0)
        net = PolicyNet(info.net_shape, NetConfig(hidden=[64], critic_hidden=[16]))
        cfg = PretrainConfig(games=100, epochs=40, minibatch=128, label_smoothing=eps)
        stats[eps] = pretrain(net, data, cfg, 1.0, np.random.default_rng(0))
        with torch.no_grad():
            probs[eps] = torch.softmax(net.evaluate_flat(obs, mask)[0], -1)
    rows = torch.arange(len(action))
    plain, smoothed = probs[0.0][rows, action], probs[smoothing][rows, action]
    assert plain.mean() > 0.95  # the plain clone is all but certain of the scripted action
    # the smoothed one gives it the target's share, 1 - eps + eps / (legal actions) ...
    want = 1 - smoothing + smoothing / legal
    assert (smoothed - want).abs().mean() < 0.05, (smoothed.mean(), want.mean())
    # ... still ranks it first, and gives an illegal action nothing
    assert (probs[smoothing].argmax(-1) == action).float().mean() > 0.95
    assert (probs[smoothing][~mask] == 0).all()
    assert stats[smoothing]["pretrain/entropy"] > stats[0.0]["pretrain/entropy"] + 0.1
    with pytest.raises(ConfigError, match="label_smoothing"):
        load_config(None, [f"game={TOY}", "pretrain.label_smoothing=1"]).validate()


def test_pretraining_data_against_random_opponents_records_only_the_scripted_team():
    from training.pretrain import collect_scripted

    info = game_info(TOY, {"num_players": 4, "teams": True})
    games = 40
    mixed = collect_scripted(info, games, seed=3, uses_state=False, random_share=1.0)
    scripted = info.scripted(0)
    assert all(scripted(o, m) == a for o, m, a in zip(mixed["obs"], mixed["mask"], mixed["action"]))
    # every game recorded exactly one team's two seats (teams are seats 0,2 and 1,3)
    per_game: dict = {}
    for chain in mixed["chain"]:
        per_game.setdefault(int(chain) // 4, set()).add(int(chain) % 4)
    assert len(per_game) == games and {frozenset(v) for v in per_game.values()} <= {
        frozenset({0, 2}),
        frozenset({1, 3}),
    }
    # with no random share every seat of every game is recorded, as before the option existed
    full = collect_scripted(info, games, seed=3, uses_state=False)
    assert {int(c) % 4 for c in full["chain"]} == {0, 1, 2, 3} and len(full["action"]) > len(mixed["action"])
    # a cooperative game has no other side to hand to random players
    coop = game_info(TOY, {"num_players": 3, "cooperative": True})
    alone = collect_scripted(coop, 10, seed=3, uses_state=False, random_share=1.0)
    assert {int(c) % 3 for c in alone["chain"]} == {0, 1, 2}
    with pytest.raises(ConfigError, match="random_opponents"):
        load_config(None, [f"game={TOY}", "pretrain.random_opponents=1.5"]).validate()


def test_opponent_pool_weights_and_pfsp(tmp_path):
    trainer = Trainer(
        tiny_config(tmp_path / "p", "opponents.self_play=0", "opponents.snapshot=1", "opponents.pfsp=hard"),
        log=False,
    )
    pool = trainer.backend.pool
    rng = np.random.default_rng(0)
    assert pool.sample(rng) == "self"  # no snapshot yet: falls back to self-play
    weak, strong = pool.add_snapshot(trainer.backend.net), pool.add_snapshot(trainer.backend.net)
    for _ in range(200):
        pool.record(weak, 1.0)  # the learner always beats the weak snapshot
        pool.record(strong, 0.0)  # and always loses to the strong one
    draws = [pool.sample(rng) for _ in range(400)]
    assert draws.count(strong) > 0.9 * len(draws)
    for _ in range(5):
        pool.add_snapshot(trainer.backend.net)
    assert len(pool.snapshots) <= trainer.config.opponents.pool_size
    mixed = Trainer(tiny_config(tmp_path / "m", "opponents.self_play=1", "opponents.random=3"), log=False)
    kinds = [mixed.backend.pool.sample(rng) for _ in range(2000)]
    assert 0.7 < kinds.count("random") / len(kinds) < 0.8


def test_short_training_run_learns_to_beat_random(tmp_path):
    # two-player Nim (11 stones, take 1-3): random vs random wins 50%; a learned policy far more
    config = tiny_config(
        tmp_path / "learn",
        "total_steps=12000",
        "ppo.num_envs=32",
        "ppo.rollout_steps=32",
        "net.hidden=[64]",
        "net.critic_hidden=[64]",
        "ppo.lr=2e-3",
        "opponents.self_play=0.5",
        "opponents.random=0.5",
        "checkpoint_every=0",
    )
    trainer = Trainer(config, log=False)
    info = trainer.info
    before = match(info, trainer.backend.net, "random", 400, seed=11)
    trainer.train()
    after = match(info, trainer.backend.net, "random", 400, seed=11)
    assert before["ci95"][1] < 0.75
    assert after["ci95"][0] > 0.8, after
    assert after["by_team"]["0"]["games"] == after["by_team"]["1"]["games"] == 200


def test_cli_evaluate_scores_games_like_the_runs_own_evaluations(tmp_path, capsys):
    run = tmp_path / "dense"
    config = tmp_path / "toy.yaml"
    config.write_text(f"game: {TOY}\nppo:\n  num_envs: 8\n  rollout_steps: 16\nnet:\n  hidden: [16]\n")
    args = ["game_config.stone_reward=10", "eval.game_config.stone_reward=0", "total_steps=100"]
    assert main(["train", str(config), f"run_dir={run}", "progress=false", "--no-log", *args]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(run), "--opponents", "scripted", "--games", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game_config"]["stone_reward"] == 0
    info = game_info(TOY, {"stone_reward": 0})
    net = ckpt.build_net(ckpt.read_checkpoint(run))
    assert out["results"]["vs_scripted"] == match(info, net, "scripted", 30, out["seed"])


def test_cli_evaluate_plays_as_the_run_evaluates_unless_told(tmp_path, capsys):
    run = tmp_path / "greedy"
    config = tmp_path / "toy.yaml"
    config.write_text(f"game: {TOY}\nppo:\n  num_envs: 8\n  rollout_steps: 16\nnet:\n  hidden: [16]\n")
    args = ["eval.greedy=true", "total_steps=100"]
    assert main(["train", str(config), f"run_dir={run}", "progress=false", "--no-log", *args]) == 0
    info = game_info(TOY, {})
    net = ckpt.build_net(ckpt.read_checkpoint(run))
    for flags, greedy in (([], True), (["--no-greedy"], False), (["--greedy"], True)):
        capsys.readouterr()
        assert main(["evaluate", str(run), "--opponents", "scripted", "--games", "30", *flags]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["greedy"] is greedy, flags
        assert out["results"]["vs_scripted"] == match(info, net, "scripted", 30, out["seed"], greedy=greedy)
    # a baseline has no run to follow: it samples
    capsys.readouterr()
    assert main(["evaluate", "random", "--opponents", "scripted", "--games", "4", "--game", TOY]) == 0
    assert json.loads(capsys.readouterr().out)["greedy"] is False


def test_cli_train_evaluate_rate_and_play(tmp_path, capsys, monkeypatch):
    run = tmp_path / "cli"
    config = tmp_path / "toy.yaml"
    config.write_text(f"game: {TOY}\nppo:\n  num_envs: 8\n  rollout_steps: 16\nnet:\n  hidden: [16]\n")
    assert (
        main(["train", str(config), f"run_dir={run}", "total_steps=300", "progress=false", "--no-log"]) == 0
    )
    capsys.readouterr()
    assert main(["evaluate", str(run), "--opponents", "random,scripted", "--games", "40", "--rating"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["results"]) == {"vs_random", "vs_scripted"}
    r = out["results"]["vs_random"]
    assert r["games"] == 40 and 0 <= r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] <= 1
    assert set(out["rating"]["ratings"]) == {"cli/latest", "random", "scripted"}
    assert out["rating"]["ratings"]["random"] == 0.0
    assert main(["rate", str(run / "checkpoints" / "final.pt"), "random", "--games", "20"]) == 0
    capsys.readouterr()
    # play: the person types an illegal number, then legal moves until the game ends
    answers = iter(["9", "0"] + ["0"] * 20)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", str(run), "--seat", "0", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "not a legal action number" in text and "returns:" in text
    assert "cut at the limit" not in text


def test_cli_play_stops_a_game_at_its_length_limit(tmp_path, capsys, monkeypatch):
    run = tmp_path / "cut"
    config = tmp_path / "toy.yaml"
    config.write_text(
        f"game: {TOY}\ngame_config:\n  max_decisions: 3\nppo:\n  num_envs: 8\n  rollout_steps: 16\n"
        "net:\n  hidden: [16]\n"
    )
    assert main(["train", str(config), f"run_dir={run}", "total_steps=50", "progress=false", "--no-log"]) == 0
    capsys.readouterr()
    answers = iter(["0"] * 20)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", str(run), "--seat", "0", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "cut at the limit of 3 decisions" in text and "returns:" in text
    assert text.count("plays:") + (20 - len(list(answers))) == 3  # the agent's moves and the person's


def test_games_in_progress_are_saved_as_seeds_and_moves(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "r", "total_steps=200"), log=False)
    trainer.train()
    state = ckpt.trainer_state(ckpt.read_checkpoint(tmp_path / "r"))
    games = state["runner"]["games"]
    assert len(games) == 8
    for slot, record in enumerate(games):
        assert set(record) == {"seed", "moves", "position"}
        replayed = trainer.info.new_game(record["seed"])
        for action in record["moves"]:
            replayed.apply_action(action)
        live = trainer.backend.runner.games[slot]
        assert replayed.num_decisions == live.num_decisions
        assert np.array_equal(replayed.state_tensor(), live.state_tensor())


@pytest.mark.parametrize(
    "path", sorted(Path(__file__).resolve().parents[2].joinpath("configs").glob("*.yaml"))
)
def test_shipped_configs_load_and_match_a_registered_game(path):
    config = load_config(path)
    if config.game not in envs.GAMES:
        pytest.skip(f"{config.game} is not registered yet")
    info = game_info(config.game, config.game_config)
    assert info.num_players == config.game_config.get("num_players", info.num_players)
    net = PolicyNet(info.net_shape, config.net)
    assert sum(p.numel() for p in net.parameters()) > 0


def test_cli_evaluate_cooperative_game_reports_team_results(tmp_path, capsys):
    run = tmp_path / "coop"
    config = tmp_path / "coop.yaml"
    config.write_text(
        f"game: {TOY}\ngame_config:\n  num_players: 3\n  cooperative: true\nppo:\n  num_envs: 8\n"
        "  rollout_steps: 16\nnet:\n  hidden: [16]\n"
    )
    assert (
        main(["train", str(config), f"run_dir={run}", "total_steps=200", "progress=false", "--no-log"]) == 0
    )
    capsys.readouterr()
    assert main(["evaluate", str(run), "--opponents", "random,scripted", "--games", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["results"]) == {"team_coop/latest", "team_random", "team_scripted"}
    assert all(r["games"] == 30 for r in out["results"].values())
