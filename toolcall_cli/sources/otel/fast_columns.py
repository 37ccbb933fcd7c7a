"""One parsed block of OTLP/JSON trace lines → span columns (ids, times, one column per wanted
attribute key) and the mask of spans only the per-span path can read."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources.otel.hexkeys import all_hex, span_keys
from toolcall_cli.sources.otel.map_genai import CHAT_OPS
from toolcall_cli.sources.otel.model import WANTED_PREFIXES
from toolcall_cli.sources.otel.values import MAX_NS, MIN_NS

#: Attributes read as columns (text of any scalar value).
COLUMNS: Final = (
    "gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.tool.type",
    "gen_ai.conversation.id", "session.id", "mcp.session.id", "mcp.method.name", "mcp.tool.name",
    "jsonrpc.request.id", "openinference.span.kind", "tool.name", "tool.id", "input.value",
    "output.value", "http.request.method", "http.method", "url.path", "http.target",
    "http.route", "url.full", "http.url", "http.response.status_code", "http.status_code",
    "error.type", "tool_call_id", "server.address", "client.address",
)  # fmt: skip
#: How the mapping reads a value that is not text (`tool_spans.RecordAttrs` reads them so;
#: a block's span holding one is read as a record, unless its text reads the same):
#: names, kinds, methods and paths count only as text;
TEXT_ONLY: Final = frozenset({
    "gen_ai.operation.name", "gen_ai.tool.name", "mcp.method.name", "mcp.tool.name",
    "openinference.span.kind", "tool.name", "http.request.method", "http.method", "url.path",
    "http.target", "http.route", "url.full", "http.url",
})  # fmt: skip
#: an id that is a number is its digits (empty text is no id);
IDS: Final = frozenset({"gen_ai.tool.call.id", "tool.id", "jsonrpc.request.id"})
#: a status code that is a number is that code (`200.0` is 200), text only when 1-3 digits;
CODES: Final = frozenset({"http.response.status_code", "http.status_code"})
#: arguments and results are the value as text (`exchange.as_text`); the others
#: (`gen_ai.tool.type`, `server.address`, `client.address`) go into `attrs` as the value they
#: are (a number stays a number).
TEXTS: Final = frozenset({
    "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "input.value", "output.value",
    "tool_call_id",
})  # fmt: skip
#: an integer under these keys reads the same as its decimal text (within 1-3 digits for CODES)
_IS_INT_AS_TEXT: Final = np.array([k in IDS | TEXTS for k in COLUMNS])
_IS_CODE: Final = np.array([k in CODES for k in COLUMNS])
#: Attributes only the per-span mappers understand.
_SLOW_KEYS: Final = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
    "langfuse.observation.type",
)
_SCALARS: Final = ("stringValue", "intValue", "doubleValue", "boolValue")
_ARGS: Final = "gen_ai.tool.call.arguments"


def field(arr: pa.Array | None, name: str) -> pa.Array | None:
    """A struct field, or None when *arr* is not a struct or lacks it."""
    if arr is None or not pa.types.is_struct(arr.type):
        return None
    return arr.field(name) if arr.type.get_field_index(name) >= 0 else None


def flatten(lists: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(items, parent index of each item, position of each item inside its list)."""
    parent = pc.list_parent_indices(lists).to_numpy()
    offsets = lists.offsets.to_numpy()
    pos = np.arange(len(parent)) - (offsets[parent] - offsets[0]) if len(parent) else parent
    return pc.list_flatten(lists), parent, pos


def scalar_text(values: pa.Array | None, n: int) -> pa.Array:
    """Each scalar AnyValue as text (null for arrays, kvlists and absent values)."""
    present = [c for c in (field(values, name) for name in _SCALARS) if c is not None]
    texts = [c if c.type == pa.string() else c.cast(pa.string()) for c in present]
    if not texts:
        return pa.nulls(n, pa.string())
    # coalesce only when some value is not a string (one kind present: that column as is)
    return texts[0] if len(texts) == 1 else pc.coalesce(*texts)


def per_value(arr: pa.Array, derive: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """*derive* of each row, computed once per distinct value: a block's paths, names and
    status codes repeat (a few tools, a few endpoints), and a regex costs more than a hash."""
    enc = pc.dictionary_encode(arr)
    return derive(enc.dictionary).take(enc.indices)


def _pointer(at: pa.Array) -> pa.Array:
    """The pointer from a span to the text of its attribute number *at*."""
    return pc.binary_join_element_wise(
        "/attributes/", at.cast(pa.string()), "/value/stringValue", ""
    )


def _mask(arr: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(arr, False).to_numpy(zero_copy_only=False), dtype=bool)


class AttrColumns(Mapping[str, pa.Array]):
    """One text column per wanted key over a block's spans (null where a span lacks it), made
    on first use: most keys are only read for the spans that become rows (`rows`), and taking
    those straight from the attribute texts moves each value once, not twice."""

    def __init__(self, text: pa.Array, at: dict[str, np.ndarray], n: int) -> None:
        self._text = text  # the text of every attribute of the block
        self._at = at  # per key: each span's attribute number (-1: none)
        self._n = n
        self._made: dict[str, pa.Array] = {}

    def __getitem__(self, name: str) -> pa.Array:
        got = self._made.get(name)
        if got is None:
            if name not in COLUMNS:
                raise KeyError(name)
            got = self._made[name] = self._take(self._at.get(name))
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(COLUMNS)

    def __len__(self) -> int:
        return len(COLUMNS)

    def rows(self, name: str, spans: np.ndarray) -> pa.Array:
        """Column *name* of the spans numbered *spans* (`self[name].take(spans)`)."""
        at = self._at.get(name)
        return self._take(None if at is None else at[spans], len(spans))

    def typed(self, name: str, spans: np.ndarray) -> np.ndarray:
        """Where the spans *spans* hold a value of *name* that is not text: nowhere (a block's
        span holding one that does not read as its text is read as a record, `_typed`)."""
        return np.zeros(len(spans), bool)

    def _take(self, at: np.ndarray | None, n: int | None = None) -> pa.Array:
        if at is None:
            return pa.nulls(self._n if n is None else n, pa.string())
        return self._text.take(pa.array(at, mask=at < 0))


@dataclass
class SpanColumns:
    """The spans of one block, column by column."""

    n: int
    spans: pa.StructArray  # the raw records (for the slow path)
    label: str
    place: np.ndarray  # n × 4: file line, resource, scope and span position of each span
    trace: pa.Array
    span: pa.Array
    name: pa.Array
    kind: np.ndarray
    start: np.ndarray
    end: np.ndarray
    attrs: AttrColumns
    args_at: np.ndarray  # position of the arguments attribute in its span (-1: none)
    slow: np.ndarray
    keys: np.ndarray  # trace id + span id as n × 3 uint64 (hexkeys.span_keys)
    sessions: dict[str, str]
    services: list[str | None]
    scopes: list[str | None]
    span_res: np.ndarray
    span_scope: np.ndarray
    #: what a failed span adds (none here: failed spans are read as records, `records`)
    failure: None = None

    def row_origins(self, take: np.ndarray, is_tool: np.ndarray) -> list[pa.Array]:
        """(response origin, request origin) of the spans *take*: a tool call's request points
        at its arguments attribute, when it has one."""
        at = pa.array(np.where(is_tool, self.args_at[take], -1))
        pointer = per_value(at, lambda v: pc.if_else(pc.less(v, 0), "", _pointer(v)))
        return self.origins(take, pointer)

    def origins(self, at: np.ndarray, *tails: pa.Array) -> list[pa.Array]:
        """The origins of spans *at* (made for the spans that become rows, not for all): one
        array, and one more per text of *tails* joined to each origin (its pointer inside the
        span; the heads are written once for all of them)."""
        place = self.place[at]
        # all but the span's own number repeat along a scope's spans (*at* is in file order):
        # each run's head is written once and the span numbers joined to it
        new_head = np.ones(len(place), dtype=bool)
        new_head[1:] = (place[1:, :3] != place[:-1, :3]).any(axis=1)
        heads = place[new_head, :3].tolist()
        text = pa.array(
            [f"{self.label}:{a}#/resourceSpans/{b}/scopeSpans/{c}/spans/" for a, b, c in heads],
            pa.string(),
        )
        head_of = pa.array(np.cumsum(new_head) - 1)
        number = pa.array(place[:, 3], pa.int64()).cast(pa.string())
        heads = text.take(head_of)
        parts: list[list[pa.Array]] = [[], *([t] for t in tails)]
        return [pc.binary_join_element_wise(heads, number, *tail, "") for tail in parts]

    def service_scope(self, i: int) -> tuple[str | None, str | None]:
        """service.name and scope name of span *i*."""
        return self.services[self.span_res[i]], self.scopes[self.span_scope[i]]


def span_columns(table: pa.Table, label: str, line0: int) -> SpanColumns | None:
    """The columns of a parsed block whose first line is file line *line0* + 1."""
    res, res_line, res_pos = flatten(table.column("resourceSpans").combine_chunks())
    scopes_col = field(res, "scopeSpans")
    spans_col = field(flatten(scopes_col)[0], "spans") if scopes_col is not None else None
    if scopes_col is None or spans_col is None:
        return None
    scopes, scope_res, scope_pos = flatten(scopes_col)
    spans, span_scope, span_pos = flatten(spans_col)
    n = len(spans)
    span_res = scope_res[span_scope]
    trace, span, kind = field(spans, "traceId"), field(spans, "spanId"), field(spans, "kind")
    if trace is None or span is None or kind is None or not pa.types.is_integer(kind.type):
        return None
    if n and not (all_hex(trace, 32) and all_hex(span, 16) and kind.null_count == 0):
        return None
    times = [field(spans, k) for k in ("startTimeUnixNano", "endTimeUnixNano")]
    if any(t is None or t.null_count for t in times):
        return None
    start, end = (pc.cast(t, pa.int64()).to_numpy(zero_copy_only=False) for t in times)
    if n and not all(((t >= MIN_NS) & (t <= MAX_NS)).all() for t in (start, end)):
        return None
    attrs, args_at, slow = _attributes(spans, n)
    slow |= _slow_spans(spans, attrs)
    name = field(spans, "name")
    own = pc.coalesce(attrs["gen_ai.conversation.id"], attrs["session.id"], attrs["mcp.session.id"])
    sessions: dict[str, str] = {}
    has = np.flatnonzero(own.is_valid().to_numpy(zero_copy_only=False))
    for t, s in zip(
        trace.take(pa.array(has)).to_pylist(), own.take(pa.array(has)).to_pylist(), strict=True
    ):
        sessions.setdefault(t, s)
    scope = field(scopes, "scope")
    scope_names = field(scope, "name")
    return SpanColumns(
        n=n,
        spans=spans,
        label=label,
        place=np.column_stack([res_line[span_res] + 1 + line0, res_pos[span_res],
                               scope_pos[span_scope], span_pos]),
        trace=trace,
        span=span,
        name=name if name is not None else pa.nulls(n, pa.string()),
        kind=kind.to_numpy(zero_copy_only=False),
        start=start,
        end=end,
        attrs=attrs,
        args_at=args_at,
        slow=slow,
        keys=span_keys(trace, span),
        sessions=sessions,
        services=_services(res),
        scopes=scope_names.to_pylist() if scope_names is not None else [None] * len(scopes),
        span_res=span_res,
        span_scope=span_scope,
    )  # fmt: skip


def _slow_spans(spans: pa.StructArray, attrs: Mapping[str, pa.Array]) -> np.ndarray:
    """Spans with an error, events, or a model call: the per-span mappers read them."""
    status = field(spans, "status")
    code = field(status, "code")
    slow = _mask(pc.equal(code, 2)) if code is not None else np.zeros(len(spans), bool)
    events = field(spans, "events")
    if events is not None and pa.types.is_list(events.type):
        slow |= _mask(pc.greater(pc.list_value_length(events), 0))
    slow |= _mask(pc.is_in(attrs["gen_ai.operation.name"], pa.array(sorted(CHAT_OPS))))
    slow |= _mask(pc.equal(pc.utf8_upper(attrs["openinference.span.kind"]), "LLM"))
    slow |= attrs["error.type"].is_valid().to_numpy(zero_copy_only=False)
    return slow


def _typed(values: pa.Array | None, text: pa.Array, code: np.ndarray) -> np.ndarray:
    """The attributes of a wanted key whose value is not text and which the mapping reads
    otherwise than their text (see TEXT_ONLY …): their spans are read as records."""
    string = field(values, "stringValue")
    typed = (code >= 0) & _mask(pc.is_valid(text))
    if string is not None:
        typed &= ~_mask(pc.is_valid(string))
    at = np.flatnonzero(typed)
    ints = field(values, "intValue")
    if not at.size or ints is None:
        return at
    idx = pa.array(at)
    shown = text.take(idx)
    key = code[at]
    plain = _mask(per_value(shown, lambda v: pc.match_substring_regex(v, r"^(0|-?[1-9][0-9]*)$")))
    short = _mask(per_value(shown, lambda v: pc.match_substring_regex(v, r"^[0-9]{1,3}$")))
    as_text = (_IS_INT_AS_TEXT[key] & plain) | (_IS_CODE[key] & short)
    return at[~(_mask(pc.is_valid(ints.take(idx))) & as_text)]


def _services(res: pa.StructArray) -> list[str | None]:
    out: list[str | None] = [None] * len(res)
    attrs = field(field(res, "resource"), "attributes")
    if attrs is None:
        return out
    items, parent, _ = flatten(attrs)
    key = field(items, "key")
    if key is None:
        return out
    hit = _mask(pc.equal(key, "service.name"))
    names = scalar_text(field(items, "value"), len(items)).filter(pa.array(hit)).to_pylist()
    for i, name in zip(parent[hit].tolist(), names, strict=True):
        out[i] = out[i] or name
    return out


def _attributes(spans: pa.StructArray, n: int) -> tuple[AttrColumns, np.ndarray, np.ndarray]:
    """One column per wanted key (text, null when absent), where each span's arguments sit, and
    which spans need the slow path (indexed families, message attributes, complex values)."""
    slow = np.zeros(n, dtype=bool)
    args_at = np.full(n, -1, dtype=np.int64)
    none = AttrColumns(pa.nulls(0, pa.string()), {}, n)
    attrs = field(spans, "attributes")
    if attrs is None or not pa.types.is_list(attrs.type):
        return none, args_at, slow
    items, parent, pos = flatten(attrs)
    key = field(items, "key")
    if key is None:
        return none, args_at, slow
    text = scalar_text(field(items, "value"), len(items))
    # a block holds a few dozen distinct keys over ~100,000 attributes: each key is classified
    # once (slow family, wanted column) and the answers are spread over the attributes
    keys = pc.dictionary_encode(key)
    distinct, key_no = keys.dictionary, keys.indices
    special_key = pc.is_in(distinct, pa.array(_SLOW_KEYS))
    for prefix in WANTED_PREFIXES:
        special_key = pc.or_(special_key, pc.starts_with(distinct, prefix))
    codes = pc.index_in(distinct, pa.array(COLUMNS)).take(key_no)
    special = special_key.take(key_no)
    # a wanted key holding an array or kvlist needs the full AnyValue reader
    special = pc.or_(special, pc.and_(pc.is_null(text), pc.is_valid(codes)))
    slow[parent[_mask(special)]] = True
    code = pc.fill_null(codes, -1).to_numpy(zero_copy_only=False)
    slow[parent[_typed(field(items, "value"), text, code)]] = True
    present = set(np.flatnonzero(np.bincount(code + 1, minlength=len(COLUMNS) + 1)[1:]).tolist())
    where: dict[str, np.ndarray] = {}
    for j in sorted(present):
        name = COLUMNS[j]
        hit = np.flatnonzero(code == j)
        at = where[name] = np.full(n, -1, dtype=np.int64)
        at[parent[hit]] = hit  # the last occurrence of a repeated key wins
        if name == _ARGS:
            args_at[parent[hit]] = pos[hit]
    return AttrColumns(text, where, n), args_at, slow
