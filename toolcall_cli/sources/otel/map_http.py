"""HTTP client and server spans (`http.request.method`, `url.path`, `http.response.status_code`,
and the pre-1.21 `http.method` / `http.target` / `http.status_code`) as tool-service exchanges.

The path names the tool when it is `/tools/NAME` (as the pcap and nginx sources read it); a
call to an LLM API (`/chat/completions`, …) keeps its path so end-to-end phases find it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from toolcall_cli.sources.otel.exchange import ToolRun, as_text, span_fields
from toolcall_cli.sources.otel.map_genai import span_error
from toolcall_cli.sources.otel.model import Span

_TOOL_PATH = re.compile(r"^/(?:v\d+/)?tools?/([^/?#]+)")


def method(span: Span) -> str | None:
    """The request method, when this is an HTTP span."""
    m = span.attrs.get("http.request.method", span.attrs.get("http.method"))
    return m.upper() if isinstance(m, str) and m else None


def _path(span: Span) -> str | None:
    a = span.attrs
    for key in ("url.path", "http.target", "http.route"):
        if isinstance(a.get(key), str):
            return str(a[key]).split("?", 1)[0]
    for key in ("url.full", "http.url"):
        if isinstance(a.get(key), str):
            return urlsplit(str(a[key])).path or None
    return None


def tool_run(span: Span, session: str | None) -> ToolRun:
    """The exchange of an HTTP span."""
    a = span.attrs
    path = _path(span)
    code = a.get("http.response.status_code", a.get("http.status_code"))
    if isinstance(code, str) and code.isdigit() and len(code) <= 3:
        code = int(code)  # some exporters write the code as text
    status_code = (
        int(code) if isinstance(code, int | float) and not isinstance(code, bool) else None
    )
    err, etype = span_error(span)
    m = _TOOL_PATH.match(path or "")
    failed = span.status == "error" or (status_code is not None and status_code >= 400)
    return ToolRun(
        "http",
        **span_fields(span, session),
        tool=m.group(1) if m else None,
        call_id=as_text(a.get("tool_call_id")),
        args=None,
        result=None,
        status="error" if failed else "ok",
        error=err,
        error_type=etype,
        http_status=status_code,
        attrs={
            "method": method(span),
            "path": path,
            "span_kind": span.kind,
            "server": a.get("server.address"),
            "client": a.get("client.address"),
        },
    )
