"""The records and protocol of the validation pipeline: calls, verdicts, the replay context.

A stage is any object with a ``name`` and ``check(call, ctx) -> Verdict`` (each stage module
satisfies :class:`Stage` itself). State that must survive from one call to the next — the ids
already seen, the rate limiter's sliding windows — lives in :class:`ReplayContext`, never in a
module global, so a replay is deterministic and two replays never share state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import pandas as pd

from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.jsonio import JSONError, loads

if TYPE_CHECKING:
    from toolcall_cli.tools.registry import ToolRegistry

VerdictKind = Literal["pass", "fail", "skip"]
ClockKind = Literal["events", "synthetic"]

#: The stages before the request is sent to the tool service; a failure here means the call
#: was never dispatched. `response` and `inject` judge what came back after dispatch.
PRE_DISPATCH: Final = ("prescreen", "schema", "ratelimit")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One stage's judgement of one call: pass/fail/skip, a stable code and a readable reason."""

    stage: str
    verdict: VerdictKind
    code: str
    reason: str
    detail: str = ""  # every violation, one per line, when the reason only names the first

    @property
    def failed(self) -> bool:
        """True for a fail verdict."""
        return self.verdict == "fail"


def passed(stage: str, reason: str = "ok", *, detail: str = "") -> Verdict:
    """A pass verdict."""
    return Verdict(stage, "pass", "ok", reason, detail)


def failed(stage: str, code: str, reason: str, *, detail: str = "") -> Verdict:
    """A fail verdict with its code."""
    return Verdict(stage, "fail", code, reason, detail)


def skipped(stage: str, code: str, reason: str) -> Verdict:
    """A skip verdict: the stage could not judge (no evidence) or an earlier stage failed."""
    return Verdict(stage, "skip", code, reason)


def shorten(text: str, limit: int) -> str:
    """*text* cut to at most *limit* characters, the last one "…" when cut (for reasons)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class RequestEvidence:
    """The recorded request to the tool service (pcap http_request or middleware mw_request)."""

    origin: str
    ts_ms: float | None  # event time
    request_ts_ms: float | None  # X-Request-Timestamp header when captured


@dataclass(frozen=True, slots=True)
class ResponseEvidence:
    """The recorded answer of the tool service for one call."""

    origin: str
    source: str  # the evidence's source: the wire (every field known) or a log (fields it logged)
    status: str | None
    call_id: str | None
    has_call_id: bool  # False when the evidence cannot say (middleware line without call_id)
    timestamp_ms: float | None
    size: int | None
    data_empty: bool | None
    http_status: int | None
    dropped_reason: str | None = None  # mw_dropped detail, e.g. "call_id mismatch"
    body: dict[str, Any] | None = None  # the JSON body when the evidence holds it


@dataclass(frozen=True, slots=True)
class ResultEvidence:
    """A tool result in the conversation that answers (or claims to answer) a call."""

    origin: str
    tool_call_id: str | None
    follows_call: bool | None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the middleware would receive it, plus the evidence about its fate."""

    tool_call_id: str  # "" when the model sent none
    tool: str | None
    args: str | None  # raw arguments text exactly as sent
    origin: str
    source: str
    session_id: str | None
    trace_id: str | None
    turn: int | None = None
    clock: float = 0.0  # seconds: event time, or the synthetic message clock
    clock_kind: ClockKind = "synthetic"
    now: pd.Timestamp | None = None  # real event time (business rules); None if unknown
    protocol: str | None = None  # attrs.protocol of a messages call ("openai", "react", ...)
    args_type: str | None = None  # attrs.args_type when not a string; "unrecorded": no evidence
    request: RequestEvidence | None = None
    response: ResponseEvidence | None = None
    result: ResultEvidence | None = None
    kinds: frozenset[str] = frozenset()  # event kinds recorded for this id
    wire_in_scope: bool = False  # middleware or pcap evidence exists for the session
    later_messages: bool = False  # the conversation continued after this call's message
    user_aborted: bool = False  # the user aborted the call's turn (align.aborted)
    #: False when the evidence holds no id at all (a Gemini `functionCall`, a BFCL result, a
    #: SWE-agent action): the format pairs by position, so an id check has nothing to check.
    #: An id sent empty (`"id": ""`) is recorded, and empty.
    id_recorded: bool = True
    #: Why the arguments are free text by design, not JSON (`tools.builtins.free_text_reason`:
    #: a custom tool's free-form input, a ReAct action in prose, raw code); None for JSON.
    free_text: str | None = None

    @property
    def args_recorded(self) -> bool:
        """False for a call only the middleware saw, whose arguments no evidence kept."""
        return self.args_type != "unrecorded"

    def arguments(self) -> Any:
        """The parsed arguments; raises :class:`JSONError` when they are not JSON."""
        if self.args is None:
            raise JSONError("no arguments")
        return loads(self.args)

    def sent_arguments(self) -> Any:
        """The arguments as the middleware forwards them: parsed JSON, or free text as sent."""
        return self.args if self.free_text else self.arguments()


@dataclass(slots=True)
class ReplayContext:
    """Mutable state of one replay: configuration, registry, seen ids, rate-limit windows."""

    cfg: Config = DEFAULT
    registry: ToolRegistry | None = None
    seen_ids: dict[str, dict[str, str]] = field(default_factory=dict)  # session → id → origin
    windows: dict[tuple[str, str], deque[float]] = field(default_factory=dict)
    last_seen: dict[tuple[str, str], float] = field(default_factory=dict)  # dedupe times


class Stage(Protocol):
    """A validation stage (each stage module satisfies this protocol)."""

    name: str

    def check(self, call: ToolCall, ctx: ReplayContext) -> Verdict:
        """Judge *call*; may update *ctx* (ids seen, windows)."""
        ...


def session_key(call: ToolCall) -> str:
    """The key the middleware counts a call under (its session; "" when unknown)."""
    return call.session_id or ""
