"""What a selective store read matches: rows holding one of a set of ids, and the id-less wire
responses of the captures the selection touched.

The match is evaluated with compute kernels on the rows at hand, not as a dataset expression,
so a one-trace read never loads Arrow's dataset and query engine (store/read_selection.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import WIRE_SOURCES

#: The id columns a selection follows from row to row.
LINKS = ("trace_id", "tool_call_id", "request_id")
#: The columns a match reads (the ids, and what tells an id-less capture response).
KEYS = ["source", "kind", "origin", "session_id", *LINKS]
#: What separates a capture's path from the frame number in an origin.
FRAME = "#frame="


@dataclass(slots=True)
class Wanted:
    """What a selection matches: rows whose id columns hold one of *ids* (column -> values),
    and the id-less wire responses of the captures *captures* (they join their request by TCP
    stream)."""

    ids: dict[str, set[str]]
    captures: set[str]

    def mask(self, table: pa.Table) -> pa.ChunkedArray:
        """Which rows of *table* (holding the `KEYS` columns) the selection matches."""
        hit = pa.chunked_array([pa.array(np.zeros(table.num_rows, dtype=bool))])
        for col, values in self.ids.items():
            if values:
                want = pa.array(sorted(values), pa.large_string())
                hit = pc.or_(hit, pc.is_in(table[col], value_set=want))
        if self.captures:
            wire = pc.and_(
                pc.is_in(table["source"], value_set=pa.array(WIRE_SOURCES, pa.large_string())),
                pc.equal(table["kind"], "http_response"),
            )
            idless = pc.and_(wire, pc.is_null(table["tool_call_id"]))
            of = pa.chunked_array([pa.array(np.zeros(table.num_rows, dtype=bool))])
            for name in sorted(self.captures):
                of = pc.or_(of, pc.starts_with(table["origin"], f"{name}{FRAME}"))
            hit = pc.or_(hit, pc.fill_null(pc.and_(idless, of), False))
        return pc.fill_null(hit, False)


def values_of(tables: list[pa.Table], col: str) -> set[str]:
    """The distinct non-blank values of *col* across *tables* (the ids found this round)."""
    out: set[str] = set()
    for t in tables:
        vals = t.column(col).unique().to_pylist()
        out |= {str(v) for v in vals if v is not None and str(v).strip()}
    return out
