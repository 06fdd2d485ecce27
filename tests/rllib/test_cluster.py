"""A two-node Ray cluster simulated on loopback (ray.cluster_utils.Cluster, one CPU per node): the driver
joins it through `RAY_ADDRESS`, and RLlib runs one EnvRunner on each node."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from ray.cluster_utils import Cluster  # noqa: E402

from tests.training import toy_game  # noqa: E402, F401 - so its name resolves
from training.config import load_config  # noqa: E402
from training.rllib import train  # noqa: E402

NODE = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "object_store_memory": 100 * 1024 * 1024}


@pytest.fixture
def two_nodes():
    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(
        initialize_head=True, connect=False, head_node_args={**NODE, "include_dashboard": False}
    )
    worker = cluster.add_node(**NODE)
    cluster.wait_for_nodes()
    try:
        yield cluster, {cluster.head_node.node_id, worker.node_id}
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()


def test_env_runners_run_on_both_nodes_of_a_loopback_cluster(two_nodes, tmp_path, monkeypatch):
    cluster, node_ids = two_nodes
    assert len(node_ids) == 2
    run_dir = tmp_path / "cluster"
    config = load_config(
        None,
        [
            "game=tests.training.toy_game:SPEC",
            f"run_dir={run_dir}",
            "total_steps=500",
            "ppo.num_envs=4",
            "ppo.rollout_steps=32",
            "ppo.epochs=1",
            "eval.every=0",
            "eval.games=20",
            "eval.opponents=[random]",
            "checkpoint_every=0",
            "progress=false",
            "net.hidden=[16]",
            "net.critic_hidden=[16]",
            "opponents.self_play=0.5",
            "opponents.random=0.5",
        ],
    )
    # the driver joins the cluster named by RAY_ADDRESS (as after `ray start --head` / `--address`);
    # two EnvRunners of one CPU each on a cluster of two one-CPU nodes: one lands on each node
    monkeypatch.setenv("RAY_ADDRESS", cluster.address)
    summary = train(config, rllib={"num_env_runners": 2}, log=False)
    assert not ray.is_initialized()  # the driver left the cluster; the cluster itself is still up
    assert set(summary["env_runner_nodes"]) == node_ids
    assert summary["decisions"] >= 500
    saved = json.loads((run_dir / "summary.json").read_text())
    assert saved["env_runner_nodes"] == summary["env_runner_nodes"]
    assert (run_dir / "checkpoints" / "final.pt").exists()
