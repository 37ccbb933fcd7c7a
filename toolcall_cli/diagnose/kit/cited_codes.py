"""Fix and message texts cite only codes present in the run (DESIGN §4).

A rule's fix may point at related findings — FL001's "(see OR001, TR002, PR006 for the same
session)" — which only helps when those findings exist. After linking, every "(see CODE, …)"
aside in a fix or message keeps the diagnose codes that fired in the finding's trace (or
session) and is dropped when none did. Codes of other commands (`toolcall lint` SC004) are
pointers to another tool, not to findings of this run, and stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from toolcall_cli.model.findings import Finding

_CODE = r"[A-Z]{2}\d{3}"
#: "(see OR001, TR002 or PR006 for the same session)": the codes, then the rest of the aside.
_SEE = re.compile(rf"\s*\(see ((?:{_CODE})(?:(?:,\s*|,?\s+(?:or|and)\s+){_CODE})*)([^()]*)\)")


def _scope(f: Finding) -> str:
    return f.trace_id or f"s:{f.session_id}"


def cite_present(findings: Iterable[Finding], diagnose_codes: Iterable[str]) -> list[Finding]:
    """*findings* with "(see …)" asides narrowed to the codes that fired in their scope."""
    items = list(findings)
    ours = set(diagnose_codes)
    fired: dict[str, set[str]] = {}
    for f in items:
        fired.setdefault(_scope(f), set()).add(f.code)
    out = []
    for f in items:
        here = fired[_scope(f)] - {f.code}
        fix = _narrow(f.fix, here, ours)
        message = _narrow(f.message, here, ours) or f.message
        if fix != f.fix or message != f.message:
            f = replace(f, fix=fix, message=message)
        out.append(f)
    return out


def _narrow(text: str | None, fired: set[str], ours: set[str]) -> str | None:
    if not text or "(see " not in text:
        return text

    def keep(m: re.Match[str]) -> str:
        codes = re.findall(_CODE, m.group(1))
        kept = [c for c in codes if c in fired or c not in ours]
        if not kept:
            return ""
        listed = kept[0] if len(kept) == 1 else ", ".join(kept[:-1]) + " or " + kept[-1]
        return f" (see {listed}{m.group(2)})"

    return _SEE.sub(keep, text)
