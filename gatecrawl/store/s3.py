"""S3Store: ``s3://bucket/prefix`` through boto3 (AWS, MinIO, Cloudflare R2, SeaweedFS), spool first.

Nothing accepted is ever lost:

1. ``put``/``delete`` first write the operation to a durable local spool
   (:mod:`gatecrawl.store.spool`: temp file, fsync, rename, folder fsync) and return.
2. Upload threads (never the caller's thread) apply spool entries: HEAD the object; when its
   ``identity-sha256`` metadata (and schema version) equal the new object's, skip it (nothing is
   rewritten); otherwise PUT with ``ChecksumAlgorithm=SHA256`` and ``ChecksumSHA256`` so S3 verifies
   the bytes, and check the checksum S3 returns. botocore retries with backoff (``standard`` mode).
3. Only after success is the entry removed from the spool. A failed entry stays; ``flush`` retries
   in passes until every entry is uploaded, no pass makes progress, or the timeout expires.
4. ``resume()`` (called when a crawl opens) submits the entries an earlier run left behind.
5. After repeated failures (or at once on a credentials/bucket error) a circuit breaker pauses
   uploads for a cool-down, so a crawl with S3 down keeps spooling at full speed instead of waiting
   on retries; ``flush`` probes once more at the end.

The spool folder is ``<spool dir>/<name derived from the store URI>``, so two stores never mix and
a later run against the same URI (whatever the endpoint) finds the leftovers.

Options (Scrapy setting names): ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_ENDPOINT_URL``, ``AWS_REGION_NAME``, ``AWS_USE_SSL``, ``AWS_VERIFY``,
``GATECRAWL_SPOOL_DIR``, ``GATECRAWL_EXPORT_THREADS``, ``GATECRAWL_S3_MAX_ATTEMPTS``,
``GATECRAWL_S3_TIMEOUT``, ``GATECRAWL_S3_ADDRESSING_STYLE``, ``GATECRAWL_S3_BREAKER_FAILURES``,
``GATECRAWL_S3_BREAKER_COOLDOWN``, ``GATECRAWL_EXPORT_FLUSH_TIMEOUT``.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from gatecrawl.core.redact import redact_text, redact_url
from gatecrawl.store.base import Store, StoreError
from gatecrawl.store.config import DEFAULT_FLUSH_TIMEOUT, DEFAULT_SPOOL_DIR
from gatecrawl.store.identity import identity_sha256
from gatecrawl.store.spool import Spool, SpoolEntry, SpoolError

__all__ = ["S3Store", "S3Config", "spool_folder_name"]

logger = logging.getLogger(__name__)

# Locks that serialize the upload jobs of one spool entry (see S3Store._name_lock).
_NAME_LOCK_STRIPES = 256

# Errors that affect every request, not one object: stop trying until the cool-down ends.
_FATAL_CODES = frozenset(
    {
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "AccessDenied",
        "NoSuchBucket",
        "ExpiredToken",
        "InvalidToken",
        "InvalidClientTokenId",
        "AuthorizationHeaderMalformed",
        "InvalidBucketName",
        "PermanentRedirect",
    }
)


def _as_bool(value: Any, default: bool | None) -> bool | None:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _as_int(value: Any, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except (TypeError, ValueError):
        raise StoreError(f"expected an integer, got {value!r}") from None


def _as_float(value: Any, default: float) -> float:
    try:
        return float(value) if value not in (None, "") else default
    except (TypeError, ValueError):
        raise StoreError(f"expected a number, got {value!r}") from None


@dataclass(frozen=True)
class S3Config:
    bucket: str
    prefix: str
    access_key: str | None = None
    secret_key: str | None = None
    session_token: str | None = None
    endpoint_url: str | None = None
    region: str | None = None
    use_ssl: bool | None = None
    verify: Any = None
    spool_dir: str = DEFAULT_SPOOL_DIR
    threads: int = 4
    max_attempts: int = 5
    timeout: float = 10.0
    addressing_style: str | None = None
    breaker_failures: int = 3
    breaker_cooldown: float = 30.0
    flush_timeout: float = DEFAULT_FLUSH_TIMEOUT

    def __repr__(self) -> str:  # never show credentials
        return f"S3Config(bucket={self.bucket!r}, prefix={self.prefix!r}, endpoint_url={self.endpoint_url!r})"

    @classmethod
    def from_options(cls, uri: str, options: Mapping[str, Any]) -> S3Config:
        parts = urlsplit(uri)
        if parts.scheme != "s3" or not parts.hostname:
            raise StoreError(f"not an s3://bucket/prefix URI: {redact_url(uri)}")
        bucket = parts.hostname
        prefix = parts.path.strip("/")
        # Scrapy-style credentials in the URI (s3://key:secret@bucket/...) are honoured.
        access_key = options.get("AWS_ACCESS_KEY_ID") or parts.username or None
        secret_key = options.get("AWS_SECRET_ACCESS_KEY") or parts.password or None
        verify = options.get("AWS_VERIFY")
        if isinstance(verify, str) and verify.lower() in ("true", "false", "1", "0"):
            verify = _as_bool(verify, None)
        threads = _as_int(options.get("GATECRAWL_EXPORT_THREADS"), 4)
        if threads < 1:
            raise StoreError("GATECRAWL_EXPORT_THREADS must be at least 1")
        style = options.get("GATECRAWL_S3_ADDRESSING_STYLE") or None
        if style not in (None, "auto", "path", "virtual"):
            raise StoreError(f"GATECRAWL_S3_ADDRESSING_STYLE must be auto, path or virtual, got {style!r}")
        return cls(
            bucket=bucket,
            prefix=prefix,
            access_key=access_key,
            secret_key=secret_key,
            session_token=options.get("AWS_SESSION_TOKEN") or None,
            endpoint_url=options.get("AWS_ENDPOINT_URL") or None,
            region=options.get("AWS_REGION_NAME") or None,
            use_ssl=_as_bool(options.get("AWS_USE_SSL"), None),
            verify=verify if verify not in ("",) else None,
            spool_dir=str(options.get("GATECRAWL_SPOOL_DIR") or DEFAULT_SPOOL_DIR),
            threads=threads,
            max_attempts=max(1, _as_int(options.get("GATECRAWL_S3_MAX_ATTEMPTS"), 5)),
            timeout=_as_float(options.get("GATECRAWL_S3_TIMEOUT"), 10.0),
            addressing_style=style,
            breaker_failures=max(1, _as_int(options.get("GATECRAWL_S3_BREAKER_FAILURES"), 3)),
            breaker_cooldown=max(0.0, _as_float(options.get("GATECRAWL_S3_BREAKER_COOLDOWN"), 30.0)),
            flush_timeout=max(0.0, _as_float(options.get("GATECRAWL_EXPORT_FLUSH_TIMEOUT"), DEFAULT_FLUSH_TIMEOUT)),
        )


def spool_folder_name(uri: str) -> str:
    """A readable, collision-free folder name for a store URI (credentials never appear in it)."""
    parts = urlsplit(uri)
    visible = f"{parts.scheme}-{parts.hostname or ''}-{parts.path.strip('/')}"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", visible).strip("-")[:80]
    canon = f"{parts.scheme}://{parts.hostname or ''}/{parts.path.strip('/')}"
    return f"{slug}-{hashlib.sha256(canon.encode('utf-8')).hexdigest()[:12]}"


class _ChecksumMismatch(Exception):
    pass


class S3Store(Store):
    def __init__(self, uri: str, options: Mapping[str, Any] | None = None) -> None:
        self.uri = redact_url(uri)
        self.config = S3Config.from_options(uri, options or {})
        try:
            import boto3
            from botocore.config import Config
        except ImportError:  # pragma: no cover - boto3 is a pinned dependency
            raise StoreError("s3:// stores need boto3") from None
        self.spool_root = Path(self.config.spool_dir) / spool_folder_name(uri)
        try:
            self.spool = Spool(self.spool_root)
            (self.spool_root / "STORE").write_text(self.uri + "\n", "utf-8")
        except (SpoolError, OSError) as exc:
            raise StoreError(str(exc)) from None
        c = self.config
        style = c.addressing_style or ("path" if c.endpoint_url else "auto")
        self._client = boto3.session.Session().client(
            "s3",
            aws_access_key_id=c.access_key,
            aws_secret_access_key=c.secret_key,
            aws_session_token=c.session_token,
            endpoint_url=c.endpoint_url,
            region_name=c.region,
            use_ssl=True if c.use_ssl is None else c.use_ssl,
            verify=c.verify,
            config=Config(
                retries={"mode": "standard", "max_attempts": c.max_attempts},
                connect_timeout=c.timeout,
                read_timeout=c.timeout,
                max_pool_connections=c.threads + 2,
                s3={"addressing_style": style},
            ),
        )
        self._pool = ThreadPoolExecutor(max_workers=c.threads, thread_name_prefix="gatecrawl-s3")
        self._lock = threading.Lock()
        self._name_locks = [threading.Lock() for _ in range(_NAME_LOCK_STRIPES)]
        self._queued: set[str] = set()
        self._futures: set[Future] = set()
        self._counters: dict[str, int] = {}
        self._status: dict[str, str] = {}
        self._consecutive_failures = 0
        self._breaker_until = 0.0
        self._breaker_logged = False
        self.last_error: str | None = None
        self._closed = False
        self._dirty = False  # work accepted since the last flush

    # -- helpers ----------------------------------------------------------------------

    def _inc(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counters[name] = self._counters.get(name, 0) + n

    def _full_key(self, key: str) -> str:
        if key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"bad key {key!r}")
        return f"{self.config.prefix}/{key}" if self.config.prefix else key

    def _submit(self, name: str) -> None:
        with self._lock:
            self._dirty = True
            if self._closed or name in self._queued:
                return
            self._queued.add(name)
            fut = self._pool.submit(self._job, name)
            self._futures.add(fut)
        fut.add_done_callback(self._forget)

    def _forget(self, fut: Future) -> None:
        with self._lock:
            self._futures.discard(fut)

    def _name_lock(self, name: str) -> threading.Lock:
        # Striped: a fixed set of locks, not one per entry name kept for the whole run (that
        # grew with every page). Two names sharing a stripe only wait for each other.
        return self._name_locks[hash(name) % len(self._name_locks)]

    # -- Store API (caller's thread: spool only) --------------------------------------

    def put(self, key: str, data: bytes, *, content_type: str, metadata: Mapping[str, str] | None = None) -> bool:
        meta = {str(k).lower(): str(v) for k, v in (metadata or {}).items()}
        meta.setdefault("identity-sha256", identity_sha256(key, data))
        meta.setdefault("content-sha256", hashlib.sha256(data).hexdigest())
        self._full_key(key)  # validate before spooling
        try:
            entry = self.spool.add(key, data, op="put", content_type=content_type, metadata=meta)
        except SpoolError as exc:
            raise StoreError(str(exc)) from None
        self._inc("spooled")
        with self._lock:
            self._set_status(key, "pending")
        self._submit(entry.name)
        return True

    def delete(self, key: str) -> None:
        self._full_key(key)
        try:
            entry = self.spool.add(key, op="delete")
        except SpoolError as exc:
            raise StoreError(str(exc)) from None
        with self._lock:
            self._set_status(key, "pending")
        self._submit(entry.name)

    def get(self, key: str) -> bytes | None:
        from botocore.exceptions import ClientError

        try:
            resp = self._client.get_object(Bucket=self.config.bucket, Key=self._full_key(key))
        except ClientError as exc:
            if _status_code(exc) == 404:
                return None
            raise StoreError(f"cannot read {key}: {_describe(exc)}") from None
        except Exception as exc:
            raise StoreError(f"cannot read {key}: {_describe(exc)}") from None
        with resp["Body"] as body:
            return body.read()

    def list(self, prefix: str = "") -> list[str]:
        base = f"{self.config.prefix}/" if self.config.prefix else ""
        out: list[str] = []
        try:
            for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self.config.bucket, Prefix=base + prefix):
                out.extend(o["Key"][len(base) :] for o in page.get("Contents", ()))
        except Exception as exc:
            raise StoreError(f"cannot list {prefix!r}: {_describe(exc)}") from None
        return sorted(out)

    def pending(self) -> int:
        return len(self.spool) + len(list(self.spool_root.glob("*.damaged")))

    def status(self, key: str) -> str | None:
        with self._lock:
            return self._status.get(key)

    def counters(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counters)

    def resume(self) -> int:
        names = self.spool.names()
        if names:
            self._inc("recovered", len(names))
            logger.info("uploading %d objects left in the spool %s by an earlier run", len(names), self.spool_root)
            for name in names:
                self._submit(name)
        return len(names)

    def flush(self, timeout: float | None = None) -> int:
        """Wait for uploads, then retry what is left in passes; returns the pending count."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self._dirty = False
        passes = 0
        progressed = True
        while True:
            if not self._wait_all(deadline):
                break
            names = self.spool.names()
            if not names or (deadline is not None and time.monotonic() >= deadline):
                break
            if passes and not progressed:
                break
            passes += 1
            before = self.counters().get("uploaded", 0)
            with self._lock:
                # Half-open the breaker: the pass probes S3 again; one failure re-opens it.
                if self._breaker_until:
                    self._breaker_until = 0.0
                    self._consecutive_failures = self.config.breaker_failures - 1
            for name in names:
                self._submit(name)
            self._wait_all(deadline)
            progressed = self.counters().get("uploaded", 0) > before
            if progressed and self.spool.names():
                time.sleep(min(2.0 ** passes / 4, 5.0))  # back off between passes
        return self.pending()

    def _wait_all(self, deadline: float | None) -> bool:
        while True:
            with self._lock:
                futures = set(self._futures)
            if not futures:
                return True
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            wait_futures(futures, timeout=remaining)

    def close(self) -> None:
        """Flush (at most ``GATECRAWL_EXPORT_FLUSH_TIMEOUT`` seconds), then stop the upload threads.
        Whatever is still spooled stays for the next run; ``pending()`` keeps counting it."""
        with self._lock:
            needed = self._dirty and not self._closed
        if needed:
            self.flush(self.config.flush_timeout)
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._client.close()

    # -- upload thread ----------------------------------------------------------------

    def _breaker_open(self) -> bool:
        with self._lock:
            return time.monotonic() < self._breaker_until

    def _job(self, name: str) -> None:
        with self._lock:
            self._queued.discard(name)
        with self._name_lock(name):
            if self._breaker_open():
                self._inc("deferred")
                return
            try:
                entry = self.spool.load(name)
            except SpoolError as exc:
                self._inc("damaged")
                logger.error("%s; set aside as .damaged", exc)
                self.spool.quarantine(name)
                return
            if entry is None:
                return  # uploaded meanwhile
            try:
                result = self._apply(entry)
            except Exception as exc:  # noqa: BLE001 - every failure keeps the entry spooled
                self._failed(entry, exc)
                return
            self.spool.remove(entry)
            with self._lock:
                recovered = self._breaker_logged
                self._consecutive_failures = 0
                self._breaker_until = 0.0
                self._breaker_logged = False
                self._counters["uploaded"] = self._counters.get("uploaded", 0) + 1
                self._counters[result] = self._counters.get(result, 0) + 1
                self._set_status(entry.key, result)
        if recovered:
            # S3 is back after an outage: retry what was deferred meanwhile, not only at flush.
            logger.info("S3 uploads resumed; retrying %d spooled objects", len(self.spool))
            for other in self.spool.names():
                self._submit(other)

    def _apply(self, entry: SpoolEntry) -> str:
        bucket, key = self.config.bucket, self._full_key(entry.key)
        head = self._head(bucket, key)
        if entry.op == "delete":
            if head is None:
                return "absent"
            self._client.delete_object(Bucket=bucket, Key=key)
            return "deleted"
        meta = entry.metadata
        if head is not None:
            old = {k.lower(): v for k, v in (head.get("Metadata") or {}).items()}
            if old.get("identity-sha256") == meta.get("identity-sha256") and old.get("schema-version") == meta.get("schema-version"):
                return "unchanged"
        checksum = base64.b64encode(hashlib.sha256(entry.data).digest()).decode("ascii")
        resp = self._client.put_object(
            Bucket=bucket,
            Key=key,
            Body=entry.data,
            ContentType=entry.content_type,
            Metadata=meta,
            ChecksumAlgorithm="SHA256",
            ChecksumSHA256=checksum,
        )
        returned = resp.get("ChecksumSHA256")
        if returned and returned.split("-")[0] != checksum:
            self._inc("checksum_mismatch")
            raise _ChecksumMismatch(f"S3 returned checksum {returned} for {entry.key}, expected {checksum}")
        return "put"

    def _head(self, bucket: str, key: str) -> dict | None:
        from botocore.exceptions import ClientError

        try:
            return self._client.head_object(Bucket=bucket, Key=key)
        except ClientError as exc:
            if _status_code(exc) == 404 and _error_code(exc) in ("404", "NoSuchKey", "NotFound"):
                return None
            raise

    def _failed(self, entry: SpoolEntry, exc: Exception) -> None:
        code = _error_code(exc)
        fatal = code in _FATAL_CODES or _status_code(exc) in (301, 401, 403)
        message = _describe(exc)
        with self._lock:
            self._counters["upload_failed"] = self._counters.get("upload_failed", 0) + 1
            self._consecutive_failures += 1
            self.last_error = message
            opened = False
            if fatal or self._consecutive_failures >= self.config.breaker_failures:
                self._breaker_until = time.monotonic() + self.config.breaker_cooldown
                opened = not self._breaker_logged
                self._breaker_logged = True
                if opened:
                    self._counters["breaker_opened"] = self._counters.get("breaker_opened", 0) + 1
        if opened:
            logger.error(
                "S3 upload failed (%s); uploads paused for %ss, objects stay in the spool %s",
                message,
                self.config.breaker_cooldown,
                self.spool_root,
            )
        else:
            logger.warning("S3 upload of %s failed, kept in the spool: %s", entry.key, message)


def _status_code(exc: Exception) -> int | None:
    return (getattr(exc, "response", None) or {}).get("ResponseMetadata", {}).get("HTTPStatusCode")


def _error_code(exc: Exception) -> str | None:
    return (getattr(exc, "response", None) or {}).get("Error", {}).get("Code")


def _describe(exc: Exception) -> str:
    code = _error_code(exc)
    text = f"{type(exc).__name__}: {exc}"
    if code and code not in text:
        text = f"{code}: {text}"
    return redact_text(text)[:500]
