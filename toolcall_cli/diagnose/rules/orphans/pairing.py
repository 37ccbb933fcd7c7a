"""Pairing calls with results: per conversation by (scope, id), and by position for calls
without an id; where each call sits, for results that come before or after it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import attr, isin_set, objects, of_kind
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import CONVERSATION_KINDS

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    #: (scopes, ids): two object arrays of equal length, one (scope, id) pair per position
    _Pairs = tuple[np.ndarray, np.ndarray]


def _no_pairs() -> _Pairs:
    """No (scope, id) pairs (built on use: numpy loads only when diagnose runs)."""
    import numpy as np

    return (np.array([], dtype=object), np.array([], dtype=object))


@dataclass(frozen=True)
class ConversationIndex:
    """Calls and results of every conversation, with pairing lookups."""

    calls: pd.DataFrame
    results: pd.DataFrame
    result_keys: _Pairs  # (scope, id) of every result: scope = "s:<session>" | "t:<trace>"
    injected_keys: _Pairs = field(default_factory=_no_pairs)
    trailing: frozenset[int] = field(default_factory=frozenset)

    def answered(
        self, cids: list[Any], sessions: list[Any], traces: list[Any], kinds: list[Any]
    ) -> np.ndarray:
        """Per call (column lists, nulls as None): it has a result in its session or trace.

        A call from a conversation needs a tool result there; a call only the middleware saw
        counts as answered when the middleware logged the injection. A call with an empty id
        is never answered by id.
        """
        import numpy as np

        ids = np.array([c or "" for c in cids], dtype=object)
        by_session = _scoped("s", sessions), ids
        by_trace = _scoped("t", traces), ids
        res = _pair_in(by_session, self.result_keys) | _pair_in(by_trace, self.result_keys)
        inj = _pair_in(by_session, self.injected_keys) | _pair_in(by_trace, self.injected_keys)
        received = np.array([k == "mw_received" for k in kinds], dtype=bool)
        return (ids != "") & ((received & inj) | res)

    def is_trailing(self, i: int) -> bool:
        """True when call row *i* is in the last message of its conversation."""
        return i in self.trailing


def _keys(rows: pd.DataFrame) -> _Pairs:
    """(scope, id) pairs of *rows*, scope being "s:<session>" and "t:<trace>"."""
    import numpy as np

    scopes: list[str] = []
    ids: list[str] = []
    for col, tag in (("session_id", "s"), ("trace", "t")):
        if col in rows.columns:
            sub = rows[rows[col].notna() & rows["tool_call_id"].notna()]
            scopes += (tag + ":" + sub[col].astype(str)).tolist()
            ids += sub["tool_call_id"].astype(str).tolist()
    return np.array(scopes, dtype=object), np.array(ids, dtype=object)


def _scoped(tag: str, values: list[Any]) -> np.ndarray:
    """`<tag>:<value>` per value, "None" standing for a null (as an f-string writes it)."""
    import numpy as np

    return np.array([f"{tag}:{v}" for v in values], dtype=object)


def _pair_in(pairs: _Pairs, pool: _Pairs) -> np.ndarray:
    """Per pair of *pairs*: it is one of the pairs of *pool* (exact, both halves hashed)."""
    import numpy as np
    import pandas as pd

    n = len(pairs[0])
    if not n or not len(pool[0]):
        return np.zeros(n, dtype=bool)
    scope, _ = pd.factorize(np.concatenate([pairs[0], pool[0]]))
    ident, uniques = pd.factorize(np.concatenate([pairs[1], pool[1]]))
    key = scope.astype(np.int64) * (len(uniques) + 1) + ident
    return pd.Series(key[:n]).isin(key[n:]).to_numpy(dtype=bool)


def _narrow(ctx: DiagnoseContext, kind: str) -> pd.DataFrame:
    """The id columns of the events of one kind (what `_keys` reads; no full-row copy)."""
    ev = ctx.events()
    cols = [c for c in ("session_id", "trace", "tool_call_id") if c in ev.columns]
    return ev.loc[ev["kind"] == kind, cols]


def _msg_index(rows: pd.DataFrame) -> pd.Series:
    import pandas as pd

    return pd.to_numeric(attr(rows, "msg_index"), errors="coerce")


def conversation_index(ctx: DiagnoseContext) -> ConversationIndex:
    """Calls (tool_call events, plus calls only the middleware saw) and results, indexed."""

    import pandas as pd

    def build() -> ConversationIndex:
        calls = of_kind(ctx, "tool_call")
        known = set(calls["tool_call_id"].dropna().astype(str).tolist())
        received = of_kind(ctx, "mw_received")
        mw_only = received[
            received["tool_call_id"].notna() & ~isin_set(received["tool_call_id"], known)
        ]
        mw_only = mw_only[mw_only["tool_call_id"] != ""].drop_duplicates("tool_call_id")
        results = of_kind(ctx, "tool_result")
        return ConversationIndex(
            calls=pd.concat([calls, mw_only]),
            results=results,
            result_keys=_keys(results),
            injected_keys=_keys(_narrow(ctx, "mw_injected")),
            trailing=frozenset(_trailing(ctx, calls)),
        )

    return ctx.memo("conversation_index", build)


def conversation_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """The conversation rows in seq order, with `_msg` and `_file` (built once per context)."""
    return ctx.memo("conversation_rows", lambda: _build_conversation_rows(ctx))


def _build_conversation_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """The conversation rows in seq order, with `_msg` (message index) and `_file` (which
    conversation of a file): a JSON-lines record (`path:N`) is a conversation of its own
    unless it names its session or trace — an agent log's or an export's lines are records of
    the session (trace) they name, a messages JSONL line without one is a conversation by
    itself."""
    from toolcall_cli.align.aborted import conversation_of  # pandas: only when a rule runs

    ev = of_kind(ctx, *CONVERSATION_KINDS)
    conversation = conversation_of(ev["origin"], ev["session_id"], ev["trace_id"])
    ev = ev.assign(_msg=_msg_index(ev), _file=conversation)
    return ev.sort_values("seq", kind="stable")


def _trailing(ctx: DiagnoseContext, calls: pd.DataFrame) -> set[int]:
    """Call rows in the last message of their conversation (per session and file)."""
    import numpy as np

    conv = conversation_rows(ctx)
    # a system row is never the reply a call waits for (an agent log's closing notes, a
    # turn-aborted marker): the conversation ends with the last row that is not one
    conv = conv[conv["kind"] != "system"]
    if not len(conv):
        return set()
    grouped = conv.groupby([conv["session_id"].fillna(""), conv["_file"]], sort=False)
    group = grouped.ngroup().to_numpy(dtype=float)
    ok = ~np.isnan(group)
    g = np.where(ok, group, -1).astype(np.int64)
    labels = conv.index.to_numpy()
    is_call = (conv["kind"] == "tool_call").to_numpy(dtype=bool)
    msg = conv["_msg"].to_numpy(dtype=float)
    # the last row of every conversation (rows are in seq order)
    at = np.flatnonzero(ok)
    groups, first_from_end = np.unique(g[at][::-1], return_index=True)
    last = np.full(int(groups.max()) + 1 if len(groups) else 0, -1, dtype=np.int64)
    last[groups] = at[::-1][first_from_end]
    pos = last[g[at]]
    tail = np.zeros(len(conv), dtype=bool)
    ends_in_call = is_call[pos]
    last_msg = msg[pos]
    same_msg = np.where(np.isnan(last_msg), at == pos, msg[at] == last_msg)
    tail[at] = is_call[at] & ends_in_call & same_msg
    known = set(calls.index.tolist())
    return {int(i) for i in labels[tail].tolist() if i in known}


@dataclass(frozen=True)
class Positional:
    """Pairing by position for empty-id calls: paired call rows and the results that answer them."""

    calls: frozenset[int]
    results: frozenset[int]

    def __contains__(self, i: object) -> bool:
        return i in self.calls


def positional_results(ctx: DiagnoseContext) -> Positional:
    """Empty-id calls answered by the tool results directly after their assistant message."""

    def build() -> Positional:
        conv = conversation_rows(ctx)
        paired_calls: set[int] = set()
        paired_results: set[int] = set()
        empty_id = (conv["kind"] == "tool_call") & (conv["tool_call_id"].fillna("") == "")
        files = set(conv.loc[empty_id, "_file"])
        conv = conv[conv["_file"].isin(list(files))]
        labels, kinds, files_l = conv.index.tolist(), objects(conv, "kind"), objects(conv, "_file")
        ids, sids = objects(conv, "tool_call_id"), objects(conv, "session_id")
        seqs, msgs = conv["seq"].tolist(), conv["_msg"].to_numpy(dtype=float).tolist()
        groups: dict[tuple[str, str], list[int]] = {}  # rows of a conversation, in seq order
        for k, f in enumerate(files_l):
            if f is not None:
                groups.setdefault((sids[k] or "", f), []).append(k)
        for rows in groups.values():
            for at, k in enumerate(rows):
                if kinds[k] != "tool_call" or ids[k]:
                    continue
                # the results right after the call's message (its sibling calls skipped)
                block = []
                for j in rows[at + 1 :]:
                    if seqs[j] <= seqs[k] or (kinds[j] == "tool_call" and msgs[j] == msgs[k]):
                        continue
                    if kinds[j] != "tool_result":
                        break
                    block.append(labels[j])
                if block:
                    paired_calls.add(int(labels[k]))
                    paired_results.update(int(j) for j in block)
        return Positional(frozenset(paired_calls), frozenset(paired_results))

    return ctx.memo("positional_pairs", build)


@dataclass(frozen=True)
class CallLookup:
    """Where calls are, by id: earliest position per conversation, and per source."""

    first_seq: dict[tuple[str, str, str], int]  # (source, session, id) -> earliest call seq
    by_source: dict[tuple[str, str], int]  # (source, id) -> row index of a call
    ids: frozenset[str]

    def earlier(self, source: Any, session: Any, cid: Any, seq: int) -> bool:
        """A call with the result's id comes before it (at *seq*) in the same conversation."""
        first = self.first_seq.get((str(source), text(session) or "", text(cid) or ""))
        return first is not None and first < int(seq)


def call_lookup(ctx: DiagnoseContext) -> CallLookup:
    """Vectorised call positions (computed once per context)."""

    def build() -> CallLookup:
        calls = conversation_index(ctx).calls
        src = calls["source"].astype(str).tolist()
        sid = calls["session_id"].astype(object).fillna("").astype(str).tolist()
        cid = calls["tool_call_id"].astype(object).fillna("").astype(str).tolist()
        seq = calls["seq"].astype(int).tolist()
        first: dict[tuple[str, str, str], int] = {}
        where: dict[tuple[str, str], int] = {}
        for i, a, b, c, q in zip(calls.index, src, sid, cid, seq, strict=True):
            k = (a, b, c)
            if k not in first or q < first[k]:
                first[k] = q
            where.setdefault((a, c), int(i))
        return CallLookup(first, where, frozenset(cid))

    return ctx.memo("call_lookup", build)
