"""Which scopes of one contested call id are one call (DESIGN §3, used by align/scope.py).

The scopes (file + session) that carry one id first join where their keys agree: an equal
session or an equal trace id. A conversation is an anchor: two anchors never join on the id
alone. Every other group joins the one anchor it does not contradict (a different session or
trace on both sides); with several candidates, the call window decides (its events fall inside
the anchor's time span, padded), else it is left unlinked. Without anchors (an id only infra
sources saw) groups join the one compatible group, or by time among several.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from toolcall_cli.align.arrays import NAT

#: Slack around a call's time window when an infra event is attributed by time (clock skew
#: and the SLA of a round trip both fit in it).
WINDOW_PAD_NS = 5_000_000_000


@dataclass(slots=True)
class ScopeFacts:
    """What one scope's events carrying the id say: session, traces, time span, conversation."""

    scope: int
    session: int  # -1: none
    traces: frozenset[int]
    lo: int  # NAT: no clocked event
    hi: int
    conv: bool


def scope_facts(grp: pd.DataFrame) -> list[ScopeFacts]:
    """The scopes of one id's rows (columns scope, session, trace, ts, conv)."""
    facts = []
    for s, g in grp.groupby("scope", sort=False):
        ts = g["ts"].to_numpy()
        clocked = ts[ts != NAT]
        facts.append(
            ScopeFacts(
                scope=int(s),  # type: ignore[arg-type]
                session=int(g["session"].max()),
                traces=frozenset(int(t) for t in g["trace"].to_numpy() if t >= 0),
                lo=int(clocked.min()) if len(clocked) else NAT,
                hi=int(clocked.max()) if len(clocked) else NAT,
                conv=bool(g["conv"].any()),
            )
        )
    return facts


def link_scopes(scopes: list[ScopeFacts]) -> tuple[dict[int, int], int, set[int], set[int]]:
    """Cluster the scopes of one id: (scope → cluster 0..k-1, conversation clusters, scopes
    left unlinked among several conversations, scopes attributed by time)."""
    parent = list(range(len(scopes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)

    # agreeing keys: an equal session or an equal trace id
    seen: dict[tuple[str, int], int] = {}
    for i, s in enumerate(scopes):
        keys = [("s", s.session)] if s.session >= 0 else []
        keys += [("t", t) for t in s.traces]
        for k in keys:
            if k in seen:
                union(seen[k], i)
            else:
                seen[k] = i
    groups = _groups(scopes, find)
    anchors = [g for g in groups if g.conv]
    unlinked: set[int] = set()
    timed: set[int] = set()
    for g in (g for g in groups if not g.conv):
        pool = anchors or [o for o in groups if o is not g and not o.conv]
        cand = [o for o in pool if o is not g and not _contradicts(g, o)]
        if len(cand) > 1:  # several candidates: the call window decides, or nothing does
            near = [o for o in cand if _overlaps(g, o)]
            cand = near if len(near) == 1 else []
            if cand and len(anchors) >= 2:
                timed.update(g.members_scopes)
        if len(cand) == 1:
            union(g.root, cand[0].root)
        elif len(anchors) >= 2:
            unlinked.update(g.members_scopes)
    roots = sorted({find(i) for i in range(len(scopes))})
    number = {r: k for k, r in enumerate(roots)}
    assign = {s.scope: number[find(i)] for i, s in enumerate(scopes)}
    n_conv = len({find(i) for i, s in enumerate(scopes) if s.conv})
    return assign, n_conv, unlinked, timed


@dataclass(slots=True)
class _Group:
    """Scopes already joined by keys, with what they say together."""

    root: int
    members_scopes: list[int]
    sessions: set[int]
    traces: set[int]
    lo: int
    hi: int
    conv: bool


def _groups(scopes: list[ScopeFacts], find: object) -> list[_Group]:
    by: dict[int, _Group] = {}
    for i, s in enumerate(scopes):
        r = find(i)  # type: ignore[operator]
        g = by.setdefault(r, _Group(r, [], set(), set(), NAT, NAT, False))
        g.members_scopes.append(s.scope)
        if s.session >= 0:
            g.sessions.add(s.session)
        g.traces |= s.traces
        if s.lo != NAT:
            g.lo = s.lo if g.lo == NAT else min(g.lo, s.lo)
            g.hi = s.hi if g.hi == NAT else max(g.hi, s.hi)
        g.conv |= s.conv
    return list(by.values())


def _contradicts(g: _Group, o: _Group) -> bool:
    """Both name a session (or a trace) and none of them is shared."""
    return bool(
        (g.sessions and o.sessions and not g.sessions & o.sessions)
        or (g.traces and o.traces and not g.traces & o.traces)
    )


def _overlaps(g: _Group, o: _Group) -> bool:
    """*g*'s events fall inside *o*'s call window (padded); False when either has no time."""
    if NAT in (g.lo, o.lo):
        return False
    return g.lo >= o.lo - WINDOW_PAD_NS and g.hi <= o.hi + WINDOW_PAD_NS
