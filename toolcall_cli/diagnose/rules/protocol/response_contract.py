"""\
What it does
  Checks every tool-service response seen on the wire (capture) or logged by the middleware:
  a JSON body must carry `status`, and a body whose status is an error must not also carry
  `data`.

Why it matters
  A middleware that validates responses drops the ones without `status` (the call then has no
  result), and an error with data leaves the model to guess which of the two to believe.

Example
  `{"data": {"seats": 3}}` from `POST /tools/check_seats`, or
  `{"status": "error", "data": {"seats": 3}}`.

Fix
  Make the tool service always answer `{"status": "ok"|"error", "data": ..., "message": ...}`
  and send `data` only with `ok`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.call_label import tool_to_call
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects, with_attrs
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import TOOL_RESPONSE_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "PR004",
    "response-contract",
    Severity.error,
    "a tool response without `status`, or with error status and data",
    doc=__doc__,
)

_ERROR = frozenset({"error", "failed", "failure", "fail", "err"})

_BODY_KEYS = ("call_id", "timestamp", "message", "data_empty")

_NO_STATUS = re.compile(r"(?:missing|no|without)(?: the)? [\"'`]?status\b", re.IGNORECASE)


def tool_responses(ctx: DiagnoseContext) -> pd.DataFrame:
    """Tool-service responses: captured HTTP responses of a tool, and middleware responses."""

    def build() -> pd.DataFrame:
        ev = with_attrs(ctx)
        return ev[(ev["kind"].isin(TOOL_RESPONSE_KINDS)) & ev["tool"].notna()]

    return ctx.memo("tool_responses", build)


def _json_body(a: dict[str, Any], status: str | None) -> bool:
    ctype = str(a.get("content_type") or "").lower()
    return "json" in ctype or any(k in a for k in _BODY_KEYS) or status is not None


def _contract_problem(kind: str, status: str | None, a: dict[str, Any], detail: Any) -> str | None:
    """What breaks the contract in one response, or None."""
    status = status or (str(a["status"]) if a.get("status") is not None else None)
    if kind == "http_response":
        if not _json_body(a, status):
            return None
        if status is None:
            return "the JSON body has no `status`"
    elif status is None and (a.get("status_missing") or _NO_STATUS.search(text(detail) or "")):
        return "the response has no `status`"
    data = a.get("data")
    has_data = (
        a.get("data_empty") is False
        or a.get("has_data") is True
        or (data is not None and data not in ({}, [], ""))
    )
    if status is not None and status.lower() in _ERROR and has_data:
        return f"status is {status!r} but the body also carries `data`"
    return None


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR004: one finding per response that breaks the `{status, data, message}` contract."""
    resp = tool_responses(ctx)
    # a response whose status column is a non-error word keeps the contract: skip it unread
    st = resp["status"]
    words = [s for s in st.dropna().unique().tolist() if s and s.lower() not in _ERROR]
    fine = st.isin(words).fillna(False).to_numpy(dtype=bool)
    suspect = resp[~fine]
    for idx, kind, status, a, detail, tool, cid_raw in zip(
        suspect.index.tolist(),
        objects(suspect, "kind"),
        objects(suspect, "status"),
        suspect["_attrs"].tolist(),
        objects(suspect, "detail"),
        objects(suspect, "tool"),
        objects(suspect, "tool_call_id"),
        strict=True,
    ):
        problem = _contract_problem(str(kind), text(status), a, detail)
        if problem is None:
            continue
        cid = text(cid_raw)
        yield make(
            RULE,
            ctx,
            f"the response of {tool_to_call(tool, cid)} breaks the contract: {problem}",
            [idx],
            call_ids=[cid or None],
            aim=Aim(key="status", pattern=r"\bhttp_status=\d+"),
        )
