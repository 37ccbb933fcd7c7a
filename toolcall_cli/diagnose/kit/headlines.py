"""One sentence per incident and per trace: the root cause, then what it caused, with call ids.

`headline(incident)` reads "TR001 call call_s1 (book_flight) never reached the tool … →
OR001 call_s1 got no tool result (blocked); TM002 the chat request took 30,000 ms (SLA
3,000 ms)." The cause is the root finding's own message; each symptom is said in a few words
(`_EFFECTS`), so the sentence stays one line's worth per symptom.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from toolcall_cli.diagnose.kit.incidents import Incident, incidents
from toolcall_cli.model.findings import Evidence, Finding

#: Symptoms named in one headline before "and N more".
SHOWN_SYMPTOMS = 3
#: Characters of the proving quote a headline carries (its focus; a longer focus is
#: quoted whole in the evidence frame under the headline).
PROOF_CHARS = 72


def _ids(f: Finding, limit: int = 3) -> str:
    ids = ", ".join(f.tool_call_ids[:limit])
    return ids + (" …" if len(f.tool_call_ids) > limit else "")


def _no_result(f: Finding) -> str:
    where = f.fact("breakpoint")
    return f"{_ids(f) or 'a call'} got no tool result" + (f" ({where})" if where else "")


def _slow(f: Finding) -> str:
    breaches: dict[str, Any] = f.fact("breaches") or {}
    e2e = breaches.get("end_to_end_ms")
    if isinstance(e2e, dict) and "ms" in e2e:
        return f"the chat request took {e2e['ms']:,.0f} ms (SLA {e2e.get('sla_ms', 0):,.0f} ms)"
    return f"{_ids(f)} ran over its SLA"


_EFFECTS: dict[str, Callable[[Finding], str]] = {
    "OR001": _no_result,
    "TM002": _slow,
    "PR008": lambda f: f"the provider rejected the request ({f.fact('provider') or 'provider'})",
    "FL001": lambda f: f"the model repeated the call ({_ids(f)})",
    "PR001": lambda f: f"the arguments of {_ids(f)} do not parse",
    "PR002": lambda f: f"{_ids(f)} names an unknown tool",
}


def effect(f: Finding) -> str:
    """A symptom in a few words: `OR001 call_s1 got no tool result (blocked)`."""
    say = _EFFECTS.get(f.code)
    words = say(f) if say else f"{f.name}" + (f" on {_ids(f)}" if f.tool_call_ids else "")
    return f"{f.code} {words}"


def headline(incident: Incident) -> str:
    """Cause → effect in one sentence."""
    cause = incident.cause
    text = f"{cause.code} {cause.message.rstrip('.')}"
    if incident.symptoms:
        shown = [effect(s) for s in incident.symptoms[:SHOWN_SYMPTOMS]]
        more = len(incident.symptoms) - len(shown)
        text += " → " + "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
    return text + "."


def proof(f: Finding, width: int = PROOF_CHARS) -> tuple[Evidence, str] | None:
    """The evidence that proves *f* (its first one with a focus narrower than its text, else
    its first) and its focus as one line of at most
    *width* characters (``…`` where cut); None when the finding quotes nothing. The quote is
    raw input: escape it before printing."""
    quoted = [e for e in f.evidence if e.text]
    if not quoted:
        return None
    # a line the rule aimed into proves more than one it could only quote whole (a pcap summary)
    e = next((e for e in quoted if e.focus and e.focus != (0, len(e.text))), quoted[0])
    start, end = e.focus or (0, len(e.text))
    quote = " ".join(e.text[start:end].split())  # one line: runs of whitespace become a space
    if len(quote) > width:
        quote = quote[: width - 1] + "…"
    return e, quote


def trace_headlines(findings: Iterable[Finding]) -> dict[str, str]:
    """trace (or session, else "(inputs)") → the headline of its first incident (the worst),
    with how many other incidents the trace has."""
    per: dict[str, list[Incident]] = {}
    for inc in incidents(findings):
        key = inc.cause.trace_id or inc.cause.session_id or "(inputs)"
        per.setdefault(key, []).append(inc)
    out = {}
    for key, incs in per.items():
        more = len(incs) - 1
        out[key] = headline(incs[0]) + (
            f" (+{more} more incident{'s' if more != 1 else ''})" if more else ""
        )
    return out


def incident_counts(findings: Iterable[Finding]) -> tuple[int, int]:
    """(root causes, symptoms) of linked findings."""
    roots = symptoms = 0
    for f in findings:
        if f.caused_by is None:
            roots += 1
        else:
            symptoms += 1
    return roots, symptoms
