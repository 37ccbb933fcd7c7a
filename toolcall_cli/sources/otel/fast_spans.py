"""The spans of a parsed block that only the per-span mappers read (model calls, failed spans,
indexed attribute families), as :class:`Span` records built from the block's columns.

Turning each such span into Python objects (`to_pylist`), dropping the null fields the
block's union schema added, and reading the objects again is costly per span; here the few
columns a Span holds are read as flat lists and each attribute's value is picked from its
typed fields, with the per-span reader's own rules (`otlp_json.keep_value`, `id_value`,
`time_value`: the same values, the same counted problems). Spans with events, and blocks
whose spans carry fields this does not know, take the per-span reader (`otlp_json._span`).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources.otel import otlp_json
from toolcall_cli.sources.otel.fast_columns import SpanColumns, field
from toolcall_cli.sources.otel.model import Batch, Span
from toolcall_cli.sources.otel.values import (
    SCALAR_FIELDS,
    any_value,
    scalar_value,
    span_kind,
    status_code,
)

#: Span fields a Span is made of, or that the per-span reader ignores.
_KNOWN: Final = frozenset(
    {
        "traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
        "endTimeUnixNano", "attributes", "events", "status", "traceState", "flags", "links",
        "droppedAttributesCount", "droppedEventsCount", "droppedLinksCount",
    }
)  # fmt: skip
_NESTED: Final = frozenset({"arrayValue", "kvlistValue"})
_CONTAINERS: Final = (dict, list)


def strip(obj: object) -> object:
    """A record as pyarrow gives it, without the null fields the union schema added (leaves
    are not passed to a call of their own: most of a record's values are leaves)."""
    if type(obj) is dict:
        return {
            k: strip(v) if type(v) in _CONTAINERS else v for k, v in obj.items() if v is not None
        }
    if type(obj) is list:
        return [strip(v) if type(v) in _CONTAINERS else v for v in obj]
    return obj


def _names(kind: pa.DataType) -> list[str]:
    return [kind.field(i).name for i in range(kind.num_fields)]


def _texts(arr: pa.Array | None, n: int) -> list[Any]:
    return arr.to_pylist() if arr is not None else [None] * n


def _checked_id(text: str, batch: Batch, what: str) -> str | None:
    """`otlp_json.id_value` of an id the block was checked to hold as lowercase hex of the
    right width (`fast_columns.span_columns`): itself, or None (counted) when all zeros."""
    if text.count("0") == len(text):
        batch.problems[f"bad_{what}"] += 1
        return None
    return text


def spans(cols: SpanColumns, at: np.ndarray, origins: list[str], batch: Batch) -> list[Span | None]:
    """The Span of each span *at* (file order, *origins* theirs), None where the per-span
    reader must read it (all None when the block's spans hold fields this does not know);
    problems are counted into *batch*."""
    sub = cols.spans.take(pa.array(at))
    kind = sub.type
    names = set(_names(kind))
    attrs = field(sub, "attributes")
    status = field(sub, "status")
    events = field(sub, "events")
    if not names <= _KNOWN or attrs is None or not pa.types.is_list(attrs.type):
        return [None] * len(at)
    if status is not None and not pa.types.is_struct(status.type):
        return [None] * len(at)
    if events is not None and not (pa.types.is_list(events.type) or pa.types.is_null(events.type)):
        return [None] * len(at)
    n = len(at)
    items = pc.list_flatten(attrs)
    offsets = (attrs.offsets.to_numpy() - attrs.offsets.to_numpy()[0]).tolist()
    item = dict(zip(_names(items.type), items.flatten(), strict=True)) if len(items) else {}
    keys = _texts(item.get("key"), len(items))
    value = item.get("value")
    typed: list[tuple[str, list[Any]]] = []
    nested: np.ndarray = np.zeros(len(items), bool)
    nested_at: set[int] = set()  # attributes holding an array or a kvlist
    if value is not None and pa.types.is_struct(value.type):
        parts = dict(zip(_names(value.type), value.flatten(), strict=True))
        if not set(parts) <= {*SCALAR_FIELDS, *_NESTED}:
            return [None] * n
        typed = [(k, parts[k].to_pylist()) for k in SCALAR_FIELDS if k in parts]
        for k in _NESTED & set(parts):
            nested |= parts[k].is_valid().to_numpy(zero_copy_only=False)
        nested_at = set(np.flatnonzero(nested).tolist())
    elif value is not None and not pa.types.is_null(value.type):
        return [None] * n
    # a span with events is read by the per-span reader
    per_span = np.zeros(n, bool)
    if events is not None and pa.types.is_list(events.type):
        lengths = pc.fill_null(pc.list_value_length(events), 0)
        per_span |= np.asarray(lengths.to_numpy(zero_copy_only=False)) > 0
    st = dict(zip(_names(status.type), status.flatten(), strict=True)) if status is not None else {}
    code, message = _texts(st.get("code"), n), _texts(st.get("message"), n)
    trace, span_id, parent = (
        _texts(field(sub, k), n) for k in ("traceId", "spanId", "parentSpanId")
    )
    name, kinds = _texts(field(sub, "name"), n), _texts(field(sub, "kind"), n)
    start, end = (_texts(field(sub, k), n) for k in ("startTimeUnixNano", "endTimeUnixNano"))
    out: list[Span | None] = []
    irregular = per_span.tolist()
    for j, (i, where) in enumerate(zip(at.tolist(), origins, strict=True)):
        a, b = offsets[j], offsets[j + 1]
        if irregular[j]:
            out.append(None)
            continue
        kept: dict[str, Any] = {}
        pos: dict[str, int] = {}
        for p in range(a, b):
            v: Any = None  # no typed field set: an empty AnyValue
            if p in nested_at:  # read as the per-span reader reads it (few: lists, maps)
                v = any_value(strip(value[p].as_py()))  # type: ignore[index]
                otlp_json.keep_value(kept, pos, p - a, keys[p], v, batch, decoded=True)
                continue
            for k, vals in typed:
                if vals[p] is not None:
                    v = scalar_value(k, vals[p])
                    break
            otlp_json.keep_value(kept, pos, p - a, keys[p], v, batch, decoded=True)
        service, scope = cols.service_scope(i)
        msg = message[j]
        out.append(
            Span(
                trace_id=_checked_id(trace[j], batch, "trace_id"),
                span_id=_checked_id(span_id[j], batch, "span_id"),
                parent_id=otlp_json.id_value(parent[j], 8, batch, "parent_id", required=False),
                name=name[j] if isinstance(name[j], str) else "",
                kind=span_kind(kinds[j]),
                start_ns=otlp_json.time_value(start[j], batch),
                end_ns=otlp_json.time_value(end[j], batch),
                status=status_code(code[j]),
                status_message=msg if isinstance(msg, str) and msg else None,
                attrs=kept,
                attr_pos=pos,
                events=[],
                service=service,
                scope=scope if isinstance(scope, str) else None,
                origin=where,
                attr_base=f"{where}/attributes",
            )
        )
    return out
