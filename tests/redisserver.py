"""A throwaway redis-server on 127.0.0.1 (free port, no persistence) for the distributed tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self._log = None

    def start(self, timeout: float = 20) -> "RedisServer":
        import redis

        self.workdir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.workdir / "redis.log", "wb")
        self.proc = subprocess.Popen(
            [
                REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
                "--protected-mode", "yes", "--dir", str(self.workdir), "--daemonize", "no",
            ],
            stdout=self._log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while True:
            client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start: " + (self.workdir / "redis.log").read_text(errors="replace"))
                time.sleep(0.1)
            finally:
                client.close()

    def client(self):
        import redis

        return redis.Redis.from_url(self.url)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()
