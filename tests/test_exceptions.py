"""classify_failure names a failure by its type, never by its message (issue 17)."""

from __future__ import annotations

from scrapy.exceptions import DownloadCancelledError, IgnoreRequest
from scrapy.utils._compression import _DecompressionMaxSizeExceeded

from gatecrawl.core.reasons import Reason
from gatecrawl.exceptions import OffsiteBlocked, RedirectDropped, RenderAborted, RobotsBlocked, classify_failure


def _raised_from(exc: BaseException, cause: BaseException) -> BaseException:
    try:
        raise exc from cause
    except BaseException as e:  # noqa: BLE001 - the chained exception is the test's input
        return e


def test_typed_refusals_carry_their_reason():
    assert classify_failure(RobotsBlocked(Reason.ROBOTS_UNREACHABLE)) == (Reason.ROBOTS_UNREACHABLE, "robots_unreachable")
    assert classify_failure(OffsiteBlocked("offsite: x (hop 1)"))[0] is Reason.OFFSITE
    assert classify_failure(RedirectDropped(Reason.DUPLICATE_OF, "redirects to y"))[0] is Reason.DUPLICATE_OF
    assert classify_failure(RenderAborted("too_large"))[0] is Reason.SIZE_EXCEEDED


def test_the_message_text_decides_nothing():
    # Words that once matched: a message is not a type.
    assert classify_failure(IgnoreRequest("Forbidden by robots.txt"))[0] is Reason.FETCH_FAILED
    assert classify_failure(IgnoreRequest("decompress max"))[0] is Reason.FETCH_FAILED
    assert classify_failure(ValueError("decompressed body over the max size"))[0] is Reason.FETCH_FAILED


def test_the_decompression_cap_by_type_or_cause():
    bomb = _raised_from(IgnoreRequest("Ignored response <200 http://x/>"), _DecompressionMaxSizeExceeded(2048, 1024))
    assert classify_failure(bomb) == (Reason.DECOMPRESSION_BOMB, "Ignored response <200 http://x/>")
    assert classify_failure(_DecompressionMaxSizeExceeded(2048, 1024))[0] is Reason.DECOMPRESSION_BOMB
    assert classify_failure(DownloadCancelledError("anything"))[0] is Reason.SIZE_EXCEEDED


def test_require_enabled_names_the_setting():
    import pytest
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings

    from gatecrawl.exceptions import require_enabled

    require_enabled(Settings({"X_ENABLED": True}), "X_ENABLED")
    require_enabled(Settings(), "X_ENABLED", True)
    with pytest.raises(NotConfigured, match="X_ENABLED is off"):
        require_enabled(Settings({"X_ENABLED": "false"}), "X_ENABLED", True)
