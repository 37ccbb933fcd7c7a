"""\
What it does
  Finds tool calls that timed out (a middleware `tool call timeout`, an HTTP 504/408 from the
  tool service, an nginx 504/499 for the call, or a short tool result that says it timed out)
  and checks what the model was told: a result with no partial data, progress, resume token,
  job/task id, handle or cursor is a bare timeout. A call the client cancelled on a timeout
  (MCP `notifications/cancelled` saying it timed out) after the tool had reported progress is
  the same story told by the protocol: the tool was working, and the model got nothing of it.

Why it matters
  The model cannot tell "failed" from "not finished yet" from "finished but the answer was
  lost"; it retries the whole call (duplicate side effects) or gives up.

Example
  `{"error": "tool call timeout"}` after a 30 s `export_report` that had written 300 of 1,000
  rows.

Fix
  Treat a timeout as a state, not an error: return `status: "partial"` with progress and a
  resume token, or run long tools as submit + poll (`task_id`, `check_task`), with an
  idempotency key so a retry does not repeat side effects.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.call_label import call_label, tools_by_call
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import CALL_KINDS, CANCEL_KINDS, PROGRESS_KINDS, RESULT_KINDS
from toolcall_cli.model.findings import Explains, Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "TM001",
    "timeout-without-partial",
    Severity.warning,
    "a tool timeout reported to the model as a bare error, with no progress or resume token",
    doc=__doc__,
    explains=(
        Explains("OR001", breakpoints=("no-response", "cancelled")),
        Explains("TM002", match="calls"),
    ),
)

_TIMEOUT_TEXT = re.compile(
    r"\btim(?:ed|e)[\s_-]?out\b|\btimeout\b|deadline exceeded|ETIMEDOUT", re.IGNORECASE
)

_PROGRESS = re.compile(
    r"partial|progress|resum|job[\s_-]?id|task[\s_-]?id|\bhandle\b|cursor|continuation|\bpoll",
    re.IGNORECASE,
)

_ERRORISH = re.compile(
    r"\b(?:error|fail(?:ed|ure)?|exception|unavailable|abort(?:ed)?|cancell?ed|gateway)\b",
    re.IGNORECASE,
)

#: A tool result longer than this that mentions a timeout is content, not a bare error.
BARE_RESULT_CHARS = 600

_TIMEOUT_HTTP = (504, 408)

_TIMEOUT_ACCESS = (504, 499)


def bare_timeout(result: str) -> bool:
    """The result text carries no partial data, progress, resume token or handle."""
    return not _PROGRESS.search(result)


def _timeouts(ev: pd.DataFrame) -> dict[str, tuple[str, list[Any]]]:
    """tool_call_id → (what timed out, evidence rows) from middleware, HTTP and access logs."""
    import pandas as pd

    out: dict[str, tuple[str, list[Any]]] = {}
    status = ev["http_status"]
    mw = ev["kind"] == "mw_timeout"
    http = (ev["kind"] == "http_response") & status.isin(_TIMEOUT_HTTP).fillna(False)
    access = (ev["kind"] == "http_access") & status.isin(_TIMEOUT_ACCESS).fillna(False)
    for mask, what in (
        (mw, "the middleware logged a tool call timeout"),
        (http, "the tool service answered HTTP {s}"),
        (access, "{source} logged HTTP {s} for it"),
    ):
        rows = ev[mask.astype(bool) & ev["tool_call_id"].notna()]
        for idx, cid, st, source in zip(
            rows.index,
            rows["tool_call_id"].astype(str),
            rows["http_status"],
            rows["source"].astype(str),
            strict=True,
        ):
            if not cid:
                continue
            label = what.format(s=st if pd.notna(st) else "", source=source)
            prev = out.get(cid)
            out[cid] = (prev[0] if prev else label, [*(prev[1] if prev else []), idx])
    return out


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TM001: timed-out calls whose result told the model nothing it could resume from."""
    ev = ctx.events()
    yield from _cancelled_after_progress(ctx, ev)
    results = ev[(ev["kind"] == "tool_result") & ev["detail"].notna()]
    if not len(results):
        return
    signals = _timeouts(ev)
    names = tools_by_call(ev)
    done: set[str] = set()
    for idx, raw, raw_id, raw_tool in zip(
        results.index.tolist(),
        results["detail"].tolist(),
        objects(results, "tool_call_id"),
        objects(results, "tool"),
        strict=True,
    ):
        detail = str(raw)
        cid = text(raw_id) or ""
        key = cid or f"#{idx}"
        if key in done:
            continue
        signal = signals.get(cid) if cid else None
        if len(detail) > BARE_RESULT_CHARS:
            continue  # a payload, not an error message (a retry may have succeeded: FL004)
        said_timeout = bool(_TIMEOUT_TEXT.search(detail))
        if signal is None and not said_timeout:
            continue
        if not (said_timeout or _ERRORISH.search(detail) or not detail.strip()):
            continue  # the model got a real answer (a retry may have succeeded: FL004)
        if not bare_timeout(detail):
            continue
        done.add(key)
        what = signal[0] if signal else "the tool result says it timed out"
        rows = [*signal[1][:2], idx] if signal else [idx]
        quoted = detail.strip().replace("\n", " ")
        quoted = quoted if len(quoted) <= 120 else quoted[:119] + "…"
        tool = text(raw_tool) or names.get(cid)
        yield make(
            RULE,
            ctx,
            f"{call_label(cid, tool)} timed out ({what}) and the model got only "
            f"{quoted!r}: no partial result, progress or resume handle",
            rows,
            call_ids=[cid or None],
            aims={idx: Aim(needle=detail.strip()[:80] or None)},  # what the model got
            aim=Aim(key="msg"),  # the timeout the middleware logged
        )


def _cancelled_after_progress(ctx: DiagnoseContext, ev: pd.DataFrame) -> Iterator[Finding]:
    """Calls cancelled on a timeout after progress reports, with no result that carries any
    of that progress (the model saw a bare failure, or nothing)."""
    kind = ev["kind"]
    cancels = ev[kind.isin(CANCEL_KINDS) & ev["tool_call_id"].notna()]
    if not len(cancels):
        return
    timed_out = cancels["detail"].fillna("").astype(str).str.contains(_TIMEOUT_TEXT)
    cancels = cancels[timed_out]
    progress = ev[kind.isin(PROGRESS_KINDS)].groupby("tool_call_id", sort=False)
    reported = {str(k): g for k, g in progress}
    is_call = kind.isin(CALL_KINDS)
    results = ev[kind.isin(RESULT_KINDS)]
    names = tools_by_call(ev)
    for idx, cid, reason in zip(
        cancels.index, cancels["tool_call_id"].astype(str), cancels["detail"], strict=True
    ):
        steps = reported.get(cid)
        if steps is None or not len(steps):
            continue  # no progress: OR001 `cancelled` says it; nothing was thrown away
        got = results.loc[results["tool_call_id"] == cid, "detail"].dropna().astype(str)
        if any(not bare_timeout(r) for r in got):
            continue  # the model was told how far it got
        last = steps.index[-1]
        call = ev.index[is_call & (ev["tool_call_id"] == cid)][:1].tolist()
        rows = [*call, last, idx]
        said = text(steps.at[last, "detail"]) or "progress"
        yield make(
            RULE,
            ctx,
            f"{call_label(cid, names.get(cid))} was cancelled ({text(reason)}) after "
            f"{len(steps)} progress report(s), the last {said!r}, and the model got no partial "
            "result",
            rows,
            call_ids=[cid],
            aims={last: Aim(needle=said), idx: Aim(needle=text(reason))},
        )
