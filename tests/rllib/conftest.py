"""Ray for the RLlib backend tests: a local instance with 2 CPUs, no dashboard, no usage stats, one
OpenMP thread, every service on 127.0.0.1. The tests skip where ray[rllib] is not installed."""

from __future__ import annotations

import os

import pytest

# before Ray is imported anywhere: no usage reporting; loopback addresses (Ray otherwise resolves
# 127.0.0.1 to the machine's outward address); one thread per worker
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ.pop("RAY_ADDRESS", None)

LOCAL_RAY = {
    "address": "local",  # always a new local instance, never a cluster another test left behind
    "num_cpus": 2,
    "include_dashboard": False,
    "_node_ip_address": "127.0.0.1",
    "object_store_memory": 150 * 1024 * 1024,
    "log_to_driver": False,
}


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(**LOCAL_RAY)
    yield ray
    ray.shutdown()


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (--dist loadgroup) every Ray test runs in one worker, one Ray at a time."""
    for item in items:
        if "tests/rllib/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.xdist_group("ray"))
