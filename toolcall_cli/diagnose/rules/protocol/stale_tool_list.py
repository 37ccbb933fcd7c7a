"""\
What it does
  Follows the tool list in force through each session. It fires when a call used a tool whose
  schema changed under it: the server announced a change (MCP
  `notifications/tools/list_changed`), the client called the tool before fetching the list
  again, and the next list shows that tool's input schema changed (or the tool gone); or when
  the schema the model was given for a tool (a chat request's `tools`, the conversation's tool
  block) has a different fingerprint from the schema the tool server declared (its `tools/list`)
  for the same session. Silent when a session declares no tool list, when the client fetched
  the list again before calling, or when the tool's schema did not change.

Why it matters
  The model built the arguments for a schema the server no longer validates against: the call
  fails validation (or, worse, passes with a meaning that changed), and nothing in the model's
  context says why.

Example
  `add(a, b)` is replaced by `add(a, b, c)` and the server sends `tools/list_changed`; the next
  `add` call still sends `{"a": 2, "b": 3}` and comes back "Field required: c".

Fix
  Refetch `tools/list` when `notifications/tools/list_changed` arrives and before the next model
  turn, pass the new list to the model, and version breaking schema changes under a new tool
  name instead of changing a tool in place.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import with_attrs
from toolcall_cli.diagnose.rules.protocol.tool_lists import (
    Declared,
    SessionLists,
    fingerprint,
    schema_change,
    session_lists,
)
from toolcall_cli.model.events import RESULT_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

RULE = rule(
    "PR010",
    "stale-tool-list",
    Severity.warning,
    "a call made against a tool list that changed during the session",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR010: calls made after a list change the client did not refetch, and tools whose
    schema differs between the model's view and the server's."""
    for sid, s in session_lists(ctx).items():
        yield from _after_change(ctx, sid, s)
        yield from _model_vs_server(ctx, sid, s)


def _after_change(ctx: DiagnoseContext, sid: str, s: SessionLists) -> Iterator[Finding]:
    server = [d for d in s.lists if d.server]
    for label, order, tool in s.calls:
        notices = [c for c in s.changes if c[1] < order]
        if not notices or order[0] == float("inf"):
            continue
        notice, noticed = notices[-1]
        if any(noticed < d.order < order for d in server):
            continue  # the client fetched the list again before calling
        in_force = _last(server, before=noticed)
        after = next((d for d in server if d.order > order), None)
        if in_force is None or after is None or tool not in in_force.schemas:
            continue
        old = in_force.schemas[tool]
        if tool in after.schemas and fingerprint(after.schemas[tool]) == fingerprint(old):
            continue
        what = schema_change(old, after.schemas[tool]) if tool in after.schemas else "removed"
        call_id = _cell(ctx, label, "tool_call_id")
        results = _results(ctx, sid, call_id)
        rows = [label, notice, in_force.label, after.label, *results]
        aims = {label: Aim(key="arguments", needle=tool), notice: Aim(needle="list_changed")}
        aims |= {in_force.label: Aim(needle=tool), after.label: Aim(needle=tool)}
        aims |= {r: Aim(key="text", needle="isError") for r in results}  # what the server said
        yield make(
            RULE,
            ctx,
            f"call to {tool!r} made after the server's tools/list_changed, before the client "
            f"fetched the list again: {tool!r} {what}",
            rows,
            call_ids=[call_id],
            session_id=sid,
            tool=tool,
            extra={"view": "after-change", "change": what},
            aims=aims,
        )


def _model_vs_server(ctx: DiagnoseContext, sid: str, s: SessionLists) -> Iterator[Finding]:
    model = [d for d in s.lists if not d.server]
    server = [d for d in s.lists if d.server]
    if not model or not server:
        return
    done: set[str] = set()
    for label, order, tool in s.calls:
        if tool in done:
            continue
        seen = _last(model, tool=tool)
        checked = _last(server, tool=tool, before=order) or _last(server, tool=tool)
        if seen is None or checked is None:
            continue
        if fingerprint(seen.schemas[tool]) == fingerprint(checked.schemas[tool]):
            continue
        done.add(tool)
        what = schema_change(seen.schemas[tool], checked.schemas[tool])
        yield make(
            RULE,
            ctx,
            f"the model was given another schema for {tool!r} than the tool server declared: "
            f"{what} on the server's side",
            [label, seen.label, checked.label],
            call_ids=[_cell(ctx, label, "tool_call_id")],
            session_id=sid,
            tool=tool,
            extra={"view": "model-vs-server", "change": what},
            aims={
                label: Aim(key="arguments", needle=tool),
                seen.label: Aim(needle=tool),
                checked.label: Aim(needle=tool),
            },
        )


def _last(
    items: list[Declared], *, tool: str | None = None, before: tuple[float, int] | None = None
) -> Declared | None:
    """The last list (in order) declaring *tool* (any, when None) before *before*."""
    found = [
        d
        for d in items
        if (tool is None or tool in d.schemas) and (before is None or d.order < before)
    ]
    return found[-1] if found else None


def _cell(ctx: DiagnoseContext, label: int, column: str) -> str | None:
    value = ctx.events().at[label, column]
    return value if isinstance(value, str) else None


def _results(ctx: DiagnoseContext, sid: str, call_id: str | None) -> list[int]:
    """Row labels of the call's result (what the server said to the stale call)."""
    if call_id is None:
        return []
    ev = with_attrs(ctx)
    hit = ev[
        (ev["tool_call_id"] == call_id) & (ev["session_id"] == sid) & ev["kind"].isin(RESULT_KINDS)
    ]
    return [int(x) for x in hit.index[:1]]
