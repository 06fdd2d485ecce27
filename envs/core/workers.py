"""Worker processes that each host one object and answer calls on it: the layer under the batched
environment (`envs.core.vector`) and the trainer's rollout workers (`training.workers`).

    with Workers(Counter, [(0,), (10,)]) as workers:     # two processes, Counter(0) and Counter(10)
        workers.call("add", [(1,), (2,)])                # -> [1, 12], one call per worker, in parallel

A call goes to every worker at once and waits for all answers, or to one worker (`send`, then
`receive`), so the caller can work while they do. Each process is started with the `spawn` method by
default (safe wherever torch's thread pools are already running, and the same on every OS), with its
thread count set before the hosted object's module is imported: one worker, one core. An exception in a
worker comes back as a WorkerError carrying the worker's traceback; a worker that dies (killed, out of
memory) is a WorkerError too, never a hang; a worker whose parent dies (even by SIGKILL) exits at once,
busy or not. What travels is pickled by this package's own processes;
nothing read from a file is unpickled here. Messages are plain pickles of values (torch tensors by
value too, never torch's shared-memory handles), so a worker owns what it receives.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import threading
import traceback
from collections.abc import Callable, Sequence
from multiprocessing import shared_memory
from typing import Any

import numpy as np

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


class WorkerError(RuntimeError):
    """A worker raised (its traceback is in the message) or died."""


class WorkerDied(WorkerError):
    """A worker process ended without answering (killed, out of memory, or failed to start)."""


def serve(conn, payload: bytes, threads: int) -> None:
    """A worker's life: build the hosted object, answer (method, args) calls until told to stop, then
    call the object's `close()`, if it has one."""
    for name in THREAD_VARIABLES:  # before torch or numpy's BLAS start their thread pools
        os.environ[name] = str(threads)
    exit_with_parent()
    try:
        factory, args = pickle.loads(payload)  # (this package's own bytes, sent by the parent)
        hosted = factory(*args)
        limit_torch_threads(threads)
        put(conn, ("ok", None))
    except BaseException:
        put(conn, ("error", traceback.format_exc()))
        return
    try:
        answer(conn, hosted)
    finally:
        close = getattr(hosted, "close", None)
        if callable(close):  # the hosted object frees what it holds (shared memory views) before exit
            close()


def exit_with_parent() -> None:
    """End this worker as soon as its parent is gone, however it went (SIGTERM, SIGKILL): a worker busy
    in a long call reads no pipe, and a daemon process is only reaped by a parent that exits normally,
    so without this a killed trainer leaves its workers playing on every core."""
    parent = mp.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()  # returns when the parent's end of the sentinel pipe closes, i.e. it has exited
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def answer(conn, hosted) -> None:
    """Answer (method, args) calls on `hosted` until told to stop or the parent is gone."""
    while True:
        try:
            method, args = get(conn)
        except (EOFError, OSError, KeyboardInterrupt):  # the parent is gone, or Ctrl-C reached the group
            return
        if method is None:
            return
        try:
            put(conn, ("ok", getattr(hosted, method)(*args)))
        except KeyboardInterrupt:
            return
        except BaseException:
            put(conn, ("error", traceback.format_exc()))


# messages whose arrays add up to this many bytes send them through shared memory, not the pipe
SHARED_BYTES = 1 << 20


def put(conn, message) -> None:
    """Send `message` (pickled by value). Its large numpy arrays go out of band (pickle protocol 5) through
    one shared-memory block that the receiver copies from and frees: one copy on each side, where the
    pipe costs a pickle copy, two kernel copies and an unpickle copy."""
    arrays: list[pickle.PickleBuffer] = []
    payload = pickle.dumps(message, protocol=5, buffer_callback=arrays.append)
    raw = [a.raw() for a in arrays]  # each a contiguous run of bytes (C or Fortran order)
    sizes = [r.nbytes for r in raw]
    if sum(sizes) < SHARED_BYTES:
        conn.send_bytes(pickle.dumps((payload, None, [bytearray(r) for r in raw]), protocol=5))
        return
    block = shared_memory.SharedMemory(create=True, size=sum(sizes))
    try:
        offset = 0
        for r, size in zip(raw, sizes):
            block.buf[offset : offset + size] = r
            offset += size
        conn.send_bytes(pickle.dumps((payload, block.name, sizes), protocol=5))
    except BaseException:
        block.unlink()
        raise
    finally:
        block.close()


def get(conn):
    """Receive a message `put` sent (copying its shared arrays out, then freeing their block)."""
    payload, name, arrays = pickle.loads(conn.recv_bytes())
    if name is not None:
        block = shared_memory.SharedMemory(name=name)
        try:
            sizes, arrays, offset = arrays, [], 0
            for size in sizes:
                arrays.append(bytearray(block.buf[offset : offset + size]))
                offset += size
        finally:
            block.close()
            block.unlink()
    return pickle.loads(payload, buffers=arrays)


def limit_torch_threads(threads: int) -> None:
    """torch's own thread count, if the hosted object brought torch in (envs itself never imports it)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


class Workers:
    """`len(args)` processes; process w hosts `factory(*args[w])`. Close them with `close()` or a
    `with` block (also on errors: a worker left running would keep the program alive)."""

    def __init__(
        self,
        factory: Callable[..., Any],
        args: Sequence[tuple],
        context: str = "spawn",
        threads: int = 1,
    ):
        if not args:
            raise ValueError("Workers needs at least one worker (one tuple of arguments)")
        ctx = mp.get_context(context)
        self.conns, self.processes = [], []
        try:
            for w, worker_args in enumerate(args):
                parent, child = ctx.Pipe()
                payload = pickle.dumps((factory, tuple(worker_args)))
                process = ctx.Process(target=serve, args=(child, payload, threads), daemon=True)
                process.name = f"tabletop-worker-{w}"
                process.start()
                child.close()
                self.conns.append(parent)
                self.processes.append(process)
            for w in range(len(args)):
                self._started(w)
        except BaseException:
            self.close()
            raise

    def _started(self, w: int) -> None:
        """Wait until worker w has built its object (or its error comes back now)."""
        try:
            self.receive(w)
        except WorkerDied:
            # a spawned worker first imports the parent's main script: unguarded, that script starts
            # workers again, and the child exits with multiprocessing's bootstrapping error
            raise WorkerDied(
                f"worker {w} died while starting (exit code {self.processes[w].exitcode}; its own error is "
                "printed above). A script that starts workers with the 'spawn' method must do so under "
                '`if __name__ == "__main__":`.'
            ) from None

    def __len__(self) -> int:
        return len(self.conns)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def send(self, w: int, method: str, *args) -> None:
        """Start `method(*args)` on worker w's object; `receive(w)` returns its result."""
        try:
            put(self.conns[w], (method, args))
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._death(w)) from None

    def receive(self, w: int) -> Any:
        try:
            status, value = get(self.conns[w])
        except (EOFError, OSError):
            raise WorkerDied(self._death(w)) from None
        if status == "error":
            raise WorkerError(f"worker {w} raised:\n{value}")
        return value

    def call(self, method: str, args: Sequence[tuple] | None = None) -> list:
        """`method` on every worker at once (worker w with args[w], or none), and their results in order."""
        args = args if args is not None else [()] * len(self)
        for w, worker_args in enumerate(args):
            self.send(w, method, *worker_args)
        results, failure = [], None
        for w in range(len(self)):  # every answer is read, so the pipes stay in step after an error
            try:
                results.append(self.receive(w))
            except WorkerError as exc:
                results.append(None)
                failure = failure or exc
        if failure is not None:
            raise failure
        return results

    def _death(self, w: int) -> str:
        process = self.processes[w]
        process.join(timeout=1.0)
        return f"worker {w} died (exit code {process.exitcode}): killed, or out of memory?"

    def close(self) -> None:
        """Stop every worker (politely, then by force) and free its pipe."""
        for conn in self.conns:
            try:
                put(conn, (None, ()))
            except (BrokenPipeError, OSError):
                pass
        for process in self.processes:
            process.join(timeout=5.0)
            if process.is_alive():
                process.kill()
                process.join()
        for conn in self.conns:
            conn.close()
        self.conns, self.processes = [], []


ALIGN = 64  # bytes: each array of a shared block starts on a cache line


def offsets(layout: dict[str, tuple]) -> tuple[dict[str, int], int]:
    """Where each array starts in one shared block (aligned), and the block's size."""
    places, end = {}, 0
    for name, (shape, dtype) in layout.items():
        start = -(-end // ALIGN) * ALIGN
        places[name] = start
        end = start + int(np.prod(shape)) * np.dtype(dtype).itemsize
    return places, max(end, 1)


def arrays_over(buffer, layout: dict[str, tuple]) -> dict[str, np.ndarray]:
    places, _ = offsets(layout)
    return {
        name: np.ndarray(shape, dtype=dtype, buffer=buffer, offset=places[name])
        for name, (shape, dtype) in layout.items()
    }


class SharedArrays:
    """Named numpy arrays in one block of shared memory, laid out by `layout` (name -> (shape, dtype)):
    made by one process (`create=True`), attached by name in another, so both read and write the same
    bytes. The maker unlinks the block when it closes it."""

    def __init__(self, layout: dict[str, tuple], name: str | None = None):
        self.layout, self.owner = layout, name is None
        if self.owner:
            self.memory = shared_memory.SharedMemory(create=True, size=offsets(layout)[1])
        else:
            self.memory = shared_memory.SharedMemory(name=name)
        self.arrays = arrays_over(self.memory.buf, layout)

    @property
    def name(self) -> str:
        return self.memory.name

    def close(self) -> None:
        self.arrays = {}
        try:
            self.memory.close()
        except BufferError:  # views still held elsewhere: the mapping goes with them
            pass
        if self.owner:
            try:
                self.memory.unlink()
            except FileNotFoundError:
                pass


def split(count: int, parts: int) -> list[range]:
    """`count` items cut into `parts` contiguous ranges whose sizes differ by at most one (the first
    ranges get the extra items)."""
    base, extra = divmod(count, parts)
    bounds, start = [], 0
    for part in range(parts):
        size = base + (part < extra)
        bounds.append(range(start, start + size))
        start += size
    return bounds


def stream(seed, count: int, index: int) -> list[int]:
    """The seed of worker `index` of `count` for a stream the caller's process seeds with `seed` (an int
    or a list of ints, as numpy's default_rng takes): each worker of a split draws from its own."""
    return [*(seed if isinstance(seed, (list, tuple)) else [seed]), count, index]
