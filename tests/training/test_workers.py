"""Rollout workers (workers=N): reproducible for a fixed N, resumable bit for bit, the same semantics as
one process (every decision of every game, chains per game and seat), and evaluations and the warm start
spread over the same workers."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from envs.core.search import Search, SearchBudget
from envs.core.workers import Workers, split, stream
from training import checkpoint as ckpt
from training.evaluate import match, one_seat, play_games
from training.games import game_info
from training.pretrain import SparseRows, collect_scripted, join_recordings
from training.runner import compute_gae
from training.trainer import Trainer, resume
from training.workers import GameWorker, merge_batches

from .helpers import OPPONENT_MIX, TOY, tiny_config

pytestmark = pytest.mark.xdist_group("workers")  # worker processes: keep these tests on one core's turn

MIX = [*OPPONENT_MIX, "eval.every=4", "pretrain.games=12", "workers=2"]


def _weights(trainer):
    return [p.detach().clone() for p in trainer.backend.net.state_dict().values()]


def _same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b))


@pytest.fixture(scope="module")
def two_worker_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("workers") / "full"
    trainer = Trainer(tiny_config(run_dir, *MIX), log=False)
    trainer.train()
    return trainer, run_dir


def test_a_fixed_worker_count_is_reproducible_and_resumes_bit_for_bit(two_worker_run, tmp_path):
    full, run_dir = two_worker_run
    assert full.backend.runner.workers is None  # the run stopped its worker processes when it ended
    history = full.history
    assert {"random", "scripted"} <= set(history[-1]) and history[-1]["random"]["games"] == 20
    again = Trainer(tiny_config(tmp_path / "again", *MIX), log=False)
    again.train()
    assert _same(_weights(full), _weights(again))
    assert again.history == history  # the evaluations on the workers too
    resumed = resume(run_dir / "checkpoints" / "iter_00005.pt", run_dir=tmp_path / "resumed", log=False)
    assert resumed.iteration == 5
    resumed.train()
    assert resumed.backend.runner.decisions == full.backend.runner.decisions
    assert _same(_weights(full), _weights(resumed))


def test_the_workers_games_in_progress_are_saved_per_worker(two_worker_run):
    _, run_dir = two_worker_run
    state = ckpt.trainer_state(ckpt.read_checkpoint(run_dir))
    workers = state["runner"]["workers"]
    assert len(workers) == 2
    assert [len(w["runner"]["games"]) for w in workers] == [4, 4]  # ppo.num_envs=8 split in two
    assert all(set(g) == {"seed", "moves", "position"} for w in workers for g in w["runner"]["games"])


def test_another_worker_count_resumes_with_fresh_games(two_worker_run, tmp_path):
    _, run_dir = two_worker_run
    with pytest.warns(UserWarning, match="played by 2 worker"):
        one = resume(
            run_dir / "checkpoints" / "iter_00005.pt",
            {"workers": 1, "total_steps": 1600},
            run_dir=tmp_path / "one",
            log=False,
        )
    before = one.backend.runner.decisions
    assert before == ckpt.read_checkpoint(run_dir / "checkpoints" / "iter_00005.pt")["decisions"]
    one.train()
    assert one.backend.runner.decisions >= 1600 > before


def test_merged_batches_keep_every_chain_apart_with_its_advantages():
    """Two workers' rollouts: each worker's chains (its own slots) move to the run's slots, and GAE on
    the merged chains equals each worker's own."""
    rng = np.random.default_rng(0)
    parts, first = [], [0, 3]
    for _ in range(2):
        n = 40
        chain = rng.integers(0, 3 * 2, n)  # 3 slots x 2 seats in each worker
        reward, value = rng.normal(size=n).astype(np.float32), rng.normal(size=n).astype(np.float32)
        done = rng.random(n) < 0.2
        adv, ret, trainable, _ = compute_gae(chain, reward, value, done, 0.99, 0.95)
        parts.append(
            {
                "obs": rng.normal(size=(n, 4)).astype(np.float32),
                "state": np.zeros((n, 0), np.float32),
                "mask": np.ones((n, 3), bool),
                "action": rng.integers(0, 3, n),
                "logp": np.zeros(n, np.float32),
                "value": value,
                "reward": reward,
                "done": done,
                "truncated": np.zeros(n, bool),
                "boot": np.zeros(n, np.float32),
                "start": np.zeros(n, bool),
                "chain": chain,
                "hbefore": np.zeros((n, 0), np.float32),
                "advantage": adv,
                "returns": ret,
                "trainable": trainable,
            }
        )
    batch = merge_batches(parts, first, num_players=2)
    assert np.array_equal(batch.chain[:40], parts[0]["chain"])
    assert np.array_equal(batch.chain[40:], parts[1]["chain"] + 3 * 2)
    assert not set(batch.chain[:40]) & set(batch.chain[40:])
    adv, _, trainable, layout = compute_gae(batch.chain, batch.reward, batch.value, batch.done, 0.99, 0.95)
    assert np.allclose(adv, batch.advantage) and np.array_equal(trainable, batch.trainable)
    assert np.array_equal(layout, batch.layout)


def test_evaluations_on_workers_play_each_share_from_its_own_stream():
    info = game_info(TOY, {"num_players": 3})
    with Workers(GameWorker, [(TOY, {"num_players": 3})] * 2) as workers:
        spread = match(info, "scripted", "random", 30, seed=7, num_envs=8, workers=workers)
        teams = game_info(TOY, {"num_players": 4, "teams": True})  # A at one seat, B its partner too
        seated = match(teams, "scripted", "random", 30, seed=7, num_envs=8, workers=workers, mixed=one_seat)
        together = match(teams, "scripted", "random", 30, seed=7, num_envs=8, workers=workers)
    shares = split(30, 2)
    results, at_one_seat = [], []
    for w, share in enumerate(shares):
        rng = np.random.default_rng(stream(7, 2, w))
        results += play_games(info, "scripted", "random", share, rng, num_envs=4)
        rng = np.random.default_rng(stream(7, 2, w))
        at_one_seat += play_games(teams, "scripted", "random", share, rng, num_envs=4, mixed=one_seat)
    from training.evaluate import summarize

    assert spread == summarize(results, info)
    assert seated == summarize(at_one_seat, teams)  # the seats A plays travel to the workers too
    assert seated["win_rate"] < together["win_rate"]  # a random partner costs the scripted player
    assert spread["games"] == 30 and sum(v["games"] for v in spread["by_team"].values()) == 30


def test_a_worker_counts_the_searching_of_one_player_in_both_seats_once():
    worker = GameWorker(TOY, {"num_players": 2})
    config = {"num_players": 2}
    sent = pickle.dumps((Search(SearchBudget(simulations=4), seed=1),) * 2 + (None, None))
    (seconds, decisions), other = worker.play(config, sent, range(3), [0, 0], 3, False)["searched"]
    # the same games in this process: the one player's own count of what it searched
    here, _, _, _ = pickle.loads(sent)
    play_games(worker.info, here, here, range(3), np.random.default_rng([0, 0]), 3, False, None)
    assert decisions == here.decisions > 0 and seconds > 0 and other == (0.0, 0)


def test_the_warm_start_on_workers_joins_the_shares_exactly():
    info = game_info(TOY, {"num_players": 2})
    with Workers(GameWorker, [(TOY, {"num_players": 2})] * 2) as workers:
        from training.pretrain import collect_on_workers

        joined = collect_on_workers(info, workers, 9, [5, 3], uses_state=True)
    shares = split(9, 2)
    parts = [collect_scripted(info, len(s), stream([5, 3], 2, w), True) for w, s in enumerate(shares)]
    assert len(joined["action"]) == sum(len(p["action"]) for p in parts)
    assert np.array_equal(joined["obs"], np.concatenate([p["obs"] for p in parts]))
    assert np.array_equal(joined["state"], np.concatenate([p["state"] for p in parts]))
    expected = np.concatenate([parts[0]["chain"], parts[1]["chain"] + shares[1].start * 2])
    assert np.array_equal(joined["chain"], expected)
    assert np.array_equal(join_recordings(parts, [s.start for s in shares], 2)["obs"], joined["obs"])


def test_sparse_rows_concatenate_bit_for_bit():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, (50, 7)).astype(np.float32)
    a[3, 2], a[4, 1] = -0.0, np.nan  # kept by their bits
    b = rng.normal(size=(30, 7)).astype(np.float32)  # many distinct values: 210 codes
    c = rng.normal(size=(10_000, 7)).astype(np.float32)  # past 65,536 distinct values: float32 values
    for parts in ([a, b], [a, c], [b, a, b]):
        joined = SparseRows.concatenate([SparseRows.from_dense(x) for x in parts])
        dense = np.concatenate(parts)
        assert np.array_equal(np.asarray(joined).view(np.uint32), dense.view(np.uint32))
    many = SparseRows.concatenate([SparseRows.from_dense(b) for _ in range(2)])
    assert many.values.dtype == np.uint8 and len(many.table) == len(np.unique(b.view(np.uint32)))


def test_the_cli_evaluates_and_rates_on_workers(two_worker_run, capsys):
    import json

    from training.cli import main

    _, run_dir = two_worker_run
    args = ["evaluate", str(run_dir), "--opponents", "random,scripted", "--games", "24", "--workers", "2"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert [r["games"] for r in first["results"].values()] == [24, 24]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["results"] == first["results"]  # the same --seed, --workers
    assert main(["rate", str(run_dir), "random", "--games", "10", "--workers", "2"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["matches"][0]["a"].endswith("latest") and len(table["ratings"]) == 2
    assert main(["evaluate", str(run_dir), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
