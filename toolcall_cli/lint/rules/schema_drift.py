"""\
What it does
    With ``--lock FILE``, compares each tool's fingerprint (sha256 of its canonical parameters
    schema) with the lock written by ``--update-lock``, and classifies every change. Breaking
    (error): property removed, newly required, type narrowed, enum shrunk, tool removed.
    Non-breaking (warning): property added, type widened, enum grown, no longer required,
    constraints or descriptions changed, tool added.

Why it matters
    Tool schemas are an API contract with prompts, cached conversations and the tool service.
    A breaking change makes calls that used to validate fail; CI should make it deliberate.

Example
    The lock has ``unit`` with ``enum: ["C", "F", "K"]``; the file now says ``["C", "F"]``.

Fix
    If the change is intended, run ``toolcall lint --update-lock`` and commit the lock (and
    version the tool when it breaks callers); otherwise restore the schema."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from toolcall_cli.lint.base import LintContext, finding, registry_rule
from toolcall_cli.lint.lock import diff_schemas, fingerprint, read_lock
from toolcall_cli.model.findings import Finding, Location, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC012",
    "schema-drift",
    Severity.error,
    "a tool schema differs from the lock file",
    doc=__doc__,
)
_FIX = "run `toolcall lint --update-lock` if the change is intended, else restore the schema"


@registry_rule(RULE)
def check(tools: Sequence[ToolDef], ctx: LintContext) -> Iterator[Finding]:
    """Tools added, removed or changed since the lock."""
    if ctx.lock is None:
        return
    locked, lines = read_lock(ctx.lock)
    current: dict[str, ToolDef] = {}
    for t in tools:
        current[t.name] = t
    for name, t in current.items():
        entry = locked.get(name)
        if not isinstance(entry, dict):
            yield finding(
                RULE,
                t,
                t.pointer,
                f'tool "{name}" is not in the lock (added)',
                fix=_FIX,
                severity=Severity.warning,
                extra={"breaking": False},
            )
            continue
        if entry.get("sha256") == fingerprint(t):
            continue
        try:
            changes = list(
                diff_schemas(entry.get("schema"), t.schema_raw if t.schema_raw is not None else {})
            )
        except RecursionError:  # nested deeper than Python recurses: say only that it differs
            changes = []
        breaking = [c for c in changes if c.breaking]
        shown = breaking or changes
        text = "; ".join(f"{c.kind} {c.pointer or '/'}" for c in shown[:6]) or "fingerprint differs"
        ptr = t.schema_pointer + (shown[0].pointer if shown else "")
        yield finding(
            RULE,
            t,
            ptr,
            f'tool "{name}" drifted from the lock '
            f"({'breaking' if breaking else 'non-breaking'}): {text}",
            fix=_FIX,
            severity=None if breaking else Severity.warning,
            extra={"breaking": bool(breaking)},
        )
    for name in locked:
        if name not in current:
            ptr = join("/tools", name)
            yield Finding.of(
                RULE,
                f'tool "{name}" was removed (breaking)',
                fix=_FIX,
                tool=name,
                location=Location(path=str(ctx.lock), line=lines.line(ptr), pointer=ptr),
                extra={"breaking": True},
            )
