"""Diagnose test helpers: a context from an event table (real align when it is importable)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pytest

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.events import build_frame, validate_frame


@dataclass(frozen=True)
class MiniTimeline:
    """A stand-in for align.Timeline: trace = trace_id, else tool_call_id, else session_id."""

    events: pd.DataFrame
    calls: tuple[Any, ...] = ()
    skews: Mapping[str, float] = field(default_factory=dict)
    sessions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def mini_timeline(events: pd.DataFrame, skews: Mapping[str, float] | None = None) -> MiniTimeline:
    ev = events.copy()
    ids = ev["tool_call_id"].replace("", None)
    ev["trace"] = ev["trace_id"].fillna(ids).fillna(ev["session_id"])
    ev["ts_corrected"] = ev["ts"]
    sessions: dict[str, tuple[str, ...]] = {}
    for sid, grp in ev.dropna(subset=["session_id"]).groupby("session_id"):
        sessions[str(sid)] = tuple(sorted(set(grp["trace"].dropna().astype(str))))
    return MiniTimeline(events=ev, skews=dict(skews or {}), sessions=sessions)


def context_of(
    rows: Sequence[Mapping[str, Any]],
    *,
    cfg: Config = DEFAULT,
    skews: Mapping[str, float] | None = None,
) -> DiagnoseContext:
    """Events from row dicts (origin/seq filled in) → a DiagnoseContext on a MiniTimeline."""
    cols: dict[str, list[Any]] = {}
    keys = {k for r in rows for k in r} | {"origin", "seq"}
    for i, r in enumerate(rows):
        for k in keys:
            default: Any = f"test#/{i}" if k == "origin" else (i if k == "seq" else None)
            cols.setdefault(k, []).append(r.get(k, default))
    frame = validate_frame(build_frame(cols, n=len(rows)))
    return DiagnoseContext(timeline=mini_timeline(frame, skews), cfg=cfg)


@pytest.fixture
def make_ctx() -> Callable[..., DiagnoseContext]:
    return context_of
