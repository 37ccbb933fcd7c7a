"""\
What it does
  Counts the records of each input that no format could parse and quotes the first few with
  their file:line, so nothing is dropped silently.

Why it matters
  The line that explains an incident is often the odd one: a stack trace in a JSON log, a
  truncated write, a proxy's own format. If it cannot be parsed it is invisible to every
  other rule, so the count tells you how much evidence the diagnosis did not see.

Example
  app.log:57  {"ts": "2024-05-01T10:00:01Z", "event": "tool_call.received", "tool": "sea
  (a line cut off mid-record by log rotation)

Fix
  Look at the quoted lines. If they are a format toolcall does not know, describe it in
  toolcall.toml ([[formats]] with a regex and sample lines) or pass --source / --nginx-format;
  if they are damaged records, fix the writer (line buffering, rotation).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import with_attrs
from toolcall_cli.model.events import UNPARSED
from toolcall_cli.model.findings import Finding, Severity, rule

RULE = rule(
    "IN001",
    "unparsed-line",
    Severity.warning,
    "records no format could parse (count + first samples)",
    doc=__doc__,
)

SAMPLES = 3


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One finding per input file with unparsed records."""
    ev = with_attrs(ctx)
    bad = ev[ev["kind"] == UNPARSED]
    if not len(bad):
        return
    from toolcall_cli.model.origins import files_of  # pyarrow: only when the rule runs

    files = files_of(bad["origin"])
    for path, grp in bad.groupby(files, sort=True):
        n = len(grp)
        reasons = sorted({str(a.get("reason")) for a in grp["_attrs"] if a.get("reason")})
        why = f" ({'; '.join(reasons[:3])})" if reasons else ""
        yield make(
            RULE,
            ctx,
            f"{n} record{'s' if n != 1 else ''} of {path} could not be parsed{why}",
            grp,
            limit=SAMPLES,
            extra={"count": n, "file": str(path)},
        )
