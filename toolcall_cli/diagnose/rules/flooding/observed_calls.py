"""The calls flooding rules compare: every observed call with its scope, identity, canonical
arguments and occasion.

The occasion is the assistant turn that made the call: its source, the origin of the message
holding it (the call's origin without its `/tool_calls/N` or `/content[/N]` tail, so two
responses or two records never share one) and the adapters' `turn`/`msg_index` attr; the
same call seen by the middleware takes its conversation row's occasion. Else it is the call
itself: identical calls of one turn are one occasion (FL007's parallel
duplicates), not a loop. `_rank` orders a session's occasions as they happened.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import first_rows, of_kind
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import OBSERVED_CALL_KINDS
from toolcall_cli.model.jsonio import canonical, try_loads

if TYPE_CHECKING:
    import pandas as pd


def observed_calls(ctx: DiagnoseContext) -> pd.DataFrame:
    """Every observed tool call (conversation, capture, middleware) with scope and identity."""

    def build() -> pd.DataFrame:
        calls = of_kind(ctx, *OBSERVED_CALL_KINDS).copy()
        calls = calls[calls["tool"].notna()]
        calls["_scope"] = calls["session_id"].fillna(calls.get("trace", calls["trace_id"]))
        ids = calls["tool_call_id"].astype(object)
        calls["_ident"] = ids.where(ids.notna() & (ids != ""), "@" + calls["origin"].astype(str))
        calls["_canon"] = [canonical_args(a) for a in calls["args"].tolist()]
        calls = calls[calls["_scope"].notna()]
        return _with_occasions(calls)

    return ctx.memo("flooding_calls", build)


#: The tail of a call's origin below the message that holds it.
_MESSAGE_OF = re.compile(r"/(?:tool_calls|content|function_call)(?:/\d+)?$")


def _with_occasions(calls: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    turns = [
        a.get("turn", a.get("msg_index")) for a in calls["_attrs"].tolist()
    ]  # conversation rows only: the middleware logs no turns
    keys = [
        f"{src}|{_MESSAGE_OF.sub('', str(origin))}|{t}"
        if t is not None and not isinstance(t, bool)
        else None
        for src, origin, t in zip(
            calls["source"].astype(object).tolist(),
            calls["origin"].astype(object).tolist(),
            turns,
            strict=True,
        )
    ]
    occ = pd.Series(keys, index=calls.index, dtype=object)
    occ = occ.groupby(calls["_ident"], sort=False).transform("first")
    calls = calls.assign(_occasion=occ.where(occ.notna(), "@" + calls["_ident"].astype(str)))
    firsts = first_rows(calls, ["_scope", "_occasion"])[["_scope", "_occasion"]]
    # Where the conversation recorded a scope, its turns say what came between two repeats: a
    # call only the middleware saw (an occasion of its own, "@id") is no turn of the model's
    # record and gets no rank, else every repeat a busy session's log interleaves in time
    # would look like a remedy made in between.
    told = ~firsts["_occasion"].astype(str).str.startswith("@")
    ranked = firsts[told | ~told.groupby(firsts["_scope"], sort=False).transform("any")]
    firsts = firsts.assign(_rank=ranked.groupby("_scope", sort=False).cumcount())
    # each call takes its (scope, occasion)'s rank: a left merge on the two keys, as a lookup
    # (a merge has a fixed cost however few the calls)
    rank_of = dict(
        zip(
            zip(firsts["_scope"].tolist(), firsts["_occasion"].tolist(), strict=True),
            firsts["_rank"].tolist(),
            strict=True,
        )
    )
    per_call = zip(calls["_scope"].tolist(), calls["_occasion"].tolist(), strict=True)
    ranks = pd.Series(
        [rank_of[k] for k in per_call], index=calls.index, dtype=firsts["_rank"].dtype
    )
    return calls.assign(_rank=ranks)


def canonical_args(raw: Any) -> str | None:
    """Canonical text of arguments: canonical JSON when they parse, else the raw text.

    Returns None for calls without arguments ("" / "{}" / null), which loop detection skips.
    """
    s = text(raw)
    if s is None or not s.strip():
        return None
    parsed = try_loads(s)
    if parsed is None and s.strip() != "null":
        return "raw:" + s.strip()
    if parsed in (None, {}, [], ""):
        return None
    return "json:" + canonical(parsed)
