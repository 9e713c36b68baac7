"""The isolated PDF worker process: one PDFium user per process, one document at a time.

Started by ``pool.py`` as ``python -c 'from gatecrawl.core.pdf.worker import main; main()'``
(a fresh interpreter: nothing is forked from the caller). Protocol on stdin/stdout, all
length-prefixed and JSON (never pickle: a compromised worker must not be able to run code in the
caller):

    worker -> caller, once:   u32 length, {"ready": true, "pid": ...}
    caller -> worker, a job:  u32 json length, u32 data length, job json, PDF bytes
    worker -> caller:         u32 length, result json

Before every job the worker lowers its own RLIMIT_AS to its idle size plus ``max_memory_mb``.
A ``MemoryError`` becomes ``pdf_limits_exceeded`` and the worker exits afterwards (it is replaced).
"""

from __future__ import annotations

import json
import os
import signal
import struct
import sys
import time

_MB = 2**20


def _read_exact(f, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        b = f.read(n - got)
        if not b:
            return None
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _vm_size() -> int | None:
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _set_memory_limit(mb: int, idle: int | None) -> None:
    try:
        import resource
    except ImportError:  # not POSIX
        return
    if idle is None or mb <= 0:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = idle + mb * _MB
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ValueError, OSError):
        pass


def _test_fault(name: str) -> None:
    """TEST-ONLY fault injection, reachable only through read_pdf(_test_fault=...)."""
    if name == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif name == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif name == "hang":
        while True:
            time.sleep(3600)
    elif name == "oom":
        hog = []
        while True:
            hog.append(bytearray(64 * _MB))
    elif name == "exit":
        os._exit(3)


def main() -> None:
    out_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints cannot corrupt the protocol
    out = os.fdopen(out_fd, "wb", buffering=0)
    inp = sys.stdin.buffer

    def send(obj: dict) -> None:
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        out.write(struct.pack(">I", len(body)) + body)

    from gatecrawl.core.pdf.extract import DocError, read_document  # imports PDFium

    idle = _vm_size()
    send({"ready": True, "pid": os.getpid()})
    while True:
        head = _read_exact(inp, 8)
        if head is None:
            return
        jl, dl = struct.unpack(">II", head)
        job_raw = _read_exact(inp, jl)
        data = _read_exact(inp, dl)
        if job_raw is None or data is None:
            return
        job = json.loads(job_raw)
        start = time.monotonic()
        deadline = start + float(job.get("timeout_s", 30.0))
        _set_memory_limit(int(job.get("max_memory_mb", 0)), idle)
        recycle = False
        try:
            if job.get("_test_fault"):
                _test_fault(job["_test_fault"])
            res = read_document(data, job, deadline, time.monotonic)
        except DocError as e:
            res = {"ok": False, "reason": e.reason, "detail": e.detail, "page_count": e.page_count}
        except MemoryError:
            res = {"ok": False, "reason": "pdf_limits_exceeded",
                   "detail": f"memory limit of {job.get('max_memory_mb')} MB reached"}
            recycle = True
        except Exception as e:  # noqa: BLE001 - any PDFium/layout failure is a parse failure
            res = {"ok": False, "reason": "pdf_parse_failed",
                   "detail": f"{type(e).__name__}: {str(e)[:160]}"}
        del data
        try:
            send(res)
        except MemoryError:
            os._exit(4)
        if recycle:
            return


if __name__ == "__main__":
    main()
