"""mcp adapter: MCP JSON-RPC transcripts (stdio sessions, tee recordings, logs, Inspector).

Why these kinds. An MCP `tools/call` is the host handing one call to the tool server and the
response is what the model is then given, so the request is a ``tool_call`` (tool =
``params.name``, args = ``params.arguments`` as JSON text, tool_call_id = the JSON-RPC id) and
the response a ``tool_result`` (status ``error`` for ``isError: true`` and for JSON-RPC errors,
``detail`` = the text content, ``structuredContent`` in attrs). That is what alignment and
OR001/OR002 pair by id: a cancelled call that never got a response is a call without a result,
as it is for the model. The exchange kinds (``http_request``/``mw_request``) would say a
request reached a tool *service* over HTTP and need a call beside them; MCP has none.

``tools/list`` results are ``system`` rows "tools declared" with the raw list in
``attrs.tools``, exactly as the messages adapter records declared tools, so PR002 and replay's
registry find them per session. What nothing existing fits gets its own kind:
``mcp_progress`` (``notifications/progress``, tied to its call by the progress token),
``mcp_cancelled`` (``notifications/cancelled``, tool_call_id = the cancelled call),
``mcp_tools_changed`` (``notifications/tools/list_changed``) and ``mcp_message`` (every other
request, response and notification: initialize, ping, resources/read, errors of those).

Times come from the layout (tee ``ts``, a log line's leading time); a plain stdio transcript
has none, and its events keep only their order. Revisions 2025-06-18, 2025-11-25 and
2026-07-28 (no initialize; version in each request's `_meta`) read alike; the revision in force
is kept as ``attrs.protocol_version``. A line that is not JSON-RPC is an ``unparsed`` row.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from toolcall_cli.model.events import build_frame, validate_frame
from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.sources._shared.files import decode_text, read_bytes
from toolcall_cli.sources._shared.logtime import check_tz, epoch_to_utc, parse_times
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.mcp.records import from_inspector, from_lines, looks_like_inspector
from toolcall_cli.sources.mcp.session import rows_of

SOURCE: Final = "mcp"
_INSPECTOR_HINT = re.compile(r'"request"\s*:\s*(?:"\{\\"|\{\s*")(?:jsonrpc|method|id)\b')
_COLUMNS: Final = ("kind", "session_id", "tool_call_id", "tool", "args", "status", "detail", "size")


class McpAdapter:
    """JSON-RPC messages of MCP sessions."""

    name = SOURCE
    samples: tuple[str, ...] = (
        "fixtures/mcp/session_2025-11-25.jsonl",
        "fixtures/mcp/session_2025-11-25.raw.jsonl",
        "fixtures/mcp/session_2025-11-25.log",
        "fixtures/mcp/session_2025-11-25.inspector.json",
        "fixtures/mcp/session_2025-06-18.jsonl",
        "fixtures/mcp/session_2026-07-28.jsonl",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """96 when most lines (at least two) are JSON-RPC messages, bare, wrapped or logged;
        60 when a few are; 94 for an Inspector history; 0 otherwise."""
        text = decode_text(head)
        s = text.lstrip()
        if not s:
            return 0
        if s[0] in "[{" and _INSPECTOR_HINT.search(text[:4096]):
            doc = try_loads(text) if len(head) < HEAD_BYTES else None
            return 94 if doc is None or looks_like_inspector(doc) else 0
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(head) >= HEAD_BYTES and len(lines) > 1:
            lines = lines[:-1]  # the last line may be cut
        lines = lines[:200]
        if not lines or "jsonrpc" not in text:
            return 0
        records = list(from_lines(lines))
        ok = sum(1 for r in records if r.message is not None and r.message.get("jsonrpc"))
        if ok < 2:  # one saved message (a tools/list answer kept as a tool file) is no session
            return 0
        return 96 if ok * 2 >= len(records) else 60

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Read the records of the file's layout and pair them into events."""
        tz = check_tz(opts.tz)
        text = decode_text(read_bytes(path, limit=opts.max_decompressed))
        if opts.progress:
            opts.progress(0, len(text))
        s = text.lstrip()
        doc = try_loads(text) if s[:1] in ("[", "{") else None
        if doc is not None and looks_like_inspector(doc):
            records = list(from_inspector(doc))
        else:
            records = list(from_lines(text.splitlines()))
        del text, doc
        rows = rows_of(records, path.name.split(".", 1)[0] or path.name)
        if opts.progress:
            opts.progress(1, 1)
        return validate_frame(_frame(rows, str(path), tz))


ADAPTER = McpAdapter()


def _frame(rows: list[dict[str, Any]], path: str, tz: str) -> pd.DataFrame:
    n = len(rows)
    ts = _times([r.get("ts") for r in rows], tz)
    ns = ts.to_numpy(dtype="datetime64[ns]").astype(np.int64)
    ok = ts.notna().to_numpy()
    duration: list[float | None] = [None] * n
    for i, r in enumerate(rows):
        j = r.get("_req")
        if j is not None and ok[i] and ok[j]:
            duration[i] = (ns[i] - ns[j]) / 1e6
    return build_frame(
        {
            "ts": ts,
            "seq": np.arange(n, dtype=np.int64),
            "source": [SOURCE] * n,
            "origin": [f"{path}{r['pointer']}" for r in rows],
            **{c: [r.get(c) for r in rows] for c in _COLUMNS},
            "duration_ms": np.array([np.nan if d is None else d for d in duration]),
            "attrs": [_attrs(r.get("attrs")) for r in rows],
        },
        n=n,
    )


def _attrs(a: dict[str, Any] | None) -> str | None:
    clean = {k: v for k, v in (a or {}).items() if v is not None}
    return dumps(clean) if clean else None


def _times(values: list[Any], tz: str) -> pd.Series:
    """Recorded times (ISO text, or epoch numbers) as UTC; absent ones are NaT."""
    nums = np.array(
        [
            float(v) if isinstance(v, int | float) and not isinstance(v, bool) else np.nan
            for v in values
        ]
    )
    texts = pa.array([v if isinstance(v, str) else None for v in values], type=pa.string())
    out = parse_times(texts, tz)
    if np.isfinite(nums).any():
        out = out.where(~np.isfinite(nums), epoch_to_utc(nums))
    return out
