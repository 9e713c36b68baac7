"""A self-signed TLS certificate for the loopback test servers, generated at runtime.

``server_context()`` returns an :class:`ssl.SSLContext` for a server, with a key and a
self-signed certificate made by ``cryptography`` for the loopback addresses the tests use
(IP SANs 127.0.0.1-127.0.0.3 and ``localhost``). The pair is generated once per test session
and written to a temporary folder that is removed at exit. Scrapy does not verify server
certificates by default, so crawls accept it.
"""

from __future__ import annotations

import atexit
import datetime
import functools
import ipaddress
import shutil
import ssl
import tempfile
from pathlib import Path

LOOPBACK_IPS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


@functools.lru_cache(maxsize=1)
def cert_files() -> tuple[Path, Path]:
    """``(certificate, key)`` PEM files, created on first use and cached for the session."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gatecrawl test server")])
    now = datetime.datetime.now(datetime.UTC)
    san = x509.SubjectAlternativeName(
        [x509.DNSName("localhost")] + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in LOOPBACK_IPS]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(san, critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = Path(tempfile.mkdtemp(prefix="gatecrawl-tls-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_path.chmod(0o600)
    return cert_path, key_path


def server_context() -> ssl.SSLContext:
    """A server-side context that presents the session's self-signed certificate."""
    cert_path, key_path = cert_files()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert_path, key_path)
    return ctx


__all__ = ["LOOPBACK_IPS", "cert_files", "server_context"]
