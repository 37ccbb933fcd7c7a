"""\
What it does
  Recognises the error messages LLM providers return for broken tool-call histories and
  tool definitions (OpenAI, Anthropic, Bedrock, Mistral, DashScope, DeepSeek, Groq, ...) in
  any source: the conversation, middleware logs, access-log details and captured response
  bodies. Each is mapped to its cause and to the code that diagnoses it (`related_code`).
  Provider error bodies that match no known message are reported as unrecognised.

Why it matters
  The provider's message names a symptom ("tool_use ids were found without tool_result
  blocks"), not the defect that produced it (a dropped tool result). Mapping one to the
  other saves the first hour of an incident.

Example
  `400 Invalid parameter: messages with role 'tool' must be a response to a preceeding
  message with 'tool_calls'` → a tool result without its call (OR002).

Fix
  It depends on the cause (`provider_fixes`). A broken history (a missing or orphan result, a
  duplicate id, arguments that are not JSON) or a rejected tool definition: repair it before
  the next request, since a retry with the same history fails the same way. A rate limit
  (HTTP 429): back off and retry, honouring Retry-After. An overloaded provider: retry with
  backoff. An unrecognised message is a warning: read the provider's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import has_key, with_attrs
from toolcall_cli.diagnose.rules.protocol.provider_fixes import fix_for
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import plural

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

RULE = rule(
    "PR008",
    "provider-error",
    Severity.error,
    'a known provider error message (e.g. "must be a response to a preceeding message with '
    "'tool_calls'\")",
    doc=__doc__,
    other_severities={Severity.warning: "a provider error body that matches no known message"},
)

_Q = r"[\"'`\\]*"  # any quoting around a field name


@dataclass(frozen=True, slots=True)
class KnownError:
    """One provider error message and what it means."""

    provider: str
    regex: str  # matched ignoring case
    cause: str
    related_code: str | None
    anywhere: bool = True  # specific enough to trust in any text (else: provider error bodies only)

    @property
    def pattern(self) -> re.Pattern[str]:
        """The regex compiled on first use (`re` keeps it): registering the rule, as
        `toolcall rules` does, compiles none of the catalogue's patterns."""
        return re.compile(self.regex, re.IGNORECASE)


def _k(
    provider: str, pattern: str, cause: str, code: str | None, *, anywhere: bool = True
) -> KnownError:
    return KnownError(provider, pattern, cause, code, anywhere)


KNOWN_ERRORS: tuple[KnownError, ...] = (
    _k(
        "openai",
        rf"with role {_Q}tool{_Q} must be a response to a prece+ding message with {_Q}tool_calls",
        "a tool result with no assistant tool_calls message before it (orphan result)",
        "OR002",
    ),
    _k(
        "openai",
        rf"assistant message with {_Q}tool_calls{_Q} must be followed by tool messages responding",
        "a tool call whose tool result is missing from the history",
        "OR001",
    ),
    _k(
        "openai",
        rf"duplicate value for {_Q}tool_call_id",
        "one tool_call_id used for two calls or results",
        "FL003",
    ),
    _k(
        "openai",
        r"no tool output found for function call",
        "a tool call whose tool output is missing from the history",
        "OR001",
    ),
    _k("anthropic", rf"tool_use{_Q} ids must be unique", "one tool_use id used twice", "FL003"),
    _k(
        "anthropic",
        rf"tool_use{_Q} ids were found without {_Q}tool_result{_Q} blocks immediately after",
        "a tool_use without its tool_result in the next message (missing: OR001, or late: OR004)",
        "OR001",
    ),
    _k(
        "anthropic",
        rf"unexpected {_Q}tool_use_id{_Q} found in {_Q}tool_result{_Q} blocks",
        "a tool_result whose tool_use is not in the previous message (orphan result)",
        "OR002",
    ),
    _k(
        "anthropic",
        r"source tool \S+ not found for tool use block",
        "a tool_use that refers to a server tool call missing from the history (orphaned caller)",
        "OR002",
    ),
    _k(
        "anthropic",
        r"tools\.\d+\.\S*input_schema\S*: field required|input_schema\S*: field required",
        "a tool definition whose input_schema lacks a required field (run toolcall lint)",
        "SC001",
    ),
    _k(
        "openai",
        r"invalid schema for function|invalid_function_parameters",
        "a tool definition whose parameters schema the provider rejects (run toolcall lint)",
        "SC001",
    ),
    _k(
        "bedrock",
        r"contain duplicate ids|duplicate tool ?use ids?",
        "duplicate toolUse ids in one message",
        "FL003",
    ),
    _k(
        "mistral",
        r"not the same number of function calls and responses",
        "tool calls and tool results out of step (a result missing or extra)",
        "OR001",
    ),
    _k(
        "dashscope",
        r"repetitive tool calls detected",
        "the model repeated the same tool call (a loop)",
        "FL001",
    ),
    _k(
        "deepseek",
        r"no tool output found for tool call",
        "a tool call whose tool output is missing from the history",
        "OR001",
    ),
    _k(
        "dashscope",
        rf"function\.arguments{_Q} parameter .{{0,40}}must be in json format",
        "tool-call arguments replayed to the provider are not JSON",
        "PR001",
    ),
    _k(
        "groq",
        r"tool call validation failed",
        "the model's arguments failed the provider's schema validation (tool_use_failed)",
        "TR001",
    ),
    _k(
        "groq",
        r"tool choice is required, but model did not call a tool",
        "tool_choice required a call but the model answered in text",
        None,
    ),
    _k(
        "openai",
        r"maximum context length|context_length_exceeded|prompt is too long",
        "the history no longer fits the model's context window",
        "TR004",
    ),
    _k(
        "any",
        r"does not exist or you do not have access to it|model_not_found",
        "the model name is unknown to the provider or the key lacks access",
        None,
        anywhere=False,
    ),
    _k(
        "any",
        r"rate[- ]?limit|too many requests|quota exceeded|resource_exhausted",
        "the provider rate-limited the request (HTTP 429)",
        None,
        anywhere=False,
    ),
    _k(
        "any",
        r"overloaded|service unavailable|bad gateway",
        "the provider was overloaded or unavailable (retryable)",
        None,
        anywhere=False,
    ),
)

#: Vectorised pre-filter: every pattern trusted anywhere, as one alternation.
_HINT = "|".join(f"(?:{k.regex})" for k in KNOWN_ERRORS if k.anywhere)

_RATE_LIMIT = next(k for k in KNOWN_ERRORS if "rate" in k.regex)


def _search(col: pd.Series, pattern: str) -> np.ndarray:
    """Rows of a string column matching *pattern*, ignoring case (RE2 via pyarrow: linear time).

    pandas falls back to Python's `re` for case-insensitive search, which is far too slow on
    large attrs and bodies.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(col.array, type=pa.large_string())
    hit = pc.match_substring_regex(arr, pattern, ignore_case=True).fill_null(False)
    return np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)


def _search_distinct(col: pd.Series, pattern: str) -> np.ndarray:
    """`_search` over the distinct values of *col* only (logs repeat their texts), per row."""
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    if not len(uniques):
        return np.zeros(len(col), dtype=bool)
    hit = _search(pd.Series(uniques), pattern)
    return np.append(hit, False)[codes]  # null cells (code -1) never match


def match_error(message: str, *, provider_body: bool = False) -> KnownError | None:
    """The known error *message* is an instance of; weak patterns only for provider bodies."""
    for known in KNOWN_ERRORS:
        if (known.anywhere or provider_body) and known.pattern.search(message):
            return known
    return None


def _text_of(detail: Any, a: dict[str, Any]) -> str:
    """The error text of an event: its detail, else a `message` from its attrs."""
    if isinstance(detail, str) and detail:
        return detail
    msg = a.get("message")
    return msg if isinstance(msg, str) else ""


@dataclass
class _Group:
    known: KnownError | None
    provider: str
    status: str | None
    message: str
    labels: list[Any] = field(default_factory=list)


def _quote(message: str, limit: int = 200) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


#: The fix of an error no catalogue entry explains (its cause is "unknown").
_UNKNOWN_FIX = (
    "No catalogued cause matches this message: read the provider's words quoted above, and "
    "the serving stack's own log for the request (model, HTTP status, backend error)."
)


def _http(status: Any) -> int | None:
    """An http_status cell as an int (None when null or not a number)."""
    try:
        return int(float(str(status))) if text(status) is not None else None
    except ValueError:
        return None


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR008: one finding per (known message, trace): provider, cause and related code."""
    import numpy as np

    ev = with_attrs(ctx)
    body = has_key(ev, "provider_error")
    keyed = np.flatnonzero(body)
    body[keyed] = [a.get("provider_error") is True for a in ev["_attrs"].to_numpy()[keyed]]
    hinted = _search_distinct(ev["detail"], _HINT) | _search_distinct(ev["attrs"], _HINT)
    cand = ev[hinted | body]
    if not len(cand):
        return
    scopes = cand["trace"] if "trace" in cand.columns else cand["session_id"]
    groups: dict[tuple[str, str], _Group] = {}
    for label, detail, a, status, scope, sid in zip(
        cand.index,
        cand["detail"],
        cand["_attrs"],
        cand["http_status"],
        scopes,
        cand["session_id"],
        strict=True,
    ):
        msg = _text_of(detail, a)
        is_body = a.get("provider_error") is True
        known = match_error(msg, provider_body=is_body)
        # http_status is a nullable column: NA == 429 is NA, whose truth value raises
        if known is None and is_body and _http(status) == 429:
            known = _RATE_LIMIT
        if known is None and not is_body:
            continue
        provider = str(a.get("provider") or (known.provider if known else "unknown"))
        where = text(scope) or text(sid) or ""
        key = (known.regex if known else f"unknown:{msg[:80]}", where)
        group = groups.setdefault(key, _Group(known, provider, text(status), msg))
        group.labels.append(label)
    for g in groups.values():
        rows = cand.loc[g.labels]
        ids = [text(c) or None for c in rows["tool_call_id"]]
        times = f" ({plural(len(g.labels), 'time')})" if len(g.labels) > 1 else ""
        if g.known is None:
            http = f" (HTTP {g.status})" if g.status else ""
            yield make(
                RULE,
                ctx,
                f'{g.provider} returned an unrecognised error{http}{times}: "{_quote(g.message)}"',
                rows,
                call_ids=ids,
                severity=Severity.warning,
                extra={"provider": g.provider, "cause": "unknown", "related_code": None},
                aim=Aim(needle=g.message[:80] or None),
                fix=_UNKNOWN_FIX,
            )
            continue
        see = f" (see {g.known.related_code})" if g.known.related_code else ""
        yield make(
            RULE,
            ctx,
            f'{g.provider} rejected the request{times}: "{_quote(g.message)}" — '
            f"cause: {g.known.cause}{see}",
            rows,
            call_ids=ids,
            extra={
                "provider": g.provider,
                "cause": g.known.cause,
                "related_code": g.known.related_code,
            },
            fix=fix_for(g.known.cause, g.known.related_code),
            aim=Aim(needle=g.message[:80] or None),
        )
