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

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.arrays import NAT, EventArrays
from toolcall_cli.model.events import HTTP_KINDS, TRAITS

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
    resolution: dict[str, float] = field(default_factory=dict)  # ms per clocked source


_NORD = max(MOMENTS.values()) + 1


@dataclass(frozen=True, slots=True)
class MomentRows:
    """Which events are moments, and of what: the event row, its key (a call, or a request
    by request_id, numbered 0..nkeys-1), its column (one per (order, source) seen, see
    `cols`), and what to subtract from its time (an access line's request_time for the
    moment the request arrived; else 0). Only keys that two sources saw are kept: a key seen
    by one source neither anchors an offset nor places a coarse time."""

    rows: np.ndarray
    key: np.ndarray
    col: np.ndarray
    minus: np.ndarray
    nkeys: int
    cols: list[tuple[int, int]]  # (order, source code) of each column
    plain: int  # rows[:plain] are the events' own moments, the rest access-line starts

    def table(self, ts: np.ndarray) -> np.ndarray:
        """(key, column) → earliest time in ms (NaN: not seen), from event times *ts*."""
        out = np.full(self.nkeys * len(self.cols), np.inf)
        t = ts[self.rows]
        ok = t != NAT
        cell = self.key[ok] * len(self.cols) + self.col[ok]
        np.minimum.at(out, cell, t[ok] / 1e6 - self.minus[ok])
        out[np.isinf(out)] = np.nan
        return out.reshape(self.nkeys, len(self.cols))


def _text(s: str) -> pa.Scalar:
    return pa.scalar(s, pa.large_string())


def moment_rows(a: EventArrays, calls: np.ndarray, call_ids: pa.Array) -> MomentRows:
    """The moments of events *a*: keyed by their call (*calls*, codes into the text
    *call_ids*), else an HTTP event by `rq:<request_id>`. An access-log line is logged at the
    end of the request: its end is the response moment, and end − request_time the moment
    the request arrived."""
    order = a.kind.lookup({**MOMENTS, "http_access": 3.0}, np.nan)
    rq = a.request_id_raw
    rq_key = len(call_ids) + np.arange(len(rq.values), dtype=np.int64)
    if pc.any(pc.starts_with(call_ids, "rq:")).as_py():
        # "rq:<id>" keys live in the text space of the call ids: equal text is one key
        text = pc.binary_join_element_wise(_text("rq:"), rq.values, _text(""))
        found = pc.index_in(text, value_set=call_ids).fill_null(-1).to_numpy(zero_copy_only=False)
        rq_key = np.where(found >= 0, found, rq_key)
    by_rq = a.kind.mask(HTTP_KINDS) & (rq.codes >= 0)  # request_id keys an exchange
    key = np.where(calls >= 0, calls, np.where(by_rq, np.append(rq_key, -1)[rq.codes], -1))
    rows = np.flatnonzero((key >= 0) & ~np.isnan(order) & (a.ts != NAT))
    extra = rows[a.kind.mask(["http_access"])[rows] & ~np.isnan(a.duration_ms[rows])]
    all_rows = np.concatenate([rows, extra])
    k = key[all_rows]
    o = np.concatenate([order[rows], np.full(len(extra), 2.0)]).astype(np.int64)
    src = a.source.codes[all_rows]
    # keep the keys two sources saw
    space = len(call_ids) + len(rq.values)
    sources = np.zeros(space, dtype=np.int64)
    for code in np.unique(src):
        seen = np.zeros(space, dtype=bool)
        seen[k[src == code]] = True
        sources += seen
    keep = sources[k] >= 2
    plain = int(keep[: len(rows)].sum())
    all_rows, k, o, src = all_rows[keep], k[keep], o[keep], src[keep]
    minus = np.concatenate([np.zeros(len(rows)), a.duration_ms[extra]])[keep]
    # keys renumbered densely (0..nkeys-1); one column per (order, source) seen
    used = np.zeros(space, dtype=bool)
    used[k] = True
    nsrc = max(len(a.source.values), 1)
    present = np.unique(o * nsrc + src)
    return MomentRows(
        rows=all_rows,
        key=(np.cumsum(used) - 1)[k],
        col=np.searchsorted(present, o * nsrc + src),
        minus=minus,
        nkeys=int(used.sum()),
        cols=[(int(c // nsrc), int(c % nsrc)) for c in present],
        plain=plain,
    )


def resolution(a: EventArrays) -> dict[str, float]:
    """Clock resolution per source in ms: 1000 when every time is a whole second (nginx
    `$time_local`), else 0 (finer clocks are taken as exact)."""
    clocked = a.ts != NAT
    names = a.source.values.to_pylist()
    out: dict[str, float] = {}
    for code in np.unique(a.source.codes[clocked]):
        ns = a.ts[clocked & (a.source.codes == code)]
        out[str(names[code])] = 1000.0 if (ns % 1_000_000_000 == 0).all() else 0.0
    return dict(sorted(out.items()))


def _pair_stats(
    table: np.ndarray, cols: list[tuple[int, int]], res: np.ndarray
) -> dict[tuple[int, int], dict[str, float]]:
    """Per ordered source pair (a, b) seeing a key in common: anchor offsets (median,
    extremes, count) and the causal bounds (lo, hi) on off_a − off_b. *cols* names the
    (order, source) of each table column; *res* holds the resolution of each source."""
    seen = ~np.isnan(table)
    of = {s: [(i, o) for i, (o, s_) in enumerate(cols) if s_ == s] for s in {s for _, s in cols}}
    by_source = {s: seen[:, [i for i, _ in c]].any(axis=1) for s, c in of.items()}
    out: dict[tuple[int, int], dict[str, float]] = {}
    for sa in sorted(of):
        for sb in sorted(of):
            both = by_source[sa] & by_source[sb]
            if sa == sb or not both.any():
                continue
            sub = table[both]
            anchors: list[np.ndarray] = []
            lo, hi, shared = -np.inf, np.inf, False
            for ia, oa in of[sa]:
                for ib, ob in of[sb]:
                    d = sub[:, ia] - sub[:, ib]
                    d = d[~np.isnan(d)]
                    if not len(d):
                        continue
                    shared = True
                    if oa == ob:
                        anchors.append(d)
                    elif oa > ob:  # a after b: t_a − off_a ≥ t_b − off_b ⇒ off_a − off_b ≤ d
                        hi = min(hi, float((d + res[sa]).min()))
                    else:
                        lo = max(lo, float((d - res[sb]).max()))
            if not shared:
                continue
            anc = np.concatenate(anchors) if anchors else np.zeros(0)
            out[(sa, sb)] = {
                "median": float(np.median(anc)) if len(anc) else np.nan,
                "min": float(anc.min()) if len(anc) else np.nan,
                "max": float(anc.max()) if len(anc) else np.nan,
                "n": len(anc),
                "lo": lo,
                "hi": hi,
            }
    return out


def _relative(row: dict[str, float], r_a: float, r_b: float) -> float | None:
    """off_a − off_b from one pair's statistics: the anchor median kept inside causal bounds.

    A clock that only ticks in whole seconds truncates: each anchor then only says the offset
    lies in an interval, and the estimate is the point of their intersection nearest zero."""
    lo, hi = row["lo"], row["hi"]
    if row["n"] > 0:
        est = row["median"]
        if max(r_a, r_b) >= 1000.0:
            a_lo, a_hi = row["max"] - r_b, row["min"] + r_a
            est = min(max(0.0, a_lo), a_hi) if a_lo <= a_hi else est + (r_b - r_a) / 2
    elif np.isfinite(lo) or np.isfinite(hi):
        est = 0.0  # no shared moment: the smallest correction that keeps cause before effect
    else:
        return None
    if lo <= hi:
        est = min(max(est, lo), hi)
    return est


def _clock_reference(source: str) -> int:
    traits = TRAITS.get(source)
    return traits.clock_reference if traits is not None else 0


@dataclass(frozen=True, slots=True)
class SkewFacts:
    """What a part of the evidence tells the skew estimate, in terms that add up across parts
    that share no call (store buckets): each key's earliest time per (moment order, source),
    the sources with clocked events, and whether each only logs whole seconds.

    The estimate of the union of parts is the estimate of their combined facts, so a store is
    estimated once, from every bucket, and the same offsets go into every bucket's alignment."""

    table: np.ndarray  # (keys, columns) earliest time in ms, NaN: not seen
    cols: list[tuple[int, str]]  # (moment order, source name) of each column
    clocked: tuple[str, ...]  # sources with a clocked event, sorted
    whole_seconds: dict[str, bool]  # per clocked source: every time is a whole second

    def resolution(self) -> dict[str, float]:
        """Clock resolution per clocked source in ms (as :func:`resolution`)."""
        return {s: 1000.0 if w else 0.0 for s, w in sorted(self.whole_seconds.items())}


def facts(a: EventArrays, m: MomentRows) -> SkewFacts:
    """The skew facts of events *a* with moments *m*."""
    names = [str(v) for v in a.source.values.to_pylist()]
    res = resolution(a)
    return SkewFacts(
        table=m.table(a.ts),
        cols=[(o, names[s]) for o, s in m.cols],
        clocked=tuple(sorted(res)),
        whole_seconds={s: r >= 1000.0 for s, r in res.items()},
    )


def combine(parts: list[SkewFacts]) -> SkewFacts:
    """The facts of the union of *parts* (which share no key: their rows are stacked)."""
    cols = sorted({c for p in parts for c in p.cols})
    at = {c: i for i, c in enumerate(cols)}
    table = np.full((sum(len(p.table) for p in parts), len(cols)), np.nan)
    row = 0
    for p in parts:
        if len(p.table) and p.cols:
            table[row : row + len(p.table), [at[c] for c in p.cols]] = p.table
        row += len(p.table)
    whole: dict[str, bool] = {}
    for p in parts:
        for s, w in p.whole_seconds.items():
            whole[s] = whole.get(s, True) and w
    clocked = tuple(sorted({s for p in parts for s in p.clocked}))
    return SkewFacts(table, cols, clocked, dict(sorted(whole.items())))


def estimate(a: EventArrays, m: MomentRows) -> SkewEstimate:
    """Each clocked source's offset against the reference (see :func:`estimate_from`)."""
    return estimate_from(facts(a, m))


def estimate_from(f: SkewFacts) -> SkewEstimate:
    """Each clocked source's offset against the reference: the clocked source with the highest
    `clock_reference` trait, then the best-anchored one."""
    clocked = list(f.clocked)
    res = f.resolution()
    if not clocked:
        return SkewEstimate(None, {}, {}, res)
    names = sorted({s for _, s in f.cols})
    code = {s: i for i, s in enumerate(names)}
    res_of = np.array([res.get(s, 0.0) for s in names] or [0.0])
    rel: dict[tuple[str, str], tuple[float, int]] = {}
    stats = _pair_stats(f.table, [(o, code[s]) for o, s in f.cols], res_of)
    for (sa, sb), row in sorted(stats.items(), key=lambda kv: (names[kv[0][0]], names[kv[0][1]])):
        est = _relative(row, res.get(names[sa], 0.0), res.get(names[sb], 0.0))
        if est is not None:
            rel[(names[sa], names[sb])] = (est, int(row["n"]))
    totals = {s: sum(n for (a_, _), (_, n) in rel.items() if a_ == s) for s in clocked}
    ref = max(clocked, key=lambda s: (_clock_reference(s), totals[s], s))
    offsets: dict[str, float] = {ref: 0.0}
    anchors: dict[str, int] = {ref: int(sum(n for (a_, _), (_, n) in rel.items() if a_ == ref))}
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
    return SkewEstimate(ref, dict(sorted(offsets.items())), dict(sorted(anchors.items())), res)


def correct(a: EventArrays, offsets: dict[str, float]) -> np.ndarray:
    """`ts` minus each source's offset (unknown sources unchanged), as int64 ns."""
    off_ms = a.source.lookup(offsets, 0.0)
    off_ns = np.round(off_ms * 1e6).astype("int64")  # whole ns: no float drift
    return np.where(a.ts != NAT, a.ts - off_ns, NAT)


def refine_coarse(
    a: EventArrays, m: MomentRows, ts: np.ndarray, res: dict[str, float]
) -> np.ndarray:
    """Place events of a whole-second clock inside their second: at the time a finer source
    saw the same moment, when that time falls within the logged second (else unchanged)."""
    names = [str(v) for v in a.source.values.to_pylist()]
    coarse = np.array([res.get(s, 0.0) >= 1000.0 for s in names] + [False])
    if not coarse.any() or coarse[:-1].all():  # no whole-second clock, or no finer one
        return ts
    table = m.table(ts)
    fine = np.full((m.nkeys, _NORD), np.nan)  # per key and order: the finer clocks' time
    for i, (o, src) in enumerate(m.cols):
        if not coarse[src]:
            fine[:, o] = np.fmin(fine[:, o], table[:, i])
    if np.isnan(fine).all():
        return ts
    rows = m.rows[: m.plain]  # each event's own moment (an access line: the response)
    sel = coarse[a.source.codes[rows]] & (ts[rows] != NAT)
    r_rows = rows[sel]
    orders = np.array([o for o, _ in m.cols] or [0])[m.col[: m.plain][sel]]
    cand = fine[m.key[: m.plain][sel], orders]
    t0 = ts[r_rows] / 1e6
    r = np.array([res.get(s, 0.0) for s in names])[a.source.codes[r_rows]]
    ok = ~np.isnan(cand) & (cand >= t0) & (cand < t0 + r)
    out = ts.copy()
    out[r_rows[ok]] = np.round(cand[ok] * 1e3).astype("int64") * 1000
    return out
