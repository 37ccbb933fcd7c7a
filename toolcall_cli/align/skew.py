"""Clock skew between sources, from the moments several sources saw of the same call.

Each clocked event is a *moment* of a call (or of a request, by `request_id`): the model's
call (0), received by the middleware (1), request sent (2), response received (3), result
injected (4), result sent back to the model (5). Two sources seeing the same moment give an
anchor (offset = difference of their clocks); seeing different moments gives a causal bound
(a request cannot precede the model's call, a response cannot precede its request). A
source's offset is the median of its anchors against the reference source, clamped into the
causal bounds, so the corrected timeline never reverses cause and effect.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: kind → moment order for the clocked event kinds that mark a call's progress.
MOMENTS: dict[str, int] = {
    "tool_call": 0,
    "mw_received": 1,
    "mw_request": 2,
    "http_request": 2,
    "mw_response": 3,
    "http_response": 3,
    "mw_injected": 4,
    "tool_result": 5,
}


@dataclass(frozen=True, slots=True)
class SkewEstimate:
    """Offsets in ms per source (positive = ahead of the reference) and their anchor counts."""

    reference: str | None
    offsets: dict[str, float]
    anchors: dict[str, int]


def moments(events: pd.DataFrame, calls: pd.Series) -> pd.DataFrame:
    """One row per clocked moment: key, order, source, t (ms since the epoch)."""
    clocked = events["ts"].notna()
    ev = events[clocked]
    t = ev["ts"].astype("int64").to_numpy() / 1e6
    key = calls[clocked].copy()
    rq = ev["request_id"].where(ev["request_id"].fillna("").str.strip() != "")
    http = ev["kind"].isin(["http_request", "http_response", "http_access"])
    key = key.fillna(("rq:" + rq).where(http))
    ord_ = ev["kind"].map(MOMENTS)
    frame = pd.DataFrame(
        {
            "key": key.to_numpy(dtype=object),
            "ord": ord_.to_numpy(dtype=float),
            "source": ev["source"].to_numpy(dtype=object),
            "t": t,
        }
    )
    # An access-log line is logged at the end of the request: its end is the response moment,
    # and end − request_time the moment the request arrived.
    ng = (ev["kind"] == "http_access").to_numpy()
    frame.loc[ng, "ord"] = 3.0
    dur = ev["duration_ms"].to_numpy(dtype=float)
    start = ng & ~np.isnan(dur)
    if start.any():
        extra = frame[start].copy()
        extra["ord"] = 2.0
        extra["t"] = extra["t"] - dur[start]
        frame = pd.concat([frame, extra], ignore_index=True)
    frame = frame[frame["key"].notna() & frame["ord"].notna()]
    return frame.groupby(["key", "ord", "source"], observed=True)["t"].min().reset_index()


def resolution(events: pd.DataFrame) -> dict[str, float]:
    """Clock resolution per source in ms: 1000 when every time is a whole second (nginx
    `$time_local`), else 0 (finer clocks are taken as exact)."""
    out: dict[str, float] = {}
    clk = events[events["ts"].notna()]
    ns = pd.Series(clk["ts"].astype("int64").to_numpy(), index=clk.index)
    for src, grp in ns.groupby(clk["source"].astype(object)):
        out[str(src)] = 1000.0 if (grp % 1_000_000_000 == 0).all() else 0.0
    return out


def _pair_stats(m: pd.DataFrame, res: dict[str, float]) -> pd.DataFrame:
    """Per ordered source pair (a, b): anchor offsets (median, extremes, count) and the causal
    bounds on off_a − off_b."""
    pairs = m.merge(m, on="key", suffixes=("_a", "_b"))
    pairs = pairs[pairs["source_a"] != pairs["source_b"]]
    if pairs.empty:
        return pd.DataFrame(columns=["a", "b", "median", "min", "max", "n", "lo", "hi"])
    d = pairs["t_a"] - pairs["t_b"]
    same = pairs["ord_a"] == pairs["ord_b"]
    r_a = pairs["source_a"].map(res).fillna(0.0)
    r_b = pairs["source_b"].map(res).fillna(0.0)
    df = pd.DataFrame(
        {
            "a": pairs["source_a"],
            "b": pairs["source_b"],
            "anchor": d.where(same),
            # a after b: t_a − off_a ≥ t_b − off_b  ⇒  off_a − off_b ≤ d (+ a's truncation)
            "hi": (d + r_a).where(pairs["ord_a"] > pairs["ord_b"]),
            "lo": (d - r_b).where(pairs["ord_a"] < pairs["ord_b"]),
        }
    )
    g = df.groupby(["a", "b"], observed=True)
    out = pd.DataFrame(
        {
            "median": g["anchor"].median(),
            "min": g["anchor"].min(),
            "max": g["anchor"].max(),
            "n": g["anchor"].count(),
            "lo": g["lo"].max(),
            "hi": g["hi"].min(),
        }
    ).reset_index()
    return out


def _relative(row: pd.Series, r_a: float, r_b: float) -> float | None:
    """off_a − off_b from one pair's statistics: the anchor median kept inside causal bounds.

    A clock that only ticks in whole seconds truncates: each anchor then only says the offset
    lies in an interval, and the estimate is the point of their intersection nearest zero."""
    lo = -np.inf if pd.isna(row["lo"]) else float(row["lo"])
    hi = np.inf if pd.isna(row["hi"]) else float(row["hi"])
    if row["n"] > 0:
        est = float(row["median"])
        if max(r_a, r_b) >= 1000.0:
            a_lo, a_hi = float(row["max"]) - r_b, float(row["min"]) + r_a
            est = min(max(0.0, a_lo), a_hi) if a_lo <= a_hi else est + (r_b - r_a) / 2
    elif np.isfinite(lo) or np.isfinite(hi):
        est = 0.0  # no shared moment: the smallest correction that keeps cause before effect
    else:
        return None
    if lo <= hi:
        est = min(max(est, lo), hi)
    return est


def estimate(events: pd.DataFrame, calls: pd.Series) -> SkewEstimate:
    """Each clocked source's offset against the reference (middleware if present)."""
    clocked = sorted(str(s) for s in events.loc[events["ts"].notna(), "source"].unique())
    if not clocked:
        return SkewEstimate(None, {}, {})
    res = resolution(events)
    stats = _pair_stats(moments(events, calls), res)
    rel: dict[tuple[str, str], tuple[float, int]] = {}
    for _, row in stats.iterrows():
        est = _relative(row, res.get(str(row["a"]), 0.0), res.get(str(row["b"]), 0.0))
        if est is not None:
            rel[(str(row["a"]), str(row["b"]))] = (est, int(row["n"]))
    if "middleware" in clocked:
        ref = "middleware"
    else:
        totals = {s: sum(n for (a, _), (_, n) in rel.items() if a == s) for s in clocked}
        ref = max(clocked, key=lambda s: (totals[s], s == "pcap", s))
    offsets: dict[str, float] = {ref: 0.0}
    anchors: dict[str, int] = {ref: int(sum(n for (a, _), (_, n) in rel.items() if a == ref))}
    frontier = [ref]
    while frontier:  # breadth-first from the reference, preferring the best-anchored link
        nxt: list[str] = []
        cands = [(s, t) for (s, t) in rel if t in frontier and s not in offsets]
        for s, t in sorted(cands, key=lambda st: (-rel[st][1], st)):
            if s in offsets:
                continue
            est, n = rel[(s, t)]
            offsets[s] = round(est + offsets[t], 3)
            anchors[s] = n
            nxt.append(s)
        frontier = nxt
    for s in clocked:
        offsets.setdefault(s, 0.0)
        anchors.setdefault(s, 0)
    return SkewEstimate(ref, dict(sorted(offsets.items())), dict(sorted(anchors.items())))


def correct(events: pd.DataFrame, offsets: dict[str, float]) -> pd.Series:
    """`ts` minus each source's offset (unknown sources unchanged)."""
    off_ms = events["source"].astype(object).map(offsets).astype(float).fillna(0.0)
    off_ns = np.round(off_ms.to_numpy() * 1e6).astype("int64")  # whole ns: no float drift
    return events["ts"] - pd.to_timedelta(off_ns, unit="ns")


def refine_coarse(
    events: pd.DataFrame, calls: pd.Series, ts: pd.Series, res: dict[str, float]
) -> pd.Series:
    """Place events of a whole-second clock inside their second: at the time a finer source
    saw the same moment, when that time falls within the logged second (else unchanged)."""
    coarse = [s for s, r in res.items() if r >= 1000.0]
    if not coarse:
        return ts
    ev = events.assign(ts=ts)
    m = moments(ev, calls)
    fine = m[~m["source"].isin(coarse)].groupby(["key", "ord"], observed=True)["t"].min()
    if fine.empty:
        return ts
    rows = ev[
        ev["source"].isin(coarse) & ev["ts"].notna() & ev["kind"].isin([*MOMENTS, "http_access"])
    ]
    if rows.empty:
        return ts
    key = calls[rows.index]
    rq = rows["request_id"].where(rows["request_id"].fillna("").str.strip() != "")
    key = key.fillna(
        ("rq:" + rq).where(rows["kind"].isin(["http_request", "http_response", "http_access"]))
    )
    ord_ = rows["kind"].map(MOMENTS).fillna(3.0).astype(float)  # an access line marks the response
    look = pd.MultiIndex.from_arrays([key.to_numpy(dtype=object), ord_.to_numpy()])
    cand = pd.Series(fine.reindex(look).to_numpy(), index=rows.index)
    t0 = rows["ts"].astype("int64") / 1e6
    r = rows["source"].astype(object).map(res).astype(float)
    ok = cand.notna() & (cand >= t0) & (cand < t0 + r)
    out = ts.copy()
    out[ok[ok].index] = pd.to_datetime(
        np.round(cand[ok].to_numpy() * 1e3).astype("int64"), unit="us", utc=True
    )
    return out
