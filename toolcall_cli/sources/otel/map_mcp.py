"""MCP semantic conventions: `mcp.method.name`, `jsonrpc.request.id`, `mcp.session.id`.

A `tools/call` span is a tool execution (the GenAI attributes it also carries, `gen_ai.tool.name`
and friends, are read by the GenAI mapper); the JSON-RPC id becomes `request_id` and the MCP
session the session. Other methods (`initialize`, `tools/list`, notifications) carry no call.
"""

from __future__ import annotations

from toolcall_cli.sources.otel import map_genai
from toolcall_cli.sources.otel.exchange import ToolRun, ident
from toolcall_cli.sources.otel.model import Span


def is_mcp(span: Span) -> bool:
    """A span of an MCP client or server."""
    return isinstance(span.attrs.get("mcp.method.name"), str)


def tool_run(span: Span, session: str | None) -> ToolRun | None:
    """The tool execution of a `tools/call` span (None for other methods)."""
    a = span.attrs
    method = a["mcp.method.name"]
    if method != "tools/call":
        return None
    run = map_genai.tool_run(span, a.get("mcp.session.id") or session)
    run.convention = "mcp"
    if run.tool is None:
        name = a.get("mcp.tool.name")
        _, _, rest = span.name.partition(" ")
        run.tool = name if isinstance(name, str) else (rest.strip() or None)
    run.request_id = ident(a.get("jsonrpc.request.id"))
    run.attrs["mcp_method"] = method
    run.attrs["span_kind"] = span.kind
    return run
