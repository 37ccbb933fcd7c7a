"""Findings, rules and reports: the records every analysis returns (DESIGN §4, STYLE §4)."""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from toolcall_cli.core.registry import Registry
from toolcall_cli.errors import ExitCode, UsageError

CODE_RE = re.compile(r"^[A-Z]{2}\d{3}$")
DOC_HEADINGS = ("What it does", "Why it matters", "Example", "Fix")


class Severity(str, Enum):
    """How bad a finding is; `--fail-on` compares against this."""

    error = "error"
    warning = "warning"
    info = "info"

    @property
    def rank(self) -> int:
        """0 for error, 1 for warning, 2 for info (lower is worse)."""
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class FailOn(str, Enum):
    """Threshold for exit code 1."""

    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


@dataclass(frozen=True, slots=True)
class Rule:
    """A finding code's identity and documentation."""

    code: str
    name: str
    severity: Severity
    summary: str
    doc: str = ""  # "What it does / Why it matters / Example / Fix" text
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not CODE_RE.match(self.code):
            raise ValueError(f"bad rule code {self.code!r}")


#: Every code toolcall can emit, for `toolcall rules`, SARIF rule tables and the man page.
RULES: Registry[Rule] = Registry("rule")


def rule(code: str, name: str, severity: Severity, summary: str, *, doc: str | None = None) -> Rule:
    """Declare and register a rule; *doc* defaults to the calling module's docstring."""
    if doc is None:
        frame = inspect.stack()[1]
        module = inspect.getmodule(frame[0])
        doc = inspect.cleandoc(module.__doc__ or "") if module else ""
    r = Rule(code=code, name=name, severity=severity, summary=summary, doc=doc)
    RULES.add(code, r)
    return r


@dataclass(frozen=True, slots=True)
class Evidence:
    """One line that proves a finding: where it is and what it says."""

    origin: str
    text: str


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a file: path, 1-based line, JSON pointer, 1-based column (when known)."""

    path: str | None = None
    line: int | None = None
    pointer: str | None = None
    column: int | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """One diagnosed problem with the evidence that proves it."""

    code: str
    name: str
    severity: Severity
    message: str
    trace_id: str | None = None
    session_id: str | None = None
    tool_call_ids: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    explanation: str | None = None
    fix: str | None = None
    location: Location = field(default_factory=Location)
    tool: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()  # rule-specific facts (e.g. ("breakpoint", "blocked"))

    @classmethod
    def of(cls, r: Rule, message: str, **kw: Any) -> Finding:
        """A finding of rule *r*; severity and name come from the rule unless overridden."""
        kw.setdefault("severity", r.severity)
        if "evidence" in kw:
            kw["evidence"] = tuple(kw["evidence"])
        if "tool_call_ids" in kw:
            kw["tool_call_ids"] = tuple(x for x in kw["tool_call_ids"] if x is not None)
        if isinstance(kw.get("extra"), dict):
            kw["extra"] = tuple(sorted(kw["extra"].items()))
        return cls(code=r.code, name=r.name, message=message, **kw)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of DESIGN §6."""
        d: dict[str, Any] = {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "trace_id": self.trace_id,
            "session_id": self.session_id,
            "tool_call_ids": list(self.tool_call_ids),
            "evidence": [{"origin": e.origin, "text": e.text} for e in self.evidence],
            "explanation": self.explanation,
            "fix": self.fix,
        }
        if self.extra:
            d.update(dict(self.extra))
        return d


def fails(findings: Iterable[Finding], fail_on: FailOn) -> bool:
    """True when any finding is at or above the threshold."""
    if fail_on is FailOn.never:
        return False
    limit = Severity(fail_on.value).rank
    return any(f.severity.rank <= limit for f in findings)


def rank_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by how many calls a finding touches, then by code (stable)."""
    return sorted(
        findings,
        key=lambda f: (f.severity.rank, -len(f.tool_call_ids), f.code, f.trace_id or "", f.message),
    )


def select_codes(
    codes: Iterable[str], *, select: Iterable[str] = (), ignore: Iterable[str] = ()
) -> set[str]:
    """ruff-style selection: codes or prefixes; an empty select means all. A code or prefix
    that names none of *codes* is a UsageError with did-you-mean (ruff: unknown rule selector)."""
    codes = list(codes)
    sel = tuple(select)
    ign = tuple(ignore)
    for option, given in (("--select", sel), ("--ignore", ign)):
        for s in given:
            if not any(code.startswith(s) for code in codes):
                raise UsageError(
                    f"unknown code or prefix {s!r} in {option}", hint=_did_you_mean(s, codes)
                )
    out = set()
    for code in codes:
        if sel and not any(code.startswith(s) for s in sel):
            continue
        if any(code.startswith(i) for i in ign):
            continue
        out.add(code)
    return out


def _did_you_mean(given: str, codes: list[str]) -> str:
    """A hint naming the closest codes (difflib), then the prefixes that exist."""
    close = difflib.get_close_matches(given, codes, n=3, cutoff=0.5)
    families = ", ".join(sorted({c[:2] for c in codes}))
    if close:
        return f"did you mean {' or '.join(close)}? (families: {families})"
    return f"codes start with one of: {families}; `toolcall rules` lists them"


@dataclass(frozen=True, slots=True)
class Report:
    """What an analysis command hands to a renderer."""

    command: str
    findings: tuple[Finding, ...]
    summary: dict[str, Any]
    inputs: tuple[str, ...] = ()

    def exit_code(self, fail_on: FailOn) -> ExitCode:
        """FINDINGS when a finding reaches the threshold, else OK."""
        return ExitCode.FINDINGS if fails(self.findings, fail_on) else ExitCode.OK

    def counts(self) -> dict[str, int]:
        """Findings per severity."""
        out = {s.value: 0 for s in Severity}
        for f in self.findings:
            out[f.severity.value] += 1
        return out
