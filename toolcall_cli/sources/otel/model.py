"""What the readers hand the mappers: spans and log records in one shape, whatever the encoding.

Every reader (OTLP/JSON, protobuf, Tempo, Jaeger) fills a :class:`Batch`. Only the attributes
a mapper reads are kept (:func:`wanted`), so a large file of unrelated spans costs little.
`origin` follows the adapter's one scheme (see the package docstring): a JSON pointer into the
record, prefixed by `path:N` (line or message number) or `path` (one document).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import orjson

_Item = TypeVar("_Item")

#: Attribute keys the mappers read (exact names).
WANTED_KEYS: Final = frozenset(
    {
        # GenAI (current)
        "gen_ai.operation.name",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.tool.type",
        "gen_ai.conversation.id",
        "gen_ai.provider.name",
        "gen_ai.request.model",
        "gen_ai.response.model",
        "gen_ai.response.id",
        "gen_ai.response.finish_reasons",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.agent.name",
        "error.type",
        # GenAI (legacy)
        "gen_ai.system",
        # OpenInference
        "openinference.span.kind",
        "session.id",
        "llm.system",
        "llm.provider",
        "llm.model_name",
        "llm.finish_reason",
        "tool.name",
        "tool.id",
        "tool.parameters",
        "input.value",
        "output.value",
        # MCP
        "mcp.method.name",
        "mcp.session.id",
        "mcp.tool.name",
        "jsonrpc.request.id",
        # HTTP (stable and old names)
        "http.request.method",
        "http.method",
        "url.path",
        "url.full",
        "http.url",
        "http.target",
        "http.route",
        "http.response.status_code",
        "http.status_code",
        "server.address",
        "client.address",
        # logs
        "event.name",
        # correlation
        "tool_call_id",
        # Langfuse SDK (v3+) observations
        "langfuse.observation.type",
        "langfuse.observation.input",
        "langfuse.observation.output",
        "langfuse.observation.level",
        "langfuse.observation.status_message",
        "langfuse.observation.model.name",
        "langfuse.observation.metadata.tool_call_id",
    }
)
#: Prefixes of indexed attribute families (`gen_ai.prompt.0.role`, `llm.tools.1.tool.json_schema`).
WANTED_PREFIXES: Final = (
    "gen_ai.prompt.",
    "gen_ai.completion.",
    "llm.input_messages.",
    "llm.output_messages.",
    "llm.tools.",
    "llm.request.functions.",
)


#: Cap for the raw text kept of an unreadable record.
RAW_CAP: Final = 2000


def raw_text(obj: Any) -> str:
    """An unreadable record as (capped) JSON text, for its `unparsed` row."""
    try:
        return orjson.dumps(obj).decode()[:RAW_CAP]
    except (TypeError, orjson.JSONEncodeError):
        return repr(obj)[:RAW_CAP]


def wanted(key: str) -> bool:
    """True for an attribute some mapper reads."""
    return key in WANTED_KEYS or key.startswith(WANTED_PREFIXES)


@dataclass(slots=True)
class Span:
    """One span, normalised (ids lowercase hex, times ns, enums as lowercase names)."""

    trace_id: str | None
    span_id: str | None
    parent_id: str | None
    name: str
    kind: str
    start_ns: int | None
    end_ns: int | None
    status: str
    status_message: str | None
    attrs: dict[str, Any]
    #: position of each kept attribute in the record (for evidence pointers)
    attr_pos: dict[str, int]
    events: list[tuple[str, int | None, dict[str, Any]]]
    service: str | None
    scope: str | None
    origin: str  # pointer to the span record
    attr_base: str  # pointer prefix of the attribute list (`…/attributes` or `…/tags`)
    attr_leaf: str = "/value/stringValue"  # from an attribute entry to its text (Jaeger: /value)

    def pointer(self, key: str) -> str:
        """Evidence pointer to attribute *key*'s text (the span itself when it has no position)."""
        i = self.attr_pos.get(key)
        return self.origin if i is None else f"{self.attr_base}/{i}{self.attr_leaf}"


@dataclass(slots=True)
class Log:
    """One log record, normalised."""

    trace_id: str | None
    span_id: str | None
    time_ns: int | None
    event_name: str | None
    body: Any
    attrs: dict[str, Any]
    service: str | None
    origin: str


@dataclass
class Batch:
    """Everything one file yielded, plus what could not be read."""

    spans: list[Span] = field(default_factory=list)
    logs: list[Log] = field(default_factory=list)
    #: (origin, raw text, reason) of records no reader understood
    unparsed: list[tuple[str, str, str]] = field(default_factory=list)
    #: counts of values of the wrong shape, missing ids, absurd times (never fatal)
    problems: Counter[str] = field(default_factory=Counter)
    encoding: str = ""
    label: str = ""  # the file, for rows about the whole file

    def dedupe(self) -> None:
        """The same span (trace id + span id) delivered twice is one span; so is a log record
        repeated with the same ids, time, name and body. The first delivery is kept."""
        self.spans = self._first_only(
            self.spans,
            lambda s: (s.trace_id, s.span_id) if s.trace_id and s.span_id else None,
            "duplicate_span",
        )
        self.logs = self._first_only(
            self.logs,
            lambda r: (r.trace_id, r.span_id, r.time_ns, r.event_name, repr(r.body)),
            "duplicate_log",
        )

    def _first_only(
        self, items: list[_Item], key: Callable[[_Item], Hashable | None], problem: str
    ) -> list[_Item]:
        """*items* without those whose key (when not None) an earlier one had; each one
        dropped is counted as *problem*."""
        seen: set[Hashable] = set()
        kept: list[_Item] = []
        for item in items:
            k = key(item)
            if k is not None:
                if k in seen:
                    self.problems[problem] += 1
                    continue
                seen.add(k)
            kept.append(item)
        return kept
