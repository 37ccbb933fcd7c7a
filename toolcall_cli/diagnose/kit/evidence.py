"""Evidence as the rules cite it: the origin of each proving row and a one-line stand-in text.

Rules never open input files. A finding's evidence is the origins of the rows that prove it
(DESIGN §3: ``path:line``, ``path#/json/pointer``, ``path#frame=N``), one entry per distinct
origin, each with the event's own cells as a one-line text (kind, tool, id, status, detail,
args): at once when the rule holds the rows, else (`Cited`) the row label, read by `stand_in`
only when the quote needs it. `model.quoting` turns them into quotes of the input, once, after
classification; the event's text is what a frame summary uses and what stands in when an origin
cannot be quoted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import event_columns
from toolcall_cli.model.findings import Evidence

if TYPE_CHECKING:
    import pandas as pd

#: The event columns evidence reads (`row_text` and the origin).
ROW_COLUMNS = ("origin", "kind", "tool", "tool_call_id", "http_status", "detail", "args")


def row_text(row: Any) -> str:
    """A one-line stand-in for an event (quoted and redacted later, with the quote)."""
    parts: list[str] = []
    for col in ("kind", "tool", "tool_call_id", "http_status", "detail", "args"):
        val = row.get(col) if hasattr(row, "get") else None
        if missing(val) or val == "":
            continue
        parts.append(f"{col}={val}" if col in ("tool_call_id", "http_status") else str(val))
    return " ".join(parts).replace("\n", " ")


def evidence(rows: pd.DataFrame, limit: int = 5) -> tuple[Evidence, ...]:
    """Evidence for the first *limit* rows (in their order), one entry per distinct origin."""
    if rows is None or not len(rows):
        return ()
    return evidence_from(*frame_cells(rows, limit), limit)


def frame_cells(
    rows: pd.DataFrame, limit: int
) -> tuple[list[Any], Callable[[int], dict[str, Any]]]:
    """The origins of the first rows of *rows* that can give *limit* distinct entries, and the
    `ROW_COLUMNS` cells of the k-th of them (the two arguments of `evidence_from`)."""
    head = rows.head(limit * 10)  # enough to find *limit* distinct origins in practice
    values = {c: head[c].tolist() for c in ROW_COLUMNS if c in head.columns}
    return values.get("origin", []), lambda k: {c: v[k] for c, v in values.items()}


def evidence_from(
    origins: Sequence[Any], row: Callable[[int], dict[str, Any]], limit: int = 5
) -> tuple[Evidence, ...]:
    """`evidence` over the origins of the cited rows, in order; ``row(k)`` gives the cells of
    the k-th (`ROW_COLUMNS`), read only for the rows that make an entry.

    Findings are many on a large store: no DataFrame slice per finding, no cell read in vain.
    """
    out: list[Evidence] = []
    seen: set[str] = set()
    for k, cell in enumerate(origins):
        origin = str(None if missing(cell) else cell)
        if origin in seen:
            continue
        seen.add(origin)
        cells = {c: (None if missing(v) else v) for c, v in row(k).items()}
        out.append(Evidence(origin=origin, text=row_text(cells)))
        if len(out) >= limit:
            break
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Cited(Evidence):
    """Evidence cited by row label: its text is the event's, read when a quote needs it."""

    row: int | None = None  # label in the context's event table


def cited_from(origins: Sequence[Any], labels: Sequence[int], limit: int = 5) -> tuple[Cited, ...]:
    """`evidence_from` for rows cited by label (``origins[k]`` is row ``labels[k]``'s): the
    cells stay in the table until `stand_in` reads them (findings are many on a large store,
    and most origins quote without them)."""
    out: list[Cited] = []
    seen: set[str] = set()
    for k, cell in enumerate(origins):
        origin = str(None if missing(cell) else cell)
        if origin in seen:
            continue
        seen.add(origin)
        out.append(Cited(origin=origin, text="", row=int(labels[k])))
        if len(out) >= limit:
            break
    return tuple(out)


def stand_in(ctx: DiagnoseContext) -> Callable[[Evidence], str]:
    """The event's own text for an evidence entry: `Cited` rows read from *ctx*'s table."""

    def text_of(e: Evidence) -> str:
        if not isinstance(e, Cited) or e.row is None:
            return e.text
        cols = event_columns(ctx)
        cells = {c: cols.at(c, e.row) for c in ROW_COLUMNS if c in cols}
        return row_text({c: (None if missing(v) else v) for c, v in cells.items()})

    return text_of


def missing(v: Any) -> bool:
    """A null cell: None, pandas NA/NaT or a float NaN (cheap; called per cited value)."""
    import pandas as pd

    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v)
