"""\
What it does
  Flags tool results that report a failure — the event says so (`status: error`, MCP
  `isError: true`, an `is_error` block, an `error.type`) or the content does (`{"isError":
  true}`, `{"status": "error"}`, an `error` member, text starting `Error`/`Traceback`) — in
  a form the model cannot act on. Cannot act on means: once exception class names, codes
  and numbers, stack frames, punctuation and the words every failure shares ("error",
  "failed", "internal", "server", "unknown", "occurred", "something went wrong", "please try
  again", "not", …) are set aside, fewer than two words are left that say what went wrong
  with this call. So no content, a bare code or type (`500`, `{"error": {"type":
  "InternalError"}}`), a generic phrase (`Internal Server Error`, `Request failed with status
  code 500`) or a bare stack trace (`KeyError: 'city'`) fire; `Error: flight HAT030 not
  available` or `Unknown city 'Pariss'` do not. Timeouts are TM001's; a call to a name no
  tool has (PR002) and JSON-RPC protocol errors (codes -32768…-32000) never ran a tool.

Why it matters
  The tool ran and failed, and the model learns only that: it cannot tell a wrong argument
  from an outage, so it repeats the same call (FL001), invents a result, or gives up on a
  task a corrected call would finish.

Example
  `get_invoice {"id": "INV-7"}` answered `{"status": "error", "code": 500}`; the model
  calls it again unchanged.

Fix
  Return tool errors as a short sentence the model can act on: what failed, which argument
  or state caused it, and what to do instead (`invoice INV-7 not found; list invoices with
  list_invoices`); keep stack traces and codes in your logs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.diagnose.kit.call_label import tool_to_call, tools_by_call
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects
from toolcall_cli.diagnose.kit.tool_failures import (
    actionable,
    is_timeout,
    may_report_failure,
    result_failure,
    result_rows,
)
from toolcall_cli.diagnose.rules.protocol.tool_names import name_checks
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

RULE = rule(
    "PR011",
    "tool-execution-error",
    Severity.warning,
    "the tool ran and reported failure (isError: true, status: error, error.type), and the "
    "model was not told in words it can act on",
    doc=__doc__,
)
#: The member that reports the failure, raw or JSON-escaped inside a result string.
_SIGNAL = r'\\?"(?:isError|status|error|success|ok)\\?"\s*:\s*(?:\\?"[^"\\]*\\?"|true|false|\{)'


def _never_ran(ctx: DiagnoseContext) -> set[str]:
    """Ids of the calls to names no tool has (PR002's): their error is not a tool's."""
    return {
        cid
        for code, _sid, _name, _hint, rows in name_checks(ctx)
        if code == "PR002"
        for raw in rows["tool_call_id"].tolist()
        if (cid := text(raw))
    }


def _protocol_error(a: dict[str, Any]) -> bool:
    """A JSON-RPC error of the reserved range: the request failed before any tool ran."""
    code = a.get("error_code")
    return isinstance(code, int) and not isinstance(code, bool) and -32768 <= code <= -32000


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR011: one finding per result that reports a failure without actionable words."""
    rows = result_rows(ctx)
    rows = rows[may_report_failure(rows)]
    if not len(rows):
        return
    tools = None
    seen = _never_ran(ctx)
    for label, cid_raw, tool_raw, status, a, detail in zip(
        rows.index.tolist(),
        objects(rows, "tool_call_id"),
        objects(rows, "tool"),
        objects(rows, "status"),
        rows["_attrs"].tolist(),
        objects(rows, "detail"),
        strict=True,
    ):
        failure = result_failure(status, a, detail)
        if failure is None or _protocol_error(a):
            continue
        said = failure.message
        if actionable(said) or is_timeout(said) or is_timeout(text(detail) or ""):
            continue
        cid = text(cid_raw)
        key = cid or f"#{label}"
        if key in seen:
            continue
        seen.add(key)
        if tools is None:
            tools = tools_by_call(ctx.events())
        tool = text(tool_raw) or (tools.get(cid) if cid else None)
        words = f"only {_clip(said)!r}" if said.strip() else "no words at all"
        yield make(
            RULE,
            ctx,
            f"{tool_to_call(tool or 'the tool', cid)} reported a failure ({failure.signal}) "
            f"and the model got {words}: nothing says what to change",
            [label],
            call_ids=[cid or None],
            tool=tool,
            extra={"signal": failure.signal},
            aim=Aim(pattern=_SIGNAL, needle=said.strip()[:80] or None),
        )


def _clip(s: str, limit: int = 80) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"
