"""The speed benchmarks' own code runs (their figures are printed, never asserted): a shipped config,
shrunk through the scripts' `--set` overrides, goes through each measurement once."""

from __future__ import annotations

import pytest

from benchmarks import time_to_target, workers

TINY = ["ppo.num_envs=8", "ppo.rollout_steps=16", "device=cpu"]


@pytest.mark.parametrize("count", [1, 2])
def test_the_workers_benchmark_times_rollout_and_update(count):
    run = workers.one_run("exposed", count, iterations=1, seed=0, extra=TINY)
    assert run["learner"] > 0 and run["all"] >= run["learner"]
    assert run["rollout_s"] > 0 and run["update_s"] > 0
    assert (run["inference_s"] > 0) == (count == 1)  # counted in one process only
    assert len(run.get("rss_workers_mb", [])) == (count if count > 1 else 0)


def test_time_to_target_stops_at_the_first_evaluation_that_meets_the_targets():
    extra = [*TINY, "total_steps=512", "eval.games=4"]
    row = time_to_target.time_to_target("exposed", "1x1", seed=0, every=1, games=4, extra=extra)
    assert row["total_steps"] == 512 and row["evaluations"] >= 1
    if row["reached"]:
        assert 0 < row["decisions"] <= 512 and row["seconds"] > 0
    else:
        assert row["decisions"] is None and row["evaluations"] >= 512 // (8 * 16)
