"""The linking stage: which finding explains which, so a run reads as incidents (DESIGN §4).

Each rule declares the findings it explains (`Rule.explains`, an `Explains` per symptom code).
After every rule has run, `link()` gives each finding a unique stable `id`, pairs each
symptom with the best-ranked finding that explains it (in the same trace), follows those
links to the root cause, and fills `caused_by` (the root's id) and `symptoms` (on the root).
It returns the findings in incident order: each root cause, worst incident first, directly
followed by its symptoms. `incidents()` groups such a list for the views.

A provider error (PR008) names the code of its cause (`related_code`); the finding of that
code in the same trace explains it, without a declaration per code.

Rules whose module another change is rewriting declare their links here
(`DECLARED_HERE`), so both changes merge cleanly; a code that is not registered never links.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from toolcall_cli.model.findings import RULES, Explains, Finding, finding_id, rank_findings

if TYPE_CHECKING:
    from toolcall_cli.diagnose.kit.context import DiagnoseContext

#: A flooding cancellation, cancelled at the middleware: what the flooding causes explain.
FLOOD_OR001 = Explains("OR001", breakpoints=("blocked",), facts=("flood-cancelled",))
#: The end-to-end SLA breach of a request whose calls all belong to the cause.
SLOW_REQUEST = Explains("TM002", match="calls", facts=("end-to-end",))
#: A call stopped at the middleware before the tool service, for a reason in its arguments
#: or name.
BLOCKED = Explains("OR001", breakpoints=("blocked",))

#: Links of rules declared beside the linking stage (their modules are being rewritten by
#: another change, or the code is still to land: FL007, PR009, PR011).
DECLARED_HERE: dict[str, tuple[Explains, ...]] = {
    "FL001": (FLOOD_OR001, SLOW_REQUEST),
    "FL007": (FLOOD_OR001,),
    "PR001": (BLOCKED,),
    "PR002": (BLOCKED,),
    "TR003": (BLOCKED, Explains("PR001")),
    "PR009": (BLOCKED, Explains("PR002"), Explains("PR001")),
    "PR011": (Explains("FL001"),),
}


@functools.cache
def declared(code: str) -> tuple[Explains, ...]:
    """What findings of *code* explain: the rule's own declaration, else `DECLARED_HERE`."""
    own = RULES.get(code).explains if code in RULES else ()
    return own or DECLARED_HERE.get(code, ())


def _flood_cancelled(ctx: DiagnoseContext | None) -> frozenset[tuple[str, str]]:
    """(trace, call id) of every call cancelled as tool-call flooding."""
    if ctx is None:
        return frozenset()
    from toolcall_cli.diagnose.rules.flooding.cancellations import flood_rows

    def build() -> frozenset[tuple[str, str]]:
        rows = flood_rows(ctx)
        traces = rows["trace"] if "trace" in rows.columns else rows["trace_id"]
        return frozenset(
            (str(t), str(c))
            for t, c in zip(traces.fillna(""), rows["tool_call_id"].fillna(""), strict=True)
            if c
        )

    return ctx.memo("incidents:flood_cancelled", build)


Fact = Callable[[Finding, "DiagnoseContext | None"], bool]

#: Conditions an `Explains` may require of the symptom, by name.
FACTS: dict[str, Fact] = {
    "flood-cancelled": lambda f, ctx: any(
        (f.trace_id or "", c) in _flood_cancelled(ctx) for c in f.tool_call_ids
    ),
    "end-to-end": lambda f, ctx: "end_to_end_ms" in (f.fact("breaches") or {}),
}


def _same_scope(a: Finding, b: Finding) -> bool:
    if a.trace_id or b.trace_id:
        return a.trace_id == b.trace_id
    return a.session_id is not None and a.session_id == b.session_id


def explains(cause: Finding, symptom: Finding, ctx: DiagnoseContext | None = None) -> bool:
    """True when *cause* explains *symptom* by a declaration of the cause's rule (or by the
    symptom's `related_code`)."""
    if cause is symptom or cause.id == symptom.id or not _same_scope(cause, symptom):
        return False
    if symptom.fact("related_code") == cause.code:
        return True
    for e in declared(cause.code):
        if e.code != symptom.code:
            continue
        if e.breakpoints and symptom.fact("breakpoint") not in e.breakpoints:
            continue
        if not _matches(e.match, cause, symptom):
            continue
        if all(FACTS[name](symptom, ctx) for name in e.facts):
            return True
    return False


def _matches(how: str, cause: Finding, symptom: Finding) -> bool:
    ours, theirs = set(cause.tool_call_ids), set(symptom.tool_call_ids)
    if how == "call":
        return bool(ours & theirs)
    if how == "calls":
        return bool(theirs) and theirs <= ours
    if how == "scope":
        return True
    raise ValueError(f"unknown Explains.match {how!r}")


def unique_ids(findings: Sequence[Finding]) -> list[Finding]:
    """The findings with ids unique in the run: findings that share code, scope and calls
    (two SLA breaches of one call) get ids salted with their message instead."""
    return unique_across([findings])[0]


def unique_across(parts: Sequence[Sequence[Finding]]) -> list[list[Finding]]:
    """Findings diagnosed in parts (buckets), with ids unique over all of them as one run
    makes them: each finding whose id is given more than once gets an id salted with its own
    message, and the links inside its part (`caused_by`, `symptoms`, set by a part's own
    `link`, where ids are unique) follow it."""
    seen: dict[str, int] = {}
    for part in parts:
        for f in part:
            seen[f.id] = seen.get(f.id, 0) + 1
    out = []
    for part in parts:
        renamed: dict[str, str] = {}
        salted = []
        for f in part:
            if seen[f.id] > 1:
                scope = f.trace_id or f.session_id or ""
                renamed[f.id] = finding_id(f.code, scope, f.tool_call_ids, salt=f.message)
                f = replace(f, id=renamed[f.id])
            salted.append(f)
        out.append([_relinked(f, renamed) for f in salted] if renamed else salted)
    return out


def _relinked(f: Finding, renamed: dict[str, str]) -> Finding:
    """*f* with the links to renamed findings following them."""
    if f.caused_by is None and not f.symptoms:
        return f
    caused_by = renamed.get(f.caused_by, f.caused_by) if f.caused_by else None
    return replace(f, caused_by=caused_by, symptoms=tuple(renamed.get(s, s) for s in f.symptoms))


def link(findings: Iterable[Finding], ctx: DiagnoseContext | None = None) -> list[Finding]:
    """The findings with `id`, `caused_by` and `symptoms` set, in incident order."""
    ranked = unique_ids(rank_findings(findings))
    by_scope: dict[str, list[int]] = {}
    for i, f in enumerate(ranked):
        by_scope.setdefault(f.trace_id or f"s:{f.session_id}", []).append(i)
    direct: dict[int, int] = {}  # symptom → its best-ranked cause (rank order = list order)
    for members in by_scope.values():
        if len(members) < 2:
            continue
        index = _Index(ranked, members)
        for s in members:
            sym = ranked[s]
            cause = next((c for c in index.candidates(sym) if explains(ranked[c], sym, ctx)), None)
            if cause is not None:
                direct[s] = cause
    root = {i: _root(i, direct) for i in range(len(ranked))}
    symptoms: dict[int, list[int]] = {}
    for i, r in root.items():
        if r != i:
            symptoms.setdefault(r, []).append(i)
    linked = [
        replace(
            f,
            caused_by=None if root[i] == i else ranked[root[i]].id,
            symptoms=tuple(ranked[s].id for s in symptoms.get(i, ())),
        )
        if root[i] != i or i in symptoms
        else f  # most findings explain nothing and nothing explains them: no copy
        for i, f in enumerate(ranked)
    ]
    roots = [i for i in range(len(ranked)) if root[i] == i]
    roots.sort(key=lambda i: _incident_key(ranked[i], [ranked[s] for s in symptoms.get(i, ())]))
    return [linked[j] for i in roots for j in (i, *symptoms.get(i, ()))]


def in_incident_order(linked: Iterable[Finding]) -> list[Finding]:
    """Findings already linked in parts (each trace in one part, as the engines deal them) in
    the order `link` gives one run: root causes by `_incident_key`, ties in rank order, each
    followed by its symptoms in rank order."""
    ranked = rank_findings(linked)
    groups = incidents(ranked)
    groups.sort(key=lambda g: _incident_key(g.cause, list(g.symptoms)))
    return [f for g in groups for f in g.findings]


class _Index:
    """The findings of one trace that may explain a symptom: those that declare its code and
    share one of its calls (or match by scope), and those of its related code — so a trace of
    thousands of findings is not compared pair by pair."""

    def __init__(self, ranked: list[Finding], members: list[int]) -> None:
        self.by_call: dict[tuple[str, str], list[int]] = {}
        self.by_scope: dict[str, list[int]] = {}
        self.by_code: dict[str, list[int]] = {}
        for c in members:
            f = ranked[c]
            self.by_code.setdefault(f.code, []).append(c)
            for e in declared(f.code):
                if e.match == "scope":
                    self.by_scope.setdefault(e.code, []).append(c)
                    continue
                for call in f.tool_call_ids:
                    self.by_call.setdefault((e.code, call), []).append(c)

    def candidates(self, sym: Finding) -> list[int]:
        """Possible causes of *sym*, best-ranked first."""
        found: set[int] = set(self.by_scope.get(sym.code, ()))
        for call in sym.tool_call_ids:
            found.update(self.by_call.get((sym.code, call), ()))
        related = sym.fact("related_code")
        if related:
            found.update(self.by_code.get(str(related), ()))
        return sorted(found)


def _root(i: int, direct: dict[int, int]) -> int:
    """Follow the links from *i* to the finding nothing explains (a cycle stops at the
    best-ranked finding in it, the lowest index)."""
    seen = [i]
    while i in direct:
        i = direct[i]
        if i in seen:
            return min(seen)
        seen.append(i)
    return i


def _incident_key(root: Finding, symptoms: list[Finding]) -> tuple[int, int, int, str, str, str]:
    """Worst severity in the incident first, then the calls it touches, then how much it
    explains, then code (stable)."""
    worst = min(f.severity.rank for f in (root, *symptoms))
    calls = {c for f in (root, *symptoms) for c in f.tool_call_ids}
    return (worst, -len(calls), -len(symptoms), root.code, root.trace_id or "", root.message)


@dataclass(frozen=True, slots=True)
class Incident:
    """A root cause and the findings it explains."""

    cause: Finding
    symptoms: tuple[Finding, ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The cause, then its symptoms."""
        return (self.cause, *self.symptoms)


def incidents(findings: Iterable[Finding]) -> list[Incident]:
    """Linked findings grouped as incidents, in the order of their root causes (a symptom
    whose cause is not in *findings* — cut by a cap or a filter — stands as its own)."""
    items = list(findings)
    ids = {f.id for f in items}
    under: dict[str, list[Finding]] = {}
    for f in items:
        if f.caused_by is not None and f.caused_by in ids:
            under.setdefault(f.caused_by, []).append(f)
    return [
        Incident(f, tuple(under.get(f.id, ())))
        for f in items
        if f.caused_by is None or f.caused_by not in ids
    ]
