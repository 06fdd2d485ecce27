"""envs.core.workers: processes that each host one object and answer calls on it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envs.core.workers import WorkerError, Workers, split


class Counter:
    """A hosted object: adds to its total, raises on request, and notes its close() in a file."""

    def __init__(self, start: int, closed_note: str | None = None):
        self.total, self.closed_note = start, closed_note

    def add(self, amount: int) -> int:
        self.total += amount
        return self.total

    def fail(self) -> None:
        raise KeyError("no such thing")

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        if self.closed_note:
            Path(self.closed_note).write_text(str(self.total))


def broken_factory():
    raise ValueError("cannot build this")


def test_workers_answer_in_order_report_errors_and_deaths_and_close_their_objects(tmp_path):
    note = tmp_path / "closed"
    workers = Workers(Counter, [(0,), (10, str(note))])
    with workers:
        assert workers.call("add", [(1,), (2,)]) == [1, 12]
        workers.send(1, "add", 5)
        assert workers.receive(1) == 17
        with pytest.raises(WorkerError, match="KeyError: 'no such thing'"):
            workers.call("fail")
        assert workers.call("add", [(0,), (0,)]) == [1, 17]  # the pipes stay in step after an error
        pids = workers.call("pid")
        assert len(set(pids)) == 2 and os.getpid() not in pids
    assert note.read_text() == "17"  # close() ran in the worker as it stopped
    workers.close()  # twice is fine

    with Workers(Counter, [(0,), (0,)]) as workers:
        os.kill(workers.call("pid")[0], signal.SIGKILL)
        with pytest.raises(WorkerError, match="worker 0 died"):
            workers.call("add", [(1,), (1,)])


def test_a_factory_that_fails_is_an_error_at_start():
    with pytest.raises(WorkerError, match="ValueError: cannot build this"):
        Workers(broken_factory, [()])
    with pytest.raises(ValueError, match="at least one worker"):
        Workers(Counter, [])


def test_a_script_that_starts_workers_unguarded_is_told_why_they_died(tmp_path):
    """Spawned workers import the main script first; without a __main__ guard it starts workers again."""
    script = tmp_path / "unguarded.py"
    script.write_text("from envs.core.workers import Workers\nWorkers(dict, [()])\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0
    assert "worker 0 died while starting" in done.stderr
    assert 'if __name__ == "__main__":' in done.stderr.splitlines()[-1]


def gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for a reaper counts: it runs nothing)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from Linux's /proc")
def test_a_busy_worker_exits_when_its_parent_is_killed(tmp_path):
    """A killed trainer must not leave its workers running: SIGKILL skips every cleanup in the parent."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import threading\n"
        "from envs.core.workers import Workers\n"
        'if __name__ == "__main__":\n'
        "    workers = Workers(threading.Event, [()])\n"
        "    print(workers.processes[0].pid, flush=True)\n"
        "    workers.send(0, 'wait')  # the worker waits forever and reads no pipe meanwhile\n"
        "    threading.Event().wait()\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    worker = None
    try:
        worker = int(parent.stdout.readline())
        assert not gone(worker)
        parent.kill()
        parent.wait(timeout=30)
        for _ in range(100):
            if gone(worker):
                break
            time.sleep(0.1)
        assert gone(worker), "the worker outlived its killed parent"
    finally:
        parent.kill()
        parent.stdout.close()
        if worker is not None and not gone(worker):  # a failing run leaves no orphan behind
            os.kill(worker, signal.SIGKILL)


@pytest.mark.parametrize("count, parts", [(10, 3), (3, 3), (64, 2), (5, 1)])
def test_split_cuts_contiguous_ranges_that_differ_by_at_most_one(count, parts):
    ranges = split(count, parts)
    assert len(ranges) == parts and [i for r in ranges for i in r] == list(range(count))
    sizes = [len(r) for r in ranges]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


class Host:
    """A hosted object for the checks below: where it runs, with how many threads, what it received."""

    def where(self) -> int:
        return os.getpid()

    def threads(self) -> str:
        return os.environ.get("OMP_NUM_THREADS", "")

    def echo(self, value):
        return value

    def fail_on(self, who: int, index: int) -> int:
        if index == who:
            raise ValueError(f"worker {index} was told to fail")
        return index

    def die(self) -> None:
        os._exit(7)


def test_each_worker_runs_on_one_thread_and_owns_what_it_receives():
    import numpy as np
    import torch

    tensor, array = torch.arange(6.0), np.arange(4)
    with Workers(Host, [(), ()]) as workers:
        assert workers.call("threads") == ["1", "1"]  # one core each
        back_tensor, back_array = workers.call("echo", [((tensor, array),)] * 2)[0]
    assert torch.equal(back_tensor, tensor) and np.array_equal(back_array, array)  # by value


def test_the_failing_worker_is_named_and_every_answer_is_still_read():
    with Workers(Host, [(), (), ()]) as workers:
        with pytest.raises(WorkerError, match="(?s)worker 1 raised.*ValueError: worker 1 was told to fail"):
            workers.call("fail_on", [(1, 0), (1, 1), (1, 2)])
        assert workers.call("fail_on", [(9, 0), (9, 1), (9, 2)]) == [0, 1, 2]


def test_a_worker_that_exits_reports_its_exit_code():
    with Workers(Host, [(), ()]) as workers:
        workers.send(0, "die")
        with pytest.raises(WorkerError, match="worker 0 died \\(exit code 7\\)"):
            workers.receive(0)


class Arrays:
    def make(self, n: int):
        import numpy as np

        return {
            "c": np.arange(n, dtype=np.float32),
            "f": np.asfortranarray(np.ones((3, n))),
            "b": np.ones(n, bool),
        }


@pytest.mark.parametrize("n", [10, 400_000])  # through the pipe, and through shared memory (past 1 MB)
def test_arrays_arrive_whole_writable_and_in_their_order(n):
    import numpy as np

    with Workers(Arrays, [()]) as workers:
        got = workers.call("make", [(n,)])[0]
    assert np.array_equal(got["c"], np.arange(n, dtype=np.float32)) and got["f"].flags.f_contiguous
    assert all(a.flags.writeable for a in got.values())  # the receiver owns them
    got["c"][0] = -1
