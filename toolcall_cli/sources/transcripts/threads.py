"""Checks over a whole transcript's events that no single record can make."""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolcall_cli.core.jsonio import dumps, try_loads


def mark_results_before_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """Results that come before their call (same session and id) get attrs
    `result_before_call`; the call is still there, so this is an order defect, not an orphan.

    Only the rows with an id are looked at (a big session is mostly text), and the keys stay
    in their Arrow columns, so a 500 MB session does not grow a Python string per row."""
    if frame.empty:
        return frame
    kind = frame["kind"]
    has_id = frame["tool_call_id"].notna()
    cols = ["session_id", "tool_call_id", "seq"]
    calls = frame.loc[has_id & (kind == "tool_call"), cols]
    results = frame.loc[has_id & (kind == "tool_result"), cols]
    if calls.empty or results.empty:
        return frame
    keys = ["session_id", "tool_call_id"]
    first = calls.groupby(keys, dropna=False)["seq"].min().rename("call_seq").reset_index()
    joined = results.reset_index().merge(first, on=keys, how="inner")
    early = joined.loc[joined["call_seq"] > joined["seq"], "index"].to_numpy()
    if not len(early):
        return frame
    out = frame.copy()
    attrs = out["attrs"].astype(object).to_numpy().copy()
    for i in np.sort(early).tolist():
        a = try_loads(attrs[i]) if isinstance(attrs[i], str) else None
        a = a if isinstance(a, dict) else {}
        a["result_before_call"] = True
        attrs[i] = dumps(a)
    out["attrs"] = pd.Series(attrs, index=out.index).astype(frame["attrs"].dtype)
    return out
