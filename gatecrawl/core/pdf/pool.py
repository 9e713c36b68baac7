"""Caller side: a pool of warm, isolated PDF worker processes.

* Each worker is a fresh interpreter started with ``subprocess`` (fork+exec, i.e. spawn: nothing of
  the caller's threads or event loop is inherited), talking over two pipes (see ``worker.py``).
* ``acquire`` hands out an idle worker or starts one while fewer than ``size`` exist; callers
  beyond that wait (queue time never counts against a document's budget, so results do not
  depend on concurrency).
* The budget starts when the job is handed over. Writes and reads are non-blocking with
  ``select.poll`` against the deadline; past it the worker gets SIGKILL -> ``pdf_timeout``.
  EOF or a broken pipe -> ``pdf_worker_crashed`` (with the signal name). A worker that failed,
  timed out or ran out of memory is discarded; the next call starts a new one.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

# What holds the gatecrawl package: a folder, or a zipped egg under Scrapyd (a file: fine on
# sys.path, where zipimport reads it, but never a working directory).
_ROOT = str(Path(__file__).resolve().parents[3])
# The worker reads nothing from disk: it runs in the root folder, which always exists and holds
# no Python package that could shadow gatecrawl's (``python -c`` puts the cwd first on sys.path).
_WORKER_CWD = os.path.abspath(os.sep)
_BOOT = (
    "import sys; sys.path.insert(0, {root!r}); "
    "from gatecrawl.core.pdf.worker import main; main()"
)
STARTUP_TIMEOUT_S = 60.0
MAX_JOBS_PER_WORKER = 500
MAX_RESULT_BYTES = 512 * 2**20


class WorkerFailure(Exception):
    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "worker stopped answering"
    if code < 0:
        try:
            return f"worker killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"worker killed by signal {-code}"
    return f"worker exited with code {code}"


class Worker:
    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONHASHSEED"] = "0"
        env.pop("PYTHONSTARTUP", None)
        if env.get("PYTHONPATH"):  # relative entries meant the caller's cwd, not the worker's
            env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT.format(root=_ROOT)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            bufsize=0, close_fds=True, env=env, cwd=_WORKER_CWD,
        )
        self.jobs = 0
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        try:
            hello = self._recv(time.monotonic() + STARTUP_TIMEOUT_S)
        except WorkerFailure:
            self.kill()
            raise
        if not hello.get("ready"):
            self.kill()
            raise WorkerFailure("pdf_worker_crashed", "worker sent no ready message")

    # -- I/O with a deadline ----------------------------------------------------------------
    def _wait(self, fd: int, event: int, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        p = select.poll()
        p.register(fd, event | select.POLLERR | select.POLLHUP)
        if not p.poll(max(1, int(left * 1000) + 1)):
            if time.monotonic() >= deadline:
                raise TimeoutError

    def _send(self, payload: list[bytes], deadline: float) -> None:
        for chunk in payload:
            view = memoryview(chunk)
            while view:
                self._wait(self._in, select.POLLOUT, deadline)
                try:
                    n = os.write(self._in, view[: 1 << 20])
                except BlockingIOError:
                    continue
                view = view[n:]

    def _read(self, n: int, deadline: float) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            self._wait(self._out, select.POLLIN, deadline)
            try:
                b = os.read(self._out, min(n - len(buf), 1 << 20))
            except BlockingIOError:
                continue
            if not b:
                raise EOFError
            buf += b
        return bytes(buf)

    def _recv(self, deadline: float) -> dict:
        try:
            (n,) = struct.unpack(">I", self._read(4, deadline))
            if n > MAX_RESULT_BYTES:
                raise WorkerFailure("pdf_worker_crashed", "worker sent an oversized reply")
            return json.loads(self._read(n, deadline))
        except TimeoutError:
            raise WorkerFailure("pdf_timeout", "") from None
        except (EOFError, OSError, ValueError):
            raise WorkerFailure("pdf_worker_crashed", self._reap()) from None

    def _reap(self) -> str:
        try:
            code = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        return _describe_exit(code)

    # -- one job ------------------------------------------------------------------------------
    def run(self, job: dict, data: bytes, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        body = json.dumps(job, sort_keys=True).encode()
        self.jobs += 1
        try:
            self._send([struct.pack(">II", len(body), len(data)), body, data], deadline)
        except TimeoutError:
            raise WorkerFailure("pdf_timeout", "") from None
        except OSError:  # broken pipe: the worker died while reading
            raise WorkerFailure("pdf_worker_crashed", self._reap()) from None
        return self._recv(deadline)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
        self.close()

    def close(self, grace: float = 2.0) -> None:
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=grace)  # EOF on stdin ends the worker loop
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Pool:
    def __init__(self, size: int = 2) -> None:
        self._cond = threading.Condition()
        self._size = max(1, int(size))
        self._idle: list[Worker] = []
        self._busy = 0
        self._gen = 0  # bumped by shutdown: workers of an older generation are not kept

    def set_size(self, n: int) -> None:
        n = max(1, int(n))
        with self._cond:
            self._size = n
            extra = []
            while self._idle and len(self._idle) + self._busy > n:
                extra.append(self._idle.pop())
            self._cond.notify_all()
        for w in extra:
            w.close()

    def acquire(self) -> tuple[Worker, int]:
        with self._cond:
            while not self._idle and self._busy >= self._size:
                self._cond.wait()
            self._busy += 1
            gen = self._gen
            w = self._idle.pop() if self._idle else None
        if w is not None and w.alive():
            return w, gen
        if w is not None:
            w.close(grace=0.1)
        try:
            return Worker(), gen
        except BaseException:
            with self._cond:
                self._busy -= 1
                self._cond.notify()
            raise

    def release(self, w: Worker, gen: int, reusable: bool) -> None:
        keep = False
        with self._cond:
            self._busy -= 1
            if (reusable and gen == self._gen and w.jobs < MAX_JOBS_PER_WORKER
                    and len(self._idle) + self._busy < self._size):
                self._idle.append(w)
                keep = True
            self._cond.notify()
        if not keep:
            if reusable:
                w.close()
            else:
                w.kill()

    def shutdown(self) -> None:
        with self._cond:
            idle, self._idle = self._idle, []
            self._gen += 1
            self._cond.notify_all()
        for w in idle:
            w.close()

    def _after_fork_in_child(self) -> None:
        # a forked child must not talk to (or close) the parent's workers
        self._cond = threading.Condition()
        self._idle = []
        self._busy = 0
        self._gen += 1


POOL = Pool(2)
atexit.register(POOL.shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=POOL._after_fork_in_child)
