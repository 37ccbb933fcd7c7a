"""Message events have no clock: they take their place from the events of their call.

A `tool_call` message sits at the earliest clocked event of its call; a `tool_result` at the
injection (`mw_injected`, else the pcap `tool_result` that carried it back to the model, else
the call's last clocked event). Other message events stay without a time; for ordering only
they sit just after the message before them (or before the first placed one), so message
order is kept inside the timeline.
"""

from __future__ import annotations

import pandas as pd

_SIDE = {"mw_injected": 0, "tool_result": 1}


def place_messages(events: pd.DataFrame, calls: pd.Series, ts: pd.Series) -> pd.Series:
    """`ts_corrected` with message tool calls and results placed by their call."""
    out = ts.copy()
    msg = events["source"] == "messages"
    if not msg.any():
        return out
    clocked = ts.notna() & calls.notna()
    if not clocked.any():
        return out
    per_call = pd.DataFrame(
        {"call": calls[clocked], "ts": ts[clocked], "kind": events.loc[clocked, "kind"]}
    )
    first = per_call.groupby("call", observed=True)["ts"].min()
    last = per_call.groupby("call", observed=True)["ts"].max()
    side = per_call[per_call["kind"].isin(list(_SIDE))].copy()
    side["side"] = side["kind"].map(_SIDE)
    inj = (
        side.sort_values(["side", "ts"], kind="stable")
        .drop_duplicates("call")
        .set_index("call")["ts"]
    )
    is_call = msg & (events["kind"] == "tool_call") & calls.notna()
    is_res = msg & (events["kind"] == "tool_result") & calls.notna()
    out[is_call] = first.reindex(calls[is_call].to_numpy()).to_numpy()
    keys = calls[is_res].to_numpy()
    res_ts = inj.reindex(keys).fillna(last.reindex(keys))
    out[is_res] = res_ts.to_numpy()
    return out


def sort_times(events: pd.DataFrame, ts_corrected: pd.Series) -> tuple[pd.Series, pd.Series]:
    """A time for ordering only, and a tie-break bump: an unplaced message event follows the
    message before it (bump +1: after that instant's events) or, before the first placed one,
    precedes the message after it (bump −1)."""
    st = ts_corrected.copy()
    bump = pd.Series(0, index=events.index, dtype="int64")
    msg = events["source"] == "messages"
    if not msg.any():
        return st, bump
    file_of = events.loc[msg, "origin"].str.split("#", n=1).str[0]
    sub = pd.DataFrame({"f": file_of, "seq": events.loc[msg, "seq"], "t": ts_corrected[msg]})
    sub = sub.sort_values(["f", "seq"], kind="stable")
    fwd = sub.groupby("f", observed=True)["t"].ffill()
    back = sub.groupby("f", observed=True)["t"].bfill()
    unplaced = sub["t"].isna()
    st[sub.index] = fwd.fillna(back)
    bump[sub.index[unplaced & fwd.notna()]] = 1
    bump[sub.index[unplaced & fwd.isna() & back.notna()]] = -1
    return st, bump
