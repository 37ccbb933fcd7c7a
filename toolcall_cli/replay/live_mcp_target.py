"""Where `replay --mcp-command` / `--mcp-url` sends the recorded calls, checked before any
evidence is read.

`--mcp-command "CMD ARGS"` is split as a shell would (no shell runs it) and started by the SDK's
stdio client with the SDK's minimal environment (PATH, HOME, ...: the user's secrets in other
variables do not reach it). `--mcp-url` follows live replay's rules (`replay.live_http`):
an http(s) URL whose host resolves, once, to loopback addresses only unless
``--allow-remote``; the connection goes to that checked address (an ``http`` URL is rewritten
to the address literal, so a resolver answering differently later is never asked), no proxy
is read from the environment, and userinfo is sent as Basic credentials but never shown.
"""

from __future__ import annotations

import base64
import shlex
from dataclasses import dataclass, field
from typing import Literal

from toolcall_cli.errors import UsageError
from toolcall_cli.replay.live_http import parse_target, resolve

_HINT = "pass --mcp-command 'python server.py' (stdio) or --mcp-url http://127.0.0.1:PORT/mcp"


@dataclass(frozen=True, slots=True)
class McpTarget:
    """A checked MCP server to replay against."""

    transport: Literal["stdio", "http"]
    shown: str  # for output: the command line, or the URL with userinfo redacted
    argv: tuple[str, ...] = ()  # stdio: the command and its arguments
    url: str = ""  # http: the URL to connect to (pinned to the checked address)
    headers: dict[str, str] = field(default_factory=dict)  # http: Authorization from userinfo


def check_mcp_target(
    command: str | None,
    url: str | None,
    *,
    http_target: str | None = None,
    allow_remote: bool = False,
) -> McpTarget:
    """The MCP server named by `--mcp-command` or `--mcp-url` (exactly one; not with
    `--target`); a bad value is a UsageError."""
    if command is not None and url is not None:
        raise UsageError("give --mcp-command or --mcp-url, not both", hint=_HINT)
    if http_target is not None:
        raise UsageError("--target and --mcp-command/--mcp-url are different replays: pick one")
    if command is not None:
        try:
            argv = tuple(shlex.split(command))
        except ValueError as e:  # an unclosed quote
            raise UsageError(f"--mcp-command does not parse: {e}", hint=_HINT) from None
        if not argv:
            raise UsageError("--mcp-command is empty", hint=_HINT)
        return McpTarget("stdio", shown=shlex.join(argv), argv=argv)
    if url is None:
        raise UsageError("no MCP server named", hint=_HINT)
    try:
        target = parse_target(url)
        addr = resolve(target, allow_remote=allow_remote)[0]
    except UsageError as e:  # live_http's messages name --target: say which flag it was
        raise UsageError(e.message.replace("--target", "--mcp-url"), hint=e.hint) from None
    headers = {}
    if target.auth is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(target.auth.encode()).decode()
    host = target.host
    if target.scheme == "http":  # pinned: TLS needs the name for the certificate, http does not
        host = f"[{addr}]" if ":" in addr else addr
    elif ":" in host:
        host = f"[{host}]"
    pinned = f"{target.scheme}://{host}:{target.port}{target.base_path}"
    return McpTarget("http", shown=target.shown, url=pinned, headers=headers)
