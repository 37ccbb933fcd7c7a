"""Span records (protobuf, Tempo, Jaeger, Langfuse exports, and the spans of a JSON-lines file
the column-wise path leaves to records) → the columns `fast_rows.tool_rows` reads: tool
executions have one mapping whatever the encoding they came in."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources.otel.exchange import as_text, ident
from toolcall_cli.sources.otel.fast_columns import CODES, COLUMNS, IDS, TEXT_ONLY
from toolcall_cli.sources.otel.map_genai import span_error
from toolcall_cli.sources.otel.model import Span

#: Span kinds as OTLP numbers them (`fast_rows` tells server, 2, from client, 3).
_KINDS: Final = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}
_ARGS: Final = "gen_ai.tool.call.arguments"


@dataclass
class Failure:
    """What a span record adds to its columns: its error, and the session it was given."""

    error: pa.Array  # the exception message or status message (text)
    error_type: pa.Array
    err_set: np.ndarray  # a non-empty error message
    etype_set: np.ndarray
    span_failed: np.ndarray  # status code ERROR
    no_start: np.ndarray
    no_end: np.ndarray
    session: pa.Array


def _read(key: str, v: Any) -> str | None:
    """Value *v* of attribute *key* as the mapping reads it (`fast_columns.TEXT_ONLY` …)."""
    if v is None or isinstance(v, str):
        return v
    if key in TEXT_ONLY:
        return None
    if key in IDS:
        return ident(v)
    if key in CODES and isinstance(v, int | float) and not isinstance(v, bool):
        return str(int(v)) if math.isfinite(v) else None
    return as_text(v)


class RecordAttrs(Mapping[str, pa.Array]):
    """One text column per wanted key over the records (each value as the mapping reads it,
    `_read`; null where a span lacks the key), and where a value was not text."""

    def __init__(self, spans: list[Span]) -> None:
        values = {k: [s.attrs.get(k) for s in spans] for k in COLUMNS}
        self._cols = {k: pa.array([_read(k, v) for v in vs], pa.string())
                      for k, vs in values.items()}  # fmt: skip
        self._typed = {k: np.array([v is not None and not isinstance(v, str) for v in vs], bool)
                       for k, vs in values.items()}  # fmt: skip

    def __getitem__(self, name: str) -> pa.Array:
        return self._cols[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols)

    def __len__(self) -> int:
        return len(self._cols)

    def rows(self, name: str, spans: np.ndarray) -> pa.Array:
        """Column *name* of the records numbered *spans*."""
        return self._cols[name].take(pa.array(spans))

    def typed(self, name: str, spans: np.ndarray) -> np.ndarray:
        """Where the records numbered *spans* hold a value of *name* that is not text."""
        return self._typed[name][spans]


class SpanRecords:
    """Tool-execution span records, column by column."""

    def __init__(self, spans: list[Span], sessions: list[str | None]) -> None:
        n = self.n = len(spans)
        self.attrs = RecordAttrs(spans)
        self.slow = np.zeros(n, bool)
        self.kind = np.array([_KINDS.get(s.kind, 0) for s in spans], np.int64)
        self.name = pa.array([s.name for s in spans], pa.string())
        self.span = pa.array([s.span_id for s in spans], pa.string())
        self.trace = pa.array([s.trace_id for s in spans], pa.string())
        self.start = np.array([s.start_ns or 0 for s in spans], np.int64)
        self.end = np.array([s.end_ns or 0 for s in spans], np.int64)
        self._origin = pa.array([s.origin for s in spans], pa.string())
        self._args = pa.array([s.pointer(_ARGS) if _ARGS in s.attrs else s.origin for s in spans],
                              pa.string())  # fmt: skip
        errors = [span_error(s) for s in spans]
        self.failure = Failure(
            error=pa.array([e for e, _ in errors], pa.string()),
            error_type=pa.array([t for _, t in errors], pa.string()),
            err_set=np.array([bool(e) for e, _ in errors], bool),
            etype_set=np.array([bool(t) for _, t in errors], bool),
            span_failed=np.array([s.status == "error" for s in spans], bool),
            no_start=np.array([s.start_ns is None for s in spans], bool),
            no_end=np.array([s.end_ns is None for s in spans], bool),
            session=pa.array(sessions, pa.string()),
        )

    def row_origins(self, take: np.ndarray, is_tool: np.ndarray) -> list[pa.Array]:
        """(response origin, request origin) of records *take*: a tool call's request points
        at its arguments attribute, when it has one."""
        idx = pa.array(take)
        origin = self._origin.take(idx)
        return [origin, pc.if_else(pa.array(is_tool), self._args.take(idx), origin)]
