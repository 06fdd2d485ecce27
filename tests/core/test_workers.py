"""envs.core.workers: processes that host an object each and answer calls; errors and deaths come back as
WorkerError (never a hang), and the pipes stay in step after one."""

from __future__ import annotations

import os

import numpy as np
import pytest

from envs.core.workers import WorkerError, Workers, split

pytestmark = pytest.mark.xdist_group("workers")


class Counter:
    def __init__(self, start: int):
        self.n = start
        self.pid = os.getpid()

    def add(self, k: int) -> int:
        self.n += k
        return self.n

    def where(self) -> int:
        return self.pid

    def echo(self, value):
        return value

    def threads(self) -> str:
        return os.environ.get("OMP_NUM_THREADS", "")

    def fail(self, who: int, index: int) -> int:
        if index == who:
            raise ValueError(f"worker {index} was told to fail")
        return index

    def die(self) -> None:
        os._exit(7)


class Broken:
    def __init__(self):
        raise RuntimeError("cannot build")


def test_calls_run_in_separate_processes_each_with_its_own_object():
    with Workers(Counter, [(0,), (10,)]) as workers:
        assert len(workers) == 2
        assert workers.call("add", [(1,), (2,)]) == [1, 12]
        assert workers.call("add", [(1,), (1,)]) == [2, 13]
        pids = workers.call("where")
        assert len(set(pids)) == 2 and os.getpid() not in pids
        assert workers.call("threads") == ["1", "1"]  # one core each
        workers.send(1, "add", 5)
        assert workers.receive(1) == 18


def test_values_travel_by_value():
    import torch

    tensor = torch.arange(6.0)
    array = np.arange(4)
    with Workers(Counter, [(0,)]) as workers:
        back_tensor, back_array = workers.call("echo", [((tensor, array),)])[0]
    assert torch.equal(back_tensor, tensor) and np.array_equal(back_array, array)


def test_an_error_comes_back_with_its_traceback_and_the_pipes_stay_in_step():
    with Workers(Counter, [(0,), (0,), (0,)]) as workers:
        with pytest.raises(WorkerError, match="(?s)worker 1 raised.*ValueError: worker 1 was told to fail"):
            workers.call("fail", [(1, 0), (1, 1), (1, 2)])
        assert workers.call("add", [(1,), (2,), (3,)]) == [1, 2, 3]  # every answer was read


def test_a_worker_that_dies_is_an_error_not_a_hang():
    with Workers(Counter, [(0,), (0,)]) as workers:
        with pytest.raises(WorkerError, match="worker 0 died \\(exit code 7\\)"):
            workers.send(0, "die")
            workers.receive(0)


def test_a_worker_that_cannot_be_built_stops_the_others():
    with pytest.raises(WorkerError, match="RuntimeError: cannot build"):
        Workers(Broken, [(), ()])
    with pytest.raises(ValueError, match="at least one worker"):
        Workers(Counter, [])


def test_close_is_idempotent():
    workers = Workers(Counter, [(0,)])
    processes = list(workers.processes)
    workers.close()
    workers.close()
    assert not any(p.is_alive() for p in processes)


def test_split_covers_every_item_once_in_near_equal_parts():
    for count in (0, 1, 7, 64):
        for parts in (1, 2, 3, 5):
            ranges = split(count, parts)
            assert len(ranges) == parts
            assert [i for r in ranges for i in r] == list(range(count))
            assert max(map(len, ranges)) - min(map(len, ranges)) <= 1
