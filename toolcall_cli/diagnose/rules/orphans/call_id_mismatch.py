"""\
What it does
  Compares the call_id in each tool-service response (captured response body, middleware
  response log) with the tool_call_id of the request it answers, and reports middleware
  lines that say "call_id mismatch".

Why it matters
  A middleware that checks the id drops the response, so the call never gets a result (see
  OR001 response-dropped); one that does not check injects another call's data under this
  call's id, and the model reasons on the wrong facts.

Example
  POST /tools/get_weather X-Tool-Call-ID: call_a → {"status": "success", "call_id":
  "call_b", ...}; the middleware logs "call_id mismatch" and discards it.

Fix
  Have the tool service echo the request's X-Tool-Call-ID unchanged (no caching of
  responses across calls, no connection reuse bugs returning a previous response).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import attr, with_attrs
from toolcall_cli.diagnose.kit.incidents import SLOW_REQUEST
from toolcall_cli.model.findings import Explains, Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

RULE = rule(
    "OR003",
    "call-id-mismatch",
    Severity.error,
    "the tool service answered with another call_id",
    doc=__doc__,
    explains=(Explains("OR001", breakpoints=("response-dropped",)), SLOW_REQUEST),
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Responses whose call_id differs from the request's id; middleware "call_id mismatch"."""
    ev = with_attrs(ctx)
    kinds = ["http_response", "mw_response", "mw_dropped", "mw_other", "mw_rejected"]
    resp = ev.loc[ev["kind"].isin(kinds), ["tool_call_id", "detail", "_attrs"]]
    if not len(resp):
        return
    answered = attr(resp, "call_id")
    ids = resp["tool_call_id"].astype(object)
    differs = answered.notna() & ids.notna() & (answered.astype(str) != ids.fillna("").astype(str))
    said = (
        resp["detail"]
        .fillna("")
        .str.contains(r"call_id mismatch|call id mismatch", case=False, regex=True)
    )
    hits = resp[differs | said]
    for cid, grp in hits.groupby(hits["tool_call_id"].fillna("(unknown)"), sort=True):
        got = [str(x) for x in attr(grp, "call_id").dropna().unique() if str(x) != cid]
        what = f"answered with call_id {', '.join(got)}" if got else "logged a call_id mismatch"
        yield make(
            RULE,
            ctx,
            f"the tool service {what} for call {cid}",
            grp.index.tolist(),
            call_ids=[] if cid == "(unknown)" else [str(cid)],
            extra={"answered_call_id": got[0] if got else None},
            # the point of each line: the id the service answered with, or the words saying so
            aims=dict.fromkeys(grp.index.tolist(), Aim(key="call_id", needle="mismatch")),
        )
