"""A fake DNS for egress tests (``GATECRAWL_EGRESS_RESOLVER=fakedns:resolve``).

Answers come from the JSON file named by ``FAKEDNS_FILE``: ``{"host": [answer, answer, ...]}``,
one answer per query in order (the last one repeats). An answer is a list of addresses,
``"nxdomain"`` or ``"servfail"`` (raise), or ``[]`` (empty). Unknown names use the system
resolver. Each query is appended to ``FAKEDNS_LOG`` when set, so tests can count lookups.
"""

from __future__ import annotations

import json
import os
import socket
import threading

_lock = threading.Lock()
_calls: dict[str, int] = {}


def resolve(host: str, port: int) -> list[str]:
    table = json.loads(open(os.environ["FAKEDNS_FILE"], encoding="utf-8").read())
    key = host.lower().rstrip(".")
    with _lock:
        n = _calls.get(key, 0)
        _calls[key] = n + 1
    if os.environ.get("FAKEDNS_LOG"):
        with open(os.environ["FAKEDNS_LOG"], "a", encoding="utf-8") as fh:
            fh.write(f"{key}\n")
    if key not in table:
        from gatecrawl.egress.policy import resolve_host

        return resolve_host(host, port)
    answers = table[key]
    answer = answers[min(n, len(answers) - 1)]
    if answer == "nxdomain":
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    if answer == "servfail":
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    return list(answer)
