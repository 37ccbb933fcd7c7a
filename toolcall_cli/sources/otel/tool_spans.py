"""Span records (protobuf, Tempo, Jaeger, Langfuse exports, and the spans of a JSON-lines file
the column-wise path leaves to records) → the columns `fast_rows.tool_rows` reads: tool
executions have one mapping whatever the encoding they came in."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources.otel.exchange import as_text
from toolcall_cli.sources.otel.fast_columns import COLUMNS
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


class RecordAttrs(Mapping[str, pa.Array]):
    """One text column per wanted key over the records (values as `exchange.as_text` writes
    them; null where a span lacks the key)."""

    def __init__(self, spans: list[Span]) -> None:
        self._cols = {k: pa.array([as_text(s.attrs.get(k)) for s in spans], pa.string())
                      for k in COLUMNS}  # fmt: skip

    def __getitem__(self, name: str) -> pa.Array:
        return self._cols[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols)

    def __len__(self) -> int:
        return len(self._cols)

    def rows(self, name: str, spans: np.ndarray) -> pa.Array:
        """Column *name* of the records numbered *spans*."""
        return self._cols[name].take(pa.array(spans))


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
