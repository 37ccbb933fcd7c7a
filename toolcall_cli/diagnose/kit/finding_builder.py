"""Building a finding: ids, trace, session and tool from the cited rows; explanation and fix
from the rule's documentation; evidence as origins (quoted later, see `model.quoting`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.evidence import cited_from, evidence_from, frame_cells, missing
from toolcall_cli.diagnose.kit.frames import event_columns
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Evidence, Finding, Rule

_HEADING = re.compile(r"^(What it does|Why it matters|Example|Fix)\s*:?\s*$", re.M)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from toolcall_cli.model.quoting.aim import Aim

    #: What a finding is proven by: a frame of event rows, or the labels of rows of the context's
    #: event table (`ctx.events()`; its index is 0..n-1) — cheaper when findings are many.
    Rows = pd.DataFrame | Sequence[int] | np.ndarray


def doc_section(rule: Rule, heading: str) -> str | None:
    """The text under *heading* in the rule's doc, as one paragraph."""
    parts = _HEADING.split(rule.doc)
    for i in range(1, len(parts) - 1, 2):
        if parts[i] == heading:
            body = " ".join(line.strip() for line in parts[i + 1].strip().splitlines())
            return body or None
    return None


def make(
    rule: Rule,
    ctx: DiagnoseContext,
    message: str,
    rows: Rows,
    *,
    call_ids: Iterable[str | None] = (),
    session_id: str | None = None,
    trace_id: str | None = None,
    tool: str | None = None,
    extra: dict[str, Any] | None = None,
    explanation: str | None = None,
    fix: str | None = None,
    limit: int = 5,
    aims: Mapping[int, Aim] | None = None,
    aim: Aim | None = None,
    **kw: Any,
) -> Finding:
    """A finding of *rule* proven by *rows*: ids, trace and session filled from the rows.

    The evidence is the rows' origins with their own text; `model.quoting` quotes it (and sets
    the location from the first origin) once every rule has run, each quote a window around
    what *aims* (row label → `Aim`) names as the point of that row; *aim* is the point of
    every row *aims* does not name.
    """
    import pandas as pd

    ids = _unique(text(c) for c in call_ids)
    if isinstance(rows, pd.DataFrame):
        cells = _frame_cells(rows, limit)
    else:
        cells = _label_cells(ctx, rows, limit)
    if session_id is None:
        session_id = _first(cells["session_id"])
    if trace_id is None:
        trace_id = _first(cells["trace"])
    if trace_id is None and ids:
        trace_id = ctx.trace_of(ids[0])
    if tool is None:
        tool = _first(cells["tool"])
    if isinstance(rows, pd.DataFrame):
        proof: tuple[Evidence, ...] = evidence_from(cells["origins"], cells["row"], limit=limit)
    else:
        proof = cited_from(cells["origins"], cells["labels"], limit=limit)
    if aims or aim:
        proof = _aimed(proof, rows, cells, aims or {}, aim)
    return Finding.of(
        rule,
        message,
        trace_id=trace_id,
        session_id=session_id,
        tool_call_ids=ids,
        evidence=proof,
        explanation=explanation or _doc(rule, "Why it matters"),
        fix=fix or _doc(rule, "Fix"),
        tool=tool,
        extra=extra or {},
        **kw,
    )


def _aimed(
    proof: tuple[Evidence, ...],
    rows: Rows,
    cells: dict[str, Any],
    aims: Mapping[int, Aim],
    default: Aim | None,
) -> tuple[Evidence, ...]:
    """*proof* with each entry's aim: the aim of the first cited row with its origin (or
    *default*)."""
    import pandas as pd

    labels = rows.index.tolist() if isinstance(rows, pd.DataFrame) else cells["labels"]
    by_origin: dict[str, Aim] = {}
    for origin, label in zip(cells["origins"], labels, strict=False):
        chosen = aims.get(label, default)
        if chosen is not None:
            by_origin.setdefault(str(None if missing(origin) else origin), chosen)
    return tuple(replace(e, aim=by_origin[e.origin]) if e.origin in by_origin else e for e in proof)


def _frame_cells(rows: pd.DataFrame, limit: int) -> dict[str, Any]:
    origins, row = frame_cells(rows, limit)
    return {
        "session_id": _column_list(rows, "session_id"),
        "trace": _column_list(rows, "trace"),
        "tool": _column_list(rows, "tool"),
        "origins": origins,
        "row": row,
    }


def _column_list(rows: pd.DataFrame, col: str) -> list[Any]:
    return rows[col].tolist() if col in rows.columns else []


def _label_cells(
    ctx: DiagnoseContext, rows: Sequence[int] | np.ndarray, limit: int
) -> dict[str, Any]:
    labels = [int(x) for x in rows]
    cols = event_columns(ctx)
    return {
        "session_id": cols.pick("session_id", labels),
        "trace": cols.pick("trace", labels),
        "tool": cols.pick("tool", labels),
        "origins": cols.pick("origin", labels[: limit * 10]),
        "labels": labels[: limit * 10],
    }


def _first(values: list[Any]) -> str | None:
    for v in values:
        if not missing(v):
            return str(v)
    return None


def _doc(rule: Rule, heading: str) -> str | None:
    key = (rule.code, heading)
    if key not in _DOCS:
        _DOCS[key] = doc_section(rule, heading)
    return _DOCS[key]


_DOCS: dict[tuple[str, str], str | None] = {}


def _unique(items: Iterable[str | None]) -> list[str]:
    out: list[str] = []
    for x in items:
        if x is not None and x not in out:
            out.append(x)
    return out
