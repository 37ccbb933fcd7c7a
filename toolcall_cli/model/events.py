"""The event table (DESIGN §3): one schema, defined once, used by every adapter and analysis.

Every adapter returns a DataFrame built with :func:`build_frame` and checked with
:func:`validate_frame`; the store is this table as Parquet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from toolcall_cli.errors import InternalError

if TYPE_CHECKING:  # pandas loads with the first table, not with the CLI (start-up)
    import numpy as np
    import pandas as pd

#: Bumped whenever a column is added, removed or changes meaning (stored in the store manifest).
EVENTS_SCHEMA_VERSION: Final = 1

#: Column dtypes by name: pandas reads these strings as `StringDtype("pyarrow")` and
#: `DatetimeTZDtype("ns", "UTC")` (and they compare equal to those dtypes), so declaring the
#: schema needs no pandas import.
STR: Final = "string[pyarrow]"
TS: Final = "datetime64[ns, UTC]"

#: column → dtype, in table order.
COLUMNS: Final[dict[str, Any]] = {
    "ts": TS,
    "seq": "int64",
    "source": STR,
    "origin": STR,
    "kind": STR,
    "session_id": STR,
    "trace_id": STR,
    "tool_call_id": STR,
    "request_id": STR,
    "tool": STR,
    "args": STR,
    "status": STR,
    "http_status": "Int64",
    "duration_ms": "float64",
    "size": "Int64",
    "instance": STR,
    "client": STR,
    "detail": STR,
    "attrs": STR,  # a JSON object as text ("" or null when empty)
}


@dataclass(frozen=True, slots=True)
class SourceTraits:
    """What a source is, declared once beside its name (DESIGN §3).

    Alignment, diagnose, pipeline and render ask these traits and the kind groups below,
    never a source's name, so adding a source is one package plus one entry in `SOURCE_TRAITS`.
    """

    name: str
    kinds: tuple[str, ...]
    clocked: bool  # events carry wall-clock times (else only order)
    wire: bool  # observed on the network (every header and body field known)
    exchange: bool  # request/response pairs
    conversation: bool  # the model's own record of the conversation
    #: Preference when several sources could serve as the reference clock (higher wins;
    #: 0 = only by anchoring). The middleware decides, so its clock is the reference.
    clock_reference: int = 0
    #: Order in which sources are trusted for a call's fields (lower first).
    call_authority: int = 9
    colour: str = "#57606a"  # lane colour in the HTML report
    #: What the source reads, for the hint of a run that recognised nothing.
    reads: str = ""
    #: Where a tool list this source records was declared, in words (replay's `tools` line:
    #: "4 tools declared in the session's request (its tools list)").
    declares_tools_in: str = "the session's request (its tools list)"


SOURCE_TRAITS: Final[tuple[SourceTraits, ...]] = (
    SourceTraits(
        "messages",
        ("user", "system", "assistant_text", "tool_call", "tool_result"),
        clocked=False,
        wire=False,
        exchange=False,
        conversation=True,
        call_authority=0,
        colour="#6d4fc2",
        reads="conversation JSON/JSONL (OpenAI, Anthropic, tau-bench…)",
    ),
    SourceTraits(
        "middleware",
        (
            "mw_received",
            "mw_rejected",
            "mw_flooded",
            "mw_request",
            "mw_response",
            "mw_dropped",
            "mw_injected",
            "mw_timeout",
            "mw_other",
        ),
        clocked=True,
        wire=False,
        exchange=True,
        conversation=False,
        clock_reference=2,
        call_authority=2,
        colour="#1f6feb",
        reads="tool-call middleware logs",
    ),
    SourceTraits(
        "nginx",
        ("http_access",),
        clocked=True,
        wire=False,
        exchange=False,
        conversation=False,
        call_authority=3,
        colour="#1a7f37",
        reads="nginx access logs",
    ),
    SourceTraits(
        "pcap",
        ("http_request", "http_response"),
        clocked=True,
        wire=True,
        exchange=True,
        conversation=False,
        clock_reference=1,
        call_authority=1,
        colour="#b35900",
        reads="pcap/pcapng captures",
        declares_tools_in="a captured request (its tools list)",
    ),
    SourceTraits(
        "har",
        ("http_request", "http_response", "ws_message"),
        clocked=True,
        wire=True,
        exchange=True,
        conversation=False,
        call_authority=1,
        colour="#8a4b08",
        reads="HAR files",
        declares_tools_in="a captured request (its tools list)",
    ),
    SourceTraits(
        "mitm",  # mitmproxy flow files: the same wire exchanges as a HAR entry
        ("http_request", "http_response", "ws_message"),
        clocked=True,
        wire=True,
        exchange=True,
        conversation=False,
        call_authority=1,
        colour="#a0522d",
        reads="mitmproxy flow files (.mitm)",
        declares_tools_in="a captured request (its tools list)",
    ),
    SourceTraits(
        "mcp",
        (
            "tool_call",
            "tool_result",
            "system",
            "mcp_progress",
            "mcp_cancelled",
            "mcp_tools_changed",
            "mcp_message",
        ),
        clocked=True,
        wire=False,
        exchange=True,
        conversation=False,
        call_authority=2,
        colour="#0e7c86",
        reads="MCP JSON-RPC transcripts",
        declares_tools_in="the MCP server's tools/list response",
    ),
    SourceTraits(
        "otel",  # spans and logs; GenAI message parts are the model's own record
        (
            "user",
            "system",
            "assistant_text",
            "tool_call",
            "tool_result",
            "http_request",
            "http_response",
        ),
        clocked=True,
        wire=False,
        exchange=True,
        conversation=True,
        call_authority=4,
        colour="#8250df",
        reads="OpenTelemetry traces and logs (OTLP, Tempo, Jaeger)",
        declares_tools_in="a traced request (its tools list)",
    ),
    SourceTraits(
        "transcripts",
        ("user", "system", "assistant_text", "tool_call", "tool_result"),
        clocked=True,  # agent session logs stamp each line; eval results have only order
        wire=False,
        exchange=False,
        conversation=True,
        call_authority=0,
        colour="#bf3989",
        reads=(
            "agent session logs (Claude Code, Codex, ATIF, Inspect, OpenHands, SWE-agent) "
            "and BFCL results"
        ),
        declares_tools_in="the transcript's tool list",
    ),
)

TRAITS: Final[dict[str, SourceTraits]] = {t.name: t for t in SOURCE_TRAITS}
SOURCES: Final = tuple(TRAITS)
KINDS: Final[dict[str, tuple[str, ...]]] = {t.name: t.kinds for t in SOURCE_TRAITS}


def sources_where(
    *,
    clocked: bool | None = None,
    wire: bool | None = None,
    exchange: bool | None = None,
    conversation: bool | None = None,
) -> tuple[str, ...]:
    """Names of the sources whose traits match every given value (registration order)."""
    want = {"clocked": clocked, "wire": wire, "exchange": exchange, "conversation": conversation}
    return tuple(
        t.name
        for t in SOURCE_TRAITS
        if all(v is None or getattr(t, k) is v for k, v in want.items())
    )


#: Sources with only an order, no clock (the model's record).
UNCLOCKED_SOURCES: Final = sources_where(clocked=False)
WIRE_SOURCES: Final = sources_where(wire=True)
CONVERSATION_SOURCES: Final = sources_where(conversation=True)
#: Everything that is not the model's own record (the infrastructure's view).
INFRA_SOURCES: Final = sources_where(conversation=False)
#: An agent's own log of its run (clocked, but no exchange observed): its times say when the
#: agent wrote a line — a tool running locally, a user deciding on a permission prompt — not
#: how long a round trip through the infrastructure took, so no end-to-end latency comes
#: from them alone.
SELF_REPORTED_SOURCES: Final = sources_where(clocked=True, exchange=False, conversation=True)

#: A record no format could parse. Kept in the table (detail = the raw text, attrs.reason) so
#: that IN001 can count and quote it from the store; never silently dropped.
UNPARSED: Final = "unparsed"

ALL_KINDS: Final = frozenset(k for ks in KINDS.values() for k in ks) | {UNPARSED}


#: Named kind groups: analyses ask these instead of listing kinds (a new source's kinds join
#: a group here, once). Helpers extend this list; nothing outside sources/ spells a kind set.
CALL_KINDS: Final = frozenset({"tool_call"})
RESULT_KINDS: Final = frozenset({"tool_result"})
#: The middleware refused the call before dispatch.
REJECTION_KINDS: Final = frozenset({"mw_rejected", "mw_flooded"})
#: Evidence that a call left the middleware (or came back).
DISPATCH_KINDS: Final = frozenset(
    {
        "mw_request",
        "http_request",
        "tool_result",
        "mw_response",
        "http_response",
        "mw_injected",
        "mw_dropped",
        "mw_timeout",
        "mcp_progress",  # the tool server reports on the running call: it got there
    }
)
#: A call as the model made it, or as the middleware received it.
OBSERVED_CALL_KINDS: Final = CALL_KINDS | {"mw_received"}
#: Every kind the model's own record (a conversation source) holds.
CONVERSATION_KINDS: Final = frozenset(k for s in CONVERSATION_SOURCES for k in KINDS[s])
#: Events of a service that runs as several instances, each logging its `instance`.
INSTANCE_KINDS: Final = frozenset(KINDS["middleware"])
#: The tool service's response to a request, as the middleware or the wire saw it (an access
#: line records the exchange as a whole, see `RESPONSE_KINDS`).
TOOL_RESPONSE_KINDS: Final = frozenset({"mw_response", "http_response"})
#: An HTTP request as it was seen: on the wire or as an access-log line.
HTTP_REQUEST_KINDS: Final = frozenset({"http_request", "http_access"})
#: The middleware's own word on a call besides forwarding it (rejected, flooded, dropped, other).
MIDDLEWARE_NOTE_KINDS: Final = REJECTION_KINDS | {"mw_dropped", "mw_other"}
#: Events whose free text may report a cancellation (a middleware note, a system message, an
#: unparsed line, a tool result).
CANCELLATION_TEXT_KINDS: Final = frozenset(
    {"mw_other", "mw_rejected", "mw_dropped", "system", UNPARSED, "tool_result"}
)
#: The call's answer came back: a tool result, a response, or the middleware's injection.
ANSWER_KINDS: Final = RESULT_KINDS | TOOL_RESPONSE_KINDS | {"mw_injected"}
#: The middleware logged what it did with the call instead of sending it on.
STOPPED_KINDS: Final = REJECTION_KINDS | {"mw_timeout", "mw_dropped"}
#: A request to the tool service / its response, as each source sees it.
REQUEST_KINDS: Final = frozenset({"mw_request", "http_request"})
RESPONSE_KINDS: Final = frozenset({"mw_response", "http_response", "http_access"})
#: HTTP exchanges seen on the wire or in an access log.
HTTP_KINDS: Final = frozenset({"http_request", "http_response", "http_access"})
#: Sources that record request/response pairs: their silence says a call never went out.
EXCHANGE_SOURCES: Final = sources_where(exchange=True)
#: Kinds that show a call exists: the call, its rejection, its request or response, or the
#: middleware receiving, dropping or timing it out (a lone tool_result or injection is an
#: orphan, not a call).
CALL_SIDE_KINDS: Final = (
    CALL_KINDS
    | REJECTION_KINDS
    | REQUEST_KINDS
    | RESPONSE_KINDS
    | {"mw_received", "mw_dropped", "mw_timeout"}
)
#: A call as the infrastructure saw it before dispatch; the best record of its arguments first.
INFRA_CALL_KINDS: Final = ("mw_received", "mw_rejected", "mw_flooded", "mw_request", "http_request")
#: A call's outcome from the kinds it shows, first match wins.
OUTCOME_KINDS: Final = (
    ("rejected", "mw_rejected"),
    ("flooded", "mw_flooded"),
    ("timeout", "mw_timeout"),
    ("dropped", "mw_dropped"),
    ("result", "tool_result"),
    ("result", "mw_injected"),
    ("cancelled", "mcp_cancelled"),  # the client withdrew the call (a late result still wins)
)
#: Not a kind of the table: the start of an `http_access` exchange (its time minus its
#: duration), which marks the request when nothing closer to the tool service saw it.
ACCESS_START: Final = "http_access_start"
#: Each phase boundary of a call's latencies (align): the kinds that mark it, best first.
PHASE_BOUND_KINDS: Final[dict[str, tuple[str, ...]]] = {
    "received": ("mw_received", "tool_call"),
    "request": ("mw_request", "http_request", ACCESS_START),
    "response": ("mw_response", "http_response", "http_access"),
    "injected": ("mw_injected", "tool_result"),
}
#: The same boundaries as the HTML lanes mark them, at observed event times: a call first
#: seen as a wire request is marked received there, and an access line only marks a response.
PHASE_MARK_KINDS: Final[dict[str, tuple[str, ...]]] = {
    "received": ("mw_received", "tool_call", "http_request"),
    "request": ("mw_request", "http_request"),
    "response": ("mw_response", "http_response", "http_access"),
    "injected": ("mw_injected", "tool_result"),
}
#: MCP notifications about a call: progress while it runs, its cancellation (OR001 `cancelled`).
PROGRESS_KINDS: Final = frozenset({"mcp_progress"})
CANCEL_KINDS: Final = frozenset({"mcp_cancelled"})
#: The tool list changed under a session (MCP `notifications/tools/list_changed`; PR010).
TOOL_LIST_CHANGE_KINDS: Final = frozenset({"mcp_tools_changed"})
#: Sources whose declared tool lists are the tool server's own (what it validates calls
#: against), not the model's view of them; PR010 compares the two.
TOOL_SERVER_SOURCES: Final = sources_where(conversation=False, wire=False, exchange=True)


def empty_frame() -> pd.DataFrame:
    """An empty event table with the right columns and dtypes."""
    import pandas as pd

    return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in COLUMNS.items()})


def build_frame(
    columns: Mapping[str, Sequence[Any] | np.ndarray | pd.Series], *, n: int | None = None
) -> pd.DataFrame:
    """Build an event table from column arrays; absent columns become null, dtypes are enforced.

    `ts` accepts datetimes, ISO strings or pandas Timestamps; naive values are taken as UTC
    (adapters localise with the user's `--tz` before calling this).
    """
    import pandas as pd

    unknown = set(columns) - set(COLUMNS)
    if unknown:
        raise InternalError(f"unknown event columns: {sorted(unknown)}")
    if n is None:
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise InternalError(f"event columns differ in length: {sorted(lengths)}")
        n = lengths.pop() if lengths else 0
    data: dict[str, pd.Series] = {}
    for name, dtype in COLUMNS.items():
        values = columns.get(name)
        if values is None:
            data[name] = (
                pd.Series(pd.array([None] * n, dtype=dtype)) if n else pd.Series([], dtype=dtype)
            )
            continue
        if name == "ts":
            data[name] = _to_utc(values)
        else:
            data[name] = (
                pd.Series(values).astype(dtype) if len(values) else pd.Series([], dtype=dtype)
            )
    frame = pd.DataFrame(data)
    frame.index = pd.RangeIndex(len(frame))
    return frame


def _to_utc(values: Sequence[Any] | np.ndarray | pd.Series) -> pd.Series:
    import pandas as pd

    ser = pd.Series(values)
    if isinstance(ser.dtype, pd.DatetimeTZDtype):
        return ser.dt.tz_convert("UTC").astype(TS)
    conv = pd.to_datetime(ser, utc=True, errors="coerce", format="mixed") if len(ser) else ser
    return pd.Series(conv).astype(TS)


def validate_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Check that *df* is an event table; a failure is a bug in the producer (exit 70)."""
    import pandas as pd

    if list(df.columns) != list(COLUMNS):
        raise InternalError(f"event table columns are {list(df.columns)}, expected {list(COLUMNS)}")
    for name, dtype in COLUMNS.items():
        if df[name].dtype != pd.api.types.pandas_dtype(dtype):
            raise InternalError(
                f"event column {name!r} has dtype {df[name].dtype}, expected {dtype}"
            )
    bad_sources = set(df["source"].dropna().unique()) - set(SOURCES)
    if bad_sources:
        raise InternalError(f"unknown event sources: {sorted(bad_sources)}")
    bad_kinds = set(df["kind"].dropna().unique()) - ALL_KINDS
    if bad_kinds:
        raise InternalError(f"unknown event kinds: {sorted(bad_kinds)}")
    if df["source"].isna().any() or df["kind"].isna().any() or df["origin"].isna().any():
        raise InternalError("event rows must have source, kind and origin")
    return df


def concat_frames(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate event tables, keeping the schema (an empty list gives an empty table)."""
    import pandas as pd

    frames = [f for f in frames if len(f)]
    if not frames:
        return empty_frame()
    out = pd.concat(frames, ignore_index=True)
    return out.astype(COLUMNS)


@dataclass(frozen=True, slots=True)
class EventChunk:
    """A slice of one input's event table, as a streaming adapter hands it over (a 500 MB
    session is written to the store chunk by chunk, never whole).

    `at` is where the rows sit in the whole table: the first row's position (the rows follow
    it), or every row's position for rows held back and handed over later (a tool result
    that waited for its call). The store restores the input's order from these positions."""

    frame: pd.DataFrame
    at: int | np.ndarray = 0

    def positions(self) -> np.ndarray:
        """Every row's position in the whole table."""
        import numpy as np

        if isinstance(self.at, int):
            return np.arange(self.at, self.at + len(self.frame), dtype=np.int64)
        return np.asarray(self.at, dtype=np.int64)


def assemble_chunks(chunks: Iterable[EventChunk]) -> pd.DataFrame:
    """The whole event table of an input's chunks, rows back in their positions' order."""
    import numpy as np

    frames: list[pd.DataFrame] = []
    places: list[np.ndarray] = []
    ordered = True
    for chunk in chunks:
        if not len(chunk.frame):
            continue
        at = chunk.positions()
        ordered = (
            ordered and (not places or places[-1][-1] < at[0]) and bool(np.all(np.diff(at) > 0))
        )
        frames.append(chunk.frame)
        places.append(at)
    out = concat_frames(frames)
    del frames
    if ordered or out.empty:
        return out
    order = np.argsort(np.concatenate(places), kind="stable")
    return out.take(order).reset_index(drop=True)
