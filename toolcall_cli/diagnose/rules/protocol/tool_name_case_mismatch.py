"""\
What it does
  Reports called names that equal a registered tool only when case is ignored
  (`Get_Weather` for `get_weather`).

Why it matters
  Tool lookup is case-sensitive in most middlewares and providers; the call is rejected
  although the model meant the right tool.

Example
  `SearchFlights` called; the registry has `searchFlights`.

Fix
  Normalise names in one place (or reject similar names at registration: `toolcall lint`
  SC004) and keep one casing convention.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.incidents import BLOCKED
from toolcall_cli.diagnose.rules.protocol.tool_names import name_checks
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import plural

RULE = rule(
    "PR003",
    "tool-name-case-mismatch",
    Severity.error,
    "a name that matches a tool only ignoring case",
    doc=__doc__,
    explains=(BLOCKED,),
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR003: one finding per (session, name) that matches a tool only ignoring case."""
    for code, sid, name, hint, rows in name_checks(ctx):
        if code != RULE.code:
            continue
        ids = [t for c in rows["tool_call_id"] if (t := text(c))]
        calls = plural(len(ids) or len(rows), "call")
        yield make(
            RULE,
            ctx,
            f"{calls} to {name!r}; the tool is {hint!r} (case-sensitive)",
            rows,
            call_ids=ids,
            session_id=sid or None,
            tool=name,
            extra={"tool_name": hint},
            aim=Aim(key="name", needle=name),
        )
