"""Checks over a whole transcript's events that no single record can make, made as the
chunks pass (:mod:`.chunks`), so a big session is never held whole for them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from toolcall_cli.model.events import EventChunk
from toolcall_cli.model.jsonio import dumps, try_loads


@dataclass
class CallOrder:
    """Results that come before their call (same session and id) get attrs
    `result_before_call`; the call is still there, so this is an order defect, not an orphan.

    A result whose call has not been seen yet is held back (with its position in the file)
    until its call comes, then marked and handed on; a result that never meets its call is
    handed on unmarked at the end. Only the keys of calls are kept for the whole file, and a
    big session is mostly text, so this stays small."""

    calls: set[str] = field(default_factory=set)  # "session \x1f id" of the calls seen
    held: list[EventChunk] = field(default_factory=list)  # results waiting for their call
    held_keys: list[np.ndarray] = field(default_factory=list)
    early: int = 0  # results marked so far

    def check(self, frame: pd.DataFrame, at: int) -> list[EventChunk]:
        """*frame* (rows at *at*…) split into what can be handed on now and what waits."""
        positions = np.arange(at, at + len(frame), dtype=np.int64)
        idx, kinds, keys = _id_rows(frame)
        waiting: dict[str, list[int]] = {}  # this chunk's results whose call is not seen yet
        marked: list[int] = []
        resolved: set[str] = set()
        for i, kind, key in zip(idx.tolist(), kinds, keys, strict=True):
            if kind == "tool_result":
                if key not in self.calls:
                    waiting.setdefault(key, []).append(i)
            elif key not in self.calls:
                self.calls.add(key)
                marked.extend(waiting.pop(key, ()))
                resolved.add(key)
        hold = np.sort(np.array([i for rows in waiting.values() for i in rows], dtype=np.int64))
        out = _marked(frame, marked)
        ready: list[EventChunk] = []
        if len(hold):
            keep = np.ones(len(frame), dtype=bool)
            keep[hold] = False
            held_keys = np.array(keys, dtype=object)[np.searchsorted(idx, hold)]
            self.held.append(EventChunk(out.iloc[hold].reset_index(drop=True), positions[hold]))
            self.held_keys.append(held_keys)
            ready.append(EventChunk(out.iloc[keep].reset_index(drop=True), positions[keep]))
        else:
            ready.append(EventChunk(out, at))
        if resolved and self.held:
            ready.extend(self._release(resolved))
        return ready

    def _release(self, resolved: set[str]) -> list[EventChunk]:
        """The held results whose call has now come, marked."""
        out: list[EventChunk] = []
        held, held_keys = self.held, self.held_keys
        self.held, self.held_keys = [], []
        for chunk, keys in zip(held, held_keys, strict=True):
            now = np.fromiter((k in resolved for k in keys), dtype=bool, count=len(keys))
            if now.any():
                go = chunk.frame.iloc[now].reset_index(drop=True)
                out.append(EventChunk(_marked(go, range(len(go))), chunk.positions()[now]))
            if not now.all():
                self.held.append(
                    EventChunk(
                        chunk.frame.iloc[~now].reset_index(drop=True), chunk.positions()[~now]
                    )
                )
                self.held_keys.append(keys[~now])
        return out

    def rest(self) -> list[EventChunk]:
        """The results that never met their call, unmarked, at the end."""
        rest, self.held, self.held_keys = self.held, [], []
        return rest


def _id_rows(frame: pd.DataFrame) -> tuple[np.ndarray, list[str], list[str]]:
    """Row numbers, kinds and session/id keys of the calls and results that carry an id."""
    kind = frame["kind"]
    mask = frame["tool_call_id"].notna() & kind.isin(("tool_call", "tool_result"))
    idx = np.flatnonzero(mask.to_numpy(dtype=bool, na_value=False))
    if not len(idx):
        return idx, [], []
    sub = frame.iloc[idx]
    sessions = sub["session_id"].astype(object).tolist()
    ids = sub["tool_call_id"].astype(object).tolist()
    keys = [
        f"{'' if s is None or s is pd.NA else s}\x1f{s is None or s is pd.NA}\x1f{c}"
        for s, c in zip(sessions, ids, strict=True)
    ]
    return idx, sub["kind"].astype(object).tolist(), keys


def _marked(frame: pd.DataFrame, rows: list[int] | range) -> pd.DataFrame:
    """*frame* with attrs `result_before_call` set on *rows*."""
    if not len(rows):
        return frame
    out = frame.copy()
    attrs = out["attrs"].astype(object).to_numpy().copy()
    for i in sorted(rows):
        a = try_loads(attrs[i]) if isinstance(attrs[i], str) else None
        a = a if isinstance(a, dict) else {}
        a["result_before_call"] = True
        attrs[i] = dumps(a)
    out["attrs"] = pd.Series(attrs, index=out.index).astype(frame["attrs"].dtype)
    return out
