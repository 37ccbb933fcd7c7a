"""Checks over a whole transcript's events that no single record can make."""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolcall_cli.core.jsonio import dumps, try_loads


def mark_results_before_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """Results that come before their call (same session and id) get attrs
    `result_before_call`; the call is still there, so this is an order defect, not an orphan."""
    if frame.empty:
        return frame
    kind = frame["kind"].to_numpy(dtype=object)
    has_id = frame["tool_call_id"].notna().to_numpy()
    calls = frame[(kind == "tool_call") & has_id]
    if calls.empty:
        return frame
    key = frame["session_id"].fillna("").astype(str) + "\x00" + frame["tool_call_id"].fillna("")
    first_call = calls.assign(_k=key[calls.index]).groupby("_k")["seq"].min()
    res = np.flatnonzero((kind == "tool_result") & has_id)
    call_seq = key.iloc[res].map(first_call)
    early = res[(call_seq.to_numpy(dtype=float) > frame["seq"].to_numpy()[res])]
    if not len(early):
        return frame
    out = frame.copy()
    attrs = out["attrs"].astype(object).to_numpy().copy()
    for i in early.tolist():
        a = try_loads(attrs[i]) if isinstance(attrs[i], str) else None
        a = a if isinstance(a, dict) else {}
        a["result_before_call"] = True
        attrs[i] = dumps(a)
    out["attrs"] = pd.Series(attrs, index=out.index).astype(frame["attrs"].dtype)
    return out
