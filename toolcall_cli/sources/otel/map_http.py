"""HTTP client and server spans (`http.request.method`, or the pre-1.21 `http.method`): tool-service
exchanges, mapped by `fast_rows` (the path names the tool when it is `/tools/NAME`, as the pcap
and nginx sources read it; a call to an LLM API keeps its path so end-to-end phases find it).
"""

from __future__ import annotations

from toolcall_cli.sources.otel.model import Span


def method(span: Span) -> str | None:
    """The request method, when this is an HTTP span."""
    m = span.attrs.get("http.request.method", span.attrs.get("http.method"))
    return m.upper() if isinstance(m, str) and m else None
