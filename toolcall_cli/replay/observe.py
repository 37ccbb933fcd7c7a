"""What the evidence says happened to a call, and whether the replay agrees with it.

Observed outcome, first match wins:

- ``rejected`` — the middleware logged a validation rejection (`mw_rejected`);
- ``flooded`` — it logged the flooding cancellation (`mw_flooded`);
- ``dispatched`` — the request reached the tool service (`mw_request`, pcap `http_request`)
  or a tool result came back into the conversation;
- ``missing`` — middleware or pcap evidence exists for the session but none for this call, or
  the conversation went on after the call without a result (a silent drop);
- ``unknown`` — only the conversation, which ends at the call, or the user aborted the call's
  turn (Codex `turn_aborted`, Claude Code's interrupt): it was cancelled, not dropped.

Agreement: a replayed call counts as dispatched when it passed the pre-dispatch stages
(prescreen, schema, ratelimit) — a `response` or `inject` failure happens after the request
went out. Then ``agrees = (replayed dispatched) == (observed dispatched)``, and a rejection
must come from the matching place: ``rejected@ratelimit`` ↔ ``flooded``, any other
``rejected@STAGE`` ↔ ``rejected``. ``missing`` agrees with any rejection (the middleware
dropped it without a log line). ``unknown`` has nothing to contradict and always agrees.
"""

from __future__ import annotations

from toolcall_cli.model.events import DISPATCH_KINDS
from toolcall_cli.replay.base import PRE_DISPATCH, ToolCall, Verdict


def observe(call: ToolCall) -> str:
    """The observed outcome of *call* from its evidence (see the module docstring)."""
    kinds = call.kinds
    if "mw_rejected" in kinds:
        return "rejected"
    if "mw_flooded" in kinds:
        return "flooded"
    if kinds & DISPATCH_KINDS or call.result is not None:
        return "dispatched"
    if call.user_aborted:  # cancelled by the user: nothing says a hop dropped it
        return "unknown"
    if call.wire_in_scope:
        return "missing"
    return "missing" if call.later_messages else "unknown"


def replayed(verdicts: tuple[Verdict, ...]) -> str:
    """``dispatched`` or ``rejected@STAGE`` (the first failing stage)."""
    first = next((v for v in verdicts if v.failed), None)
    return "dispatched" if first is None else f"rejected@{first.stage}"


def was_dispatched(outcome: str) -> bool:
    """True when a replayed outcome means the request went out (pre-dispatch stages passed)."""
    return outcome == "dispatched" or outcome.split("@", 1)[-1] not in PRE_DISPATCH


def agrees(replayed_outcome: str, observed: str) -> bool:
    """Whether the replay and the evidence tell the same story."""
    if observed == "unknown":
        return True
    sent = was_dispatched(replayed_outcome)
    if observed == "dispatched" or sent:
        return sent and observed == "dispatched"
    if observed == "missing":
        return True
    stage = replayed_outcome.split("@", 1)[-1]
    return (stage == "ratelimit") == (observed == "flooded")
