"""\
What it does
  Counts the messages of each conversation against the message window (`[messages] window`,
  default 42). A warning when a call made after the window moved on uses an identifier (a
  string with a digit, or an upper-case code) that appears only in a tool result already
  outside the window: the model repeated it from memory or from a summary it cannot check.
  Otherwise, an info finding when tool results were rolled out of the window at all.

Why it matters
  A middleware that keeps only the last N messages silently drops the oldest tool results;
  the model keeps acting on facts it can no longer see, or asks for them again.

Example
  Message 3 is the result of `get_reservation` with `"ZFA04Y"`; at message 50 the model calls
  `cancel_reservation` with `ZFA04Y`, but the window holds only messages 8–49.

Fix
  Summarise old tool results into a pinned note instead of dropping them, raise the window,
  or re-fetch facts the current step depends on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects, with_attrs
from toolcall_cli.model.events import CONVERSATION_SOURCES
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import NO_ID, plural

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "TR004",
    "context-rolled",
    Severity.warning,
    "history longer than the window (default 42 messages): earlier results were rolled out",
    doc=__doc__,
    other_severities={
        Severity.info: "results were rolled out but no later call uses an identifier only they held"
    },
)

_ID_LIKE = re.compile(r"^(?=.*\d)[\w.@:/-]{4,}$|^[A-Z0-9_-]{5,}$")

_ASSISTANT = ("tool_call", "assistant_text")


@dataclass(frozen=True)
class Rolled:
    """One RULE hit, ready to become a finding."""

    session_id: str
    message: str
    rows: list[Any]  # labels of the event table rows that prove it
    severity: Severity
    call_ids: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def id_tokens(args: str | None) -> set[str]:
    """Identifier-like string values inside a call's arguments (ids, codes, references)."""
    parsed = try_loads(args) if args else None
    out: set[str] = set()
    stack: list[Any] = [parsed]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
        elif isinstance(cur, str) and len(cur) <= 80 and _ID_LIKE.match(cur):
            out.add(cur)
    return out


@dataclass(frozen=True, slots=True)
class _Msg:
    """One message event of a session: row label, position and text."""

    label: Any
    index: int
    kind: str
    call_id: str
    args: str
    detail: str


def _sessions(frame: pd.DataFrame, window: int) -> dict[str, list[_Msg]]:
    """The messages of every session longer than *window*, by session (frame order kept).

    Session lengths are computed column-wise first: only long sessions are read row by row.
    """
    import pandas as pd

    pos = [a.get("msg_index") for a in frame["_attrs"].tolist()]
    ok = [isinstance(p, int) and not isinstance(p, bool) for p in pos]
    sids = frame["session_id"].astype(str).to_numpy(dtype=object)
    at = pd.Series([float(p) if v else -1.0 for p, v in zip(pos, ok, strict=True)])
    longest = at.groupby(sids).max()
    long = set(longest.index[(longest + 1 > window).to_numpy()].tolist())
    out: dict[str, list[_Msg]] = {sid: [] for sid in sorted(long)}
    if not long:
        return out
    cols = [objects(frame, c) for c in ("kind", "tool_call_id", "args", "detail")]
    for k, (label, sid, kind, cid, args, detail) in enumerate(
        zip(frame.index.tolist(), sids, *cols, strict=True)
    ):
        if ok[k] and sid in long:
            out[sid].append(_Msg(label, pos[k], str(kind), _s(cid), _s(args), _s(detail)))
    return out


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _references(msgs: list[_Msg], window: int) -> list[tuple[_Msg, str, _Msg]]:
    """(call, token, rolled-out result) for calls that use ids only a rolled-out result held."""
    results = [m for m in msgs if m.kind == "tool_result"]
    out: list[tuple[_Msg, str, _Msg]] = []
    for call in (m for m in msgs if m.kind == "tool_call"):
        cutoff = call.index - window
        rolled = [r for r in results if r.index < cutoff]
        tokens = id_tokens(call.args) if rolled else set()
        if not tokens:
            continue
        visible = "\n".join(m.detail + m.args for m in msgs if cutoff <= m.index < call.index)
        for tok in sorted(tokens):
            hit = None if tok in visible else next((r for r in rolled if tok in r.detail), None)
            if hit is not None:
                out.append((call, tok, hit))
                break
    return out


def rolled_history(ev: pd.DataFrame, *, window: int) -> Iterator[Rolled]:
    """TR004 hits over an event table that carries the parsed `_attrs` column."""
    if window <= 0:
        return
    frame = ev[ev["source"].isin(CONVERSATION_SOURCES) & ev["session_id"].notna()]
    if not len(frame):
        return
    for sid, msgs in _sessions(frame, window).items():
        n = max((m.index for m in msgs), default=-1) + 1
        if n <= window:
            continue
        base = {"messages": n, "window": window}
        refs = _references(msgs, window)
        if refs:
            call, tok, res = refs[0]
            more = f" (and {len(refs) - 1} more such calls)" if len(refs) > 1 else ""
            msg = (
                f"the history of {plural(n, 'message')} exceeds the {window}-message window; call "
                f"{call.call_id or NO_ID} (message {call.index}) uses {tok!r}, which only "
                f"the tool result at message {res.index} held, outside the window{more}"
            )
            yield Rolled(
                str(sid),
                msg,
                [call.label, res.label],
                Severity.warning,
                tuple(c.call_id for c, _, _ in refs if c.call_id),
                {**base, "references": [t for _, t, _ in refs]},
            )
            continue
        last = max((m.index for m in msgs if m.kind in _ASSISTANT), default=None)
        if last is None:
            continue
        rolled = [m for m in msgs if m.kind == "tool_result" and m.index < last - window]
        if not rolled:
            continue
        yield Rolled(
            str(sid),
            f"the history of {plural(n, 'message')} exceeds the {window}-message window; by the "
            f"last request {plural(len(rolled), 'tool result')} (from message "
            f"{rolled[0].index} on) {'was' if len(rolled) == 1 else 'were'} outside it",
            [m.label for m in rolled[:3]],
            Severity.info,
            tuple(m.call_id for m in rolled if m.call_id),
            {**base, "rolled_results": len(rolled)},
        )


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR004: sessions longer than the message window whose tool results were rolled out."""
    for hit in rolled_history(with_attrs(ctx), window=ctx.cfg.message_window):
        yield make(
            RULE,
            ctx,
            hit.message,
            hit.rows,
            call_ids=hit.call_ids,
            session_id=hit.session_id,
            extra=hit.extra,
            severity=hit.severity,
            aim=_point(hit),
        )


def _point(hit: Rolled) -> Aim:
    """The value a later call took from a rolled-out result (in both lines), else the id of
    each rolled-out result."""
    refs = hit.extra.get("references") or []
    if refs:
        return Aim(needle=str(refs[0]))
    return Aim(key="tool_call_id")
