"""Many replays over one event table: the calls `replay` reports for each trace or session, at
the cost of a few look-ups per scope instead of passes over the table.

Diagnose replays every silently dropped call's session (TR001); a log of 10,000 one-call
traces makes that 10,000 replays, each selecting its rows, reading them into records and
finding the tools its session declared with a dozen pandas operations. `ScopeReplayer` does
that work once for the table — the rows per trace, session and call id (`RowsByKey`), the
records `calls.calls_from_records` reads, the tool declarations by row — then selects each
scope's rows exactly as `replay_scope` does and walks them through the pipeline as `replay`
does: the same rows, calls and verdicts (tests/replay/test_batch.py compares the two on every
incident bundle and on real conversations).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.events import CONVERSATION_SOURCES
from toolcall_cli.model.rows_by_key import RowsByKey
from toolcall_cli.replay import CallReplay, aligned, in_time_order, replay_calls
from toolcall_cli.replay.calls import call_records, calls_from_records
from toolcall_cli.replay.replay_scope import (
    call_keys,
    call_named,
    refuse_split_call,
    replay_scope,
)
from toolcall_cli.tools.registry import (
    Declaration,
    declarations_at,
    registry_from_declarations,
)

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.tools.registry import ToolRegistry

#: The key columns a scope is selected by, in the order `replay_scope` tries a trace id.
_TRACE_KEYS = ("trace", "trace_id", "tool_call_id", "session_id")


class ScopeReplayer:
    """Replays of scopes of one event table (every scope's calls as `replay` gives them)."""

    def __init__(
        self, events: pd.DataFrame, *, cfg: Config = DEFAULT, registry: ToolRegistry | None = None
    ) -> None:
        """Index *events* once; *registry* as for `replay` (None: each session's own)."""
        import pandas as pd

        ev = aligned(events, cfg)
        if not (isinstance(ev.index, pd.RangeIndex) and ev.index.start == 0 and ev.index.step == 1):
            ev = ev.reset_index(drop=True)  # row labels are positions from here on
        self._events = ev
        self._cfg = cfg
        self._registry = registry
        self._index = {c: RowsByKey(ev[c]) for c in _TRACE_KEYS if c in ev.columns}
        keys = call_keys(ev)  # a call id within its aligned trace: ids are scoped
        self._by_call = RowsByKey(keys)
        self._key = _cells(keys.to_frame("key"), "key")
        self._call = _cells(ev, "tool_call_id")
        self._session = _cells(ev, "session_id")
        self._wire = (~ev["source"].isin(CONVERSATION_SOURCES)).tolist()

    def replay_many(
        self, scopes: Sequence[tuple[str | None, str | None]]
    ) -> list[tuple[CallReplay, ...] | UsageError]:
        """Per (session id, trace id) scope, `replay(events, session_id=…, trace_id=…).calls`
        (a session id wins, as for `replay`), or the UsageError that replay raises: the id names
        nothing, or the session declares one tool twice. The rows of every scope are read
        into records in one pass."""
        chosen: list[tuple[list[int], str | None] | UsageError] = []
        for session_id, trace_id in scopes:
            try:
                if session_id:
                    chosen.append(self._select(None, session_id))
                else:
                    chosen.append(self._select(trace_id, None))
            except UsageError as e:
                chosen.append(e)
        needed = sorted({i for c in chosen if not isinstance(c, UsageError) for i in c[0]})
        rows = self._events.iloc[needed]
        records = dict(zip(needed, call_records(rows), strict=True))
        declared = {needed[k]: d for k, d in declarations_at(rows).items()}
        out: list[tuple[CallReplay, ...] | UsageError] = []
        for c in chosen:
            if isinstance(c, UsageError):
                out.append(c)
                continue
            positions, only_call = c
            try:
                out.append(self._replay(positions, only_call, records, declared))
            except UsageError as e:
                out.append(e)
        return out

    def _replay(
        self,
        positions: list[int],
        only_call: str | None,
        records: dict[int, Any],
        declared: dict[int, Declaration],
    ) -> tuple[CallReplay, ...]:
        registry = self._registry
        if registry is None:
            registry = registry_from_declarations([declared[i] for i in positions if i in declared])
        calls = calls_from_records([records[i] for i in positions])
        return in_time_order(
            replay_calls(calls, cfg=self._cfg, registry=registry, only_call=only_call)
        )

    def _select(self, trace_id: str | None, session_id: str | None) -> tuple[list[int], str | None]:
        """The positions `replay_scope` keeps (in table order) and the call it reports alone."""
        if trace_id is None and session_id is None:
            replay_scope(self._events.iloc[:0])  # raises its UsageError: name the trace to replay
        only_call = None
        seed: list[int] = []
        if session_id is not None:
            seed = self._rows("session_id", [session_id])
        else:
            for col in _TRACE_KEYS:
                if col in self._index:
                    seed = self._rows(col, [trace_id])
                    if seed:
                        named = str(trace_id)  # (set: no session id was given)
                        if col == "tool_call_id":
                            refuse_split_call(self._events.iloc[sorted(seed)], named)
                        ids = {str(self._call[i]) for i in seed if self._call[i]}
                        only_call = named if col == "tool_call_id" else call_named(ids, named)
                        break
        if not seed:  # the replay's own error, with its list of known ids
            scope = replay_scope(self._events, trace_id=trace_id, session_id=session_id)
            return scope.events.index.tolist(), scope.only_call  # (not reached: it raises)
        linked = set(seed) | set(self._sharing_call(seed))
        # a named session pulls in the middleware's session for its calls, never another
        # conversation that happens to reuse an id; a trace pulls in its calls' conversations
        link = {i for i in linked if self._wire[i]} if session_id is not None else linked
        sessions = {self._session[i] for i in set(seed) | link} - {None, ""}
        in_session = self._rows("session_id", sessions)
        keep = set(seed) | set(in_session)
        keep.update(i for i in self._sharing_call([*seed, *in_session]) if self._wire[i])
        return sorted(keep), only_call

    def _sharing_call(self, rows: Iterable[int]) -> list[int]:
        """Positions of the rows whose call key (`replay_scope.call_keys`) is one of *rows*'."""
        out: list[int] = []
        for key in {self._key[i] for i in rows} - {None}:
            out.extend(self._by_call.labels(key))
        return out

    def _rows(self, col: str, keys: Iterable[Any]) -> list[int]:
        """Positions of the rows whose *col* is one of *keys*."""
        index = self._index.get(col)
        if index is None:
            return []
        out: list[int] = []
        for key in keys:
            out.extend(index.labels(key))
        return out


def _cells(ev: pd.DataFrame, col: str) -> list[Any]:
    """A key column as a plain list, nulls as None."""
    s = ev[col]
    return s.astype(object).where(s.notna(), None).tolist()
