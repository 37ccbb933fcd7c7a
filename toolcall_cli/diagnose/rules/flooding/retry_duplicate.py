"""\
What it does
  Fires when one tool call (one tool_call_id) is sent to the tool service two or more times:
  repeated middleware requests, repeated captured POST /tools/NAME requests, repeated
  access-log lines, or an nginx 499/504 on a tool request followed by a repeat of it.
  Ids that the conversation shows on different calls are left to FL003.

Why it matters
  A retry after a timeout re-runs the tool (a second booking, a second payment) and counts
  again against the flooding window; the first response may still arrive and be dropped
  or injected twice.

Example
  POST /tools/book_flight X-Tool-Call-ID: call_r1 → 504 after 5 s; 10 ms later the
  middleware sends POST /tools/book_flight with call_r1 again.

Fix
  Make tool requests idempotent (pass the tool_call_id as an idempotency key and let the
  service return the stored result), exclude retries from the flooding count, and raise the
  upstream timeout above the tool's real latency.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import of_kind
from toolcall_cli.diagnose.kit.incidents import FLOOD_OR001, SLOW_REQUEST
from toolcall_cli.diagnose.rules.flooding.cancellations import cite_floods
from toolcall_cli.diagnose.rules.flooding.http_requests import TOOL_PATH, requests
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import plural

if TYPE_CHECKING:
    import pandas as pd

#: A repeat of a 499/504 tool request within this window is a retry.
RETRY_WINDOW = timedelta(seconds=60)

RULE = rule(
    "FL004",
    "retry-duplicate",
    Severity.error,
    "the same call sent to the tool service twice (timeout retry without a new id)",
    doc=__doc__,
    explains=(FLOOD_OR001, SLOW_REQUEST),
)


def _sends(ctx: DiagnoseContext) -> pd.DataFrame:
    """Requests to the tool service: middleware requests, captured and logged /tools/ POSTs."""
    import pandas as pd

    reqs = requests(ctx)
    tool_http = reqs[
        reqs["_path"].str.match(TOOL_PATH) | (reqs["kind"] == "http_request") & reqs["tool"].notna()
    ]
    mw = of_kind(ctx, "mw_request")
    return pd.concat([mw, tool_http[mw.columns.intersection(tool_http.columns)]])


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One call sent to the tool service ≥2 times (per source), or a 499/504 then a repeat."""
    sends = _sends(ctx)
    if not len(sends):
        return
    id_defects = {c for f in ctx.findings_of("FL003") for c in f.tool_call_ids}
    flagged: set[str] = set()
    with_id = sends[sends["tool_call_id"].notna() & (sends["tool_call_id"] != "")]
    # only ids sent twice or more can fire: drop the (many) single sends before iterating groups
    sent = with_id.groupby(["tool_call_id", "source"], sort=False)["kind"].transform("size")
    with_id = with_id[sent.to_numpy() >= 2]
    for (cid, source), grp in with_id.groupby(["tool_call_id", "source"], sort=True):
        if len(grp) < 2 or cid in id_defects or cid in flagged:
            continue
        args = grp["args"].dropna().unique()
        if len(args) > 1:  # different arguments under one id: FL003's territory
            continue
        flagged.add(str(cid))
        codes = [int(s) for s in grp["http_status"].dropna() if int(s) in (499, 502, 504)]
        why = f" after HTTP {codes[0]}" if codes else ""
        tool = text(grp["tool"].dropna().iloc[0]) if grp["tool"].notna().any() else "?"
        yield make(
            RULE,
            ctx,
            f"call {cid} ({tool}) was sent to the tool service {plural(len(grp), 'time')}{why} "
            f"({source})",
            cite_floods(ctx, grp),
            call_ids=[str(cid)],
            extra={"sends": len(grp), "source": str(source)},
            aim=Aim(key="tool_call_id", needle=str(cid)),
        )
    yield from _nginx_retries(ctx, sends, flagged)


def _nginx_retries(
    ctx: DiagnoseContext, sends: pd.DataFrame, flagged: set[str]
) -> Iterator[Finding]:
    """Access-log tool requests without ids: a 499/504, then the same path from the same scope."""
    import pandas as pd

    lines = sends[
        (sends["kind"] == "http_access")
        & (sends["tool_call_id"].isna() | (sends["tool_call_id"] == ""))
    ]
    if not len(lines):
        return
    scope = lines["session_id"].fillna(lines["client"]).fillna("")
    for (_, tool), grp in lines.groupby([scope, lines["tool"].fillna("")], sort=True):
        grp = grp.sort_values("ts", kind="stable")
        times: list[Any] = grp["ts"].tolist()
        status: list[Any] = grp["http_status"].tolist()
        for k in range(len(grp) - 1):
            if pd.isna(status[k]) or int(status[k]) not in (499, 504) or pd.isna(times[k + 1]):
                continue
            gap = times[k + 1] - times[k]
            if gap > RETRY_WINDOW:
                continue
            yield make(
                RULE,
                ctx,
                f"POST /tools/{tool} got HTTP {int(status[k])} and was sent again "
                f"{gap.total_seconds():.0f} s later",
                cite_floods(ctx, grp.iloc[k : k + 2]),
                extra={"sends": 2, "source": str(grp["source"].iloc[k])},
                aim=Aim(pattern=r'"POST [^"]*" \d{3}'),  # the path and its status
            )
            break
