"""MCP semantic conventions: `mcp.method.name`, `jsonrpc.request.id`, `mcp.session.id`.

A `tools/call` span is a tool execution (the GenAI attributes it also carries, `gen_ai.tool.name`
and friends, are read by the GenAI mapper); the JSON-RPC id becomes `request_id` and the MCP
session the session. Other methods (`initialize`, `tools/list`, notifications) carry no call.
"""

from __future__ import annotations

from toolcall_cli.sources.otel.model import Span


def is_mcp(span: Span) -> bool:
    """A span of an MCP client or server."""
    return isinstance(span.attrs.get("mcp.method.name"), str)


def is_tool_call(span: Span) -> bool:
    """A `tools/call` span: a tool execution (`fast_rows` maps it)."""
    return span.attrs.get("mcp.method.name") == "tools/call"
