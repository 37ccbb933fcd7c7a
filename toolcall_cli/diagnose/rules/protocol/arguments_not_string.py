"""\
What it does
  Flags tool calls whose `function.arguments` was sent as a JSON object (or number, array)
  instead of a JSON-encoded string.

Why it matters
  OpenAI-compatible APIs require a string; replaying such a history is rejected by strict
  providers ("function.arguments must be in JSON format") while lenient ones accept it, so it
  breaks when traffic moves.

Example
  `"function": {"name": "search", "arguments": {"q": "paris"}}`.

Fix
  Serialise arguments with `json.dumps` before adding the assistant message to the history.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.call_label import call_label
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects
from toolcall_cli.diagnose.kit.incidents import BLOCKED
from toolcall_cli.diagnose.rules.protocol.call_rows import call_rows, per_call, row_mask
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

RULE = rule(
    "PR007",
    "arguments-not-string",
    Severity.warning,
    "`function.arguments` given as an object",
    doc=__doc__,
    explains=(BLOCKED,),
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR007: calls whose arguments were sent as an object (attrs.args_type != "string")."""
    calls = call_rows(ctx)
    kinds = [a.get("args_type") for a in calls["_attrs"].tolist()]
    flagged = calls[row_mask(calls, [k is not None and k != "string" for k in kinds])]
    tool_of = dict(zip(flagged.index.tolist(), objects(flagged, "tool"), strict=True))
    attrs_of = dict(zip(flagged.index.tolist(), flagged["_attrs"].tolist(), strict=True))
    for cid, labels in per_call(flagged):
        tool = text(tool_of[labels[0]])
        yield make(
            RULE,
            ctx,
            f"the arguments of {call_label(cid, tool)} were sent as a JSON "
            f"{attrs_of[labels[0]].get('args_type')}, not as a string",
            labels,
            call_ids=[cid or None],
            aim=Aim(key="arguments"),
        )
