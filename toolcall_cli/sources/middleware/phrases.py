"""What a middleware line means: event names and the phrases real middleware prints → kinds.

Both tables are applied column-wise (one RE2 pass per entry over the whole column), first
match wins, and an event name beats a phrase. Phrases also yield details: the tool named in
`POST /tools/NAME` / `Received response from NAME`, the field of `missing required field X`,
the expected/got ids of a `call_id mismatch`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources._shared.textlog import lit


@dataclass(frozen=True, slots=True)
class Phrase:
    """One recognisable message: its regex (RE2, case-insensitive), kind, rule and reason label."""

    pattern: str
    kind: str
    rule: str | None = None
    reason: str | None = None


#: Event names (normalised: lower case, `-`/space/`.` kept) → kind; first match wins.
EVENT_KINDS: tuple[tuple[str, str], ...] = (
    (r"flood|rate_?limit|throttl", "mw_flooded"),
    (r"reject|invalid|validation_?(?:fail|error)|denied|refused", "mw_rejected"),
    (r"time_?out|timed_?out|deadline", "mw_timeout"),
    (r"drop|discard|mismatch", "mw_dropped"),
    (r"inject", "mw_injected"),
    (r"response|reply|result_received|completed|\.done$", "mw_response"),
    (r"request|dispatch|\bsen[dt]\b|\.sen[dt]|forward|invoke", "mw_request"),
    (r"receiv|accept|incoming|created|\.start", "mw_received"),
)

#: Phrases in the message text; first match wins.
PHRASES: tuple[Phrase, ...] = (
    Phrase(
        r"flooding (?:was )?detected|tool[- _]?call flood",
        "mw_flooded",
        "ratelimit",
        "tool-call flooding",
    ),
    Phrase(r"duplicate tool[_ ]?call[_ ]?id", "mw_rejected", "prescreen", "duplicate tool_call_id"),
    Phrase(
        r"invalid json in arguments|arguments (?:are|is) not (?:valid )?json",
        "mw_rejected",
        "prescreen",
        "invalid JSON in arguments",
    ),
    Phrase(
        r"missing required (?:field|property|parameter|argument)",
        "mw_rejected",
        "schema",
        "missing required field",
    ),
    Phrase(
        r"unknown tool|tool not (?:found|registered)", "mw_rejected", "prescreen", "unknown tool"
    ),
    Phrase(
        r"schema validation failed|failed schema validation",
        "mw_rejected",
        "schema",
        "schema validation failed",
    ),
    Phrase(r"rate limit(?:ed| exceeded)", "mw_flooded", "ratelimit", "rate limit exceeded"),
    Phrase(r"call_?id mismatch", "mw_dropped", "response", "call_id mismatch"),
    Phrase(
        r"tool[- _]?call timeout|tool call timed out|timed out waiting for tool",
        "mw_timeout",
        None,
        "timeout",
    ),
    Phrase(r"received response from \S+", "mw_response"),
    Phrase(r"\bPOST /tools/[^\s/?#]+", "mw_request"),
    Phrase(r"inject(?:ed|ing)? (?:tool )?result|result injected", "mw_injected"),
    Phrase(r"received tool[_ ]?call|tool[_ ]?call received", "mw_received"),
)

_TOOL_FROM = (r"(?i)received response from (?P<x>[\w.\-]+)", r"\bPOST /tools/(?P<x>[^\s/?#\"']+)")
_FIELD = (
    r"(?i)missing required (?:field|property|parameter|argument)[:\s]+['\"`]?(?P<x>[\w.\-\[\]]+)"
)
_EXPECTED = r"(?i)expected[\s:=]+['\"]?(?P<x>[\w.:\-]+)"
_GOT = r"(?i)(?:got|received|actual)[\s:=]+['\"]?(?P<x>[\w.:\-]+)"


@dataclass(frozen=True, slots=True)
class Classified:
    """Per-row results of classification (arrays aligned with the input)."""

    kind: pa.Array
    rule: pa.Array
    reason: pa.Array
    tool: pa.Array  # tool named by the phrase (null if none)
    field: pa.Array  # missing required field
    expected: pa.Array  # call_id mismatch details
    got: pa.Array


def _mask(arr: pa.Array, pattern: str) -> np.ndarray:
    m = pc.match_substring_regex(arr, pattern, ignore_case=True)
    return m.fill_null(False).to_numpy(zero_copy_only=False)


def _select(masks: list[np.ndarray], values: list[str | None], n: int) -> pa.Array:
    """The value of the first mask that holds, per row (None when none does)."""
    out = np.full(n, None, dtype=object)
    for mask, value in reversed(list(zip(masks, values, strict=True))):
        out[mask] = value
    return pa.array(out, pa.large_string())


def _extract_where(text: pa.Array, mask: np.ndarray, pattern: str) -> pa.Array:
    """Group `x` of *pattern* on the rows of *mask* only (null elsewhere)."""
    n = len(text)
    if not mask.any():
        return pa.nulls(n, pa.large_string())
    idx = np.flatnonzero(mask)
    sub = pc.extract_regex(text.take(pa.array(idx)), pattern).flatten()[0]
    out = pa.nulls(n, pa.large_string())
    return pc.replace_with_mask(out, pa.array(mask), sub.cast(pa.large_string()))


def _kind_of_event(name: str) -> str | None:
    norm = re.sub(r"[\s\-]+", "_", name.lower())
    for pat, kind in EVENT_KINDS:
        if re.search(pat, norm):
            return kind
    return None


def event_kinds(event: pa.Array) -> pa.Array:
    """The kind an event name stands for (null when it names none); event names are few, so
    each distinct name is classified once and the result is broadcast."""
    enc = pc.dictionary_encode(event.cast(pa.large_string()))
    names = enc.dictionary.to_pylist()
    kinds = pa.array([_kind_of_event(x) for x in names], pa.large_string())
    return kinds.take(enc.indices)


def _phrase_masks(text: pa.Array) -> list[np.ndarray]:
    """One mask per phrase; a single alternation pass first, so clean rows are scanned once."""
    n = len(text)
    anyp = _mask(text, "|".join(f"(?:{p.pattern})" for p in PHRASES))
    if not anyp.any():
        return [np.zeros(n, bool) for _ in PHRASES]
    idx = np.flatnonzero(anyp)
    sub = text.take(pa.array(idx))
    out = []
    for p in PHRASES:
        full = np.zeros(n, bool)
        full[idx] = _mask(sub, p.pattern)
        out.append(full)
    return out


def _phrase_index(reason: str) -> int:
    return next(i for i, p in enumerate(PHRASES) if p.reason == reason)


#: kinds whose phrase details (reason, rule, field, ids) matter even when the event is named.
DETAIL_KINDS = ("mw_rejected", "mw_flooded", "mw_dropped", "mw_timeout")


def _spread(idx: np.ndarray, values: pa.Array, n: int) -> pa.Array:
    """*values* (one per entry of *idx*) placed at rows *idx* of an all-null array of length n."""
    if len(idx) == n:
        return values
    if values.null_count == len(values):  # the common case: nothing to place
        return pa.nulls(n, pa.large_string())
    mask = np.zeros(n, bool)
    mask[idx] = True
    return pc.replace_with_mask(pa.nulls(n, pa.large_string()), pa.array(mask), values)


def classify(event: pa.Array, msg: pa.Array, *, has_tool: pa.Array | None = None) -> Classified:
    """Kinds (event name first, then phrase, else mw_other) and phrase details, column-wise.

    Messages are scanned only where they can add something: no event kind, a kind with
    details, or no tool yet (*has_tool*); a log of named routine events is barely touched.
    """
    n = len(msg)
    text = msg.cast(pa.large_string())
    ev_kind = event_kinds(event) if event.null_count < n else pa.nulls(n, pa.large_string())
    need = pc.or_kleene(
        pc.is_null(ev_kind), pc.is_in(ev_kind, value_set=pa.array(DETAIL_KINDS, pa.large_string()))
    )
    if has_tool is not None:
        need = pc.or_kleene(need, pc.invert(has_tool))
    need_np = need.fill_null(True).to_numpy(zero_copy_only=False) & pc.is_valid(text).to_numpy(
        zero_copy_only=False
    )
    idx = np.flatnonzero(need_np)
    sub = text if len(idx) == n else text.take(pa.array(idx))
    m = len(idx)
    masks = _phrase_masks(sub)

    def spread(values: pa.Array) -> pa.Array:
        return _spread(idx, values, n)

    tool = pa.nulls(m, pa.large_string())
    for pat in _TOOL_FROM:
        tool = pc.coalesce(tool, _extract_where(sub, masks[_tool_phrase(pat)], pat))
    mismatch = masks[_phrase_index("call_id mismatch")]
    phrase_kind = spread(_select(masks, [p.kind for p in PHRASES], m))
    return Classified(
        kind=pc.coalesce(ev_kind, phrase_kind, lit("mw_other")),
        rule=spread(_select(masks, [p.rule for p in PHRASES], m)),
        reason=spread(_select(masks, [p.reason for p in PHRASES], m)),
        tool=spread(tool),
        field=spread(_extract_where(sub, masks[_phrase_index("missing required field")], _FIELD)),
        expected=spread(_extract_where(sub, mismatch, _EXPECTED)),
        got=spread(_extract_where(sub, mismatch, _GOT)),
    )


def _tool_phrase(pattern: str) -> int:
    key = "received response" if "received response" in pattern else "POST /tools"
    return next(i for i, p in enumerate(PHRASES) if key in p.pattern)
