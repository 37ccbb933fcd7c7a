"""Findings, rules and reports: the records every analysis returns (DESIGN §4, STYLE §4)."""

from __future__ import annotations

import difflib
import hashlib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from toolcall_cli.errors import ExitCode, UsageError
from toolcall_cli.model.registry import Registry

if TYPE_CHECKING:
    from toolcall_cli.model.quoting.aim import Aim

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
class Explains:
    """A rule's claim that its finding explains a finding of *code* (DESIGN §4 `caused_by`).

    *match* says which pairs are linked: ``call`` (the symptom shares a call id with the
    cause), ``calls`` (every call of the symptom is one of the cause's) or ``scope`` (same
    trace, or same session). *breakpoints* narrows OR001 symptoms to those breakpoints;
    *facts* names conditions the linking stage checks on the symptom
    (`diagnose.kit.incidents.FACTS`, e.g. ``flood-cancelled``). Links form only inside one trace.
    """

    code: str
    match: str = "call"
    breakpoints: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Rule:
    """A finding code's identity and documentation."""

    code: str
    name: str
    severity: Severity
    summary: str
    doc: str = ""  # "What it does / Why it matters / Example / Fix" text
    aliases: tuple[str, ...] = ()
    #: The findings this rule's findings explain (they become its symptoms).
    explains: tuple[Explains, ...] = ()
    #: Severities other than the catalogue's this rule may give, each with the documented
    #: context (`toolcall rules CODE` prints them; a test holds findings to them).
    other_severities: tuple[tuple[Severity, str], ...] = ()

    def __post_init__(self) -> None:
        if not CODE_RE.match(self.code):
            raise ValueError(f"bad rule code {self.code!r}")

    def allows(self, severity: Severity) -> bool:
        """True when *severity* is the catalogue's or one the rule documents a context for."""
        return severity is self.severity or any(s is severity for s, _ in self.other_severities)


#: Every code toolcall can emit, for `toolcall rules`, SARIF rule tables and the man page.
RULES: Registry[Rule] = Registry("rule")


def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    doc: str | None = None,
    explains: Iterable[Explains] = (),
    other_severities: dict[Severity, str] | None = None,
) -> Rule:
    """Declare and register a rule; *doc* defaults to the calling module's docstring.

    *explains* lists the findings this rule's findings explain; *other_severities* maps each
    severity the rule may give besides *severity* to the context that gives it."""
    if doc is None:
        frame = inspect.stack()[1]
        module = inspect.getmodule(frame[0])
        doc = inspect.cleandoc(module.__doc__ or "") if module else ""
    r = Rule(
        code=code,
        name=name,
        severity=severity,
        summary=summary,
        doc=doc,
        explains=tuple(explains),
        other_severities=tuple((other_severities or {}).items()),
    )
    RULES.add(code, r)
    return r


@dataclass(frozen=True, slots=True)
class Evidence:
    """One line that proves a finding: where it is, what it says, and the part that proves it.

    A rule cites an *origin* and, optionally, an *aim* (what in the line is the point: a JSON
    member, a value, the cut tail). The quoting stage (`model.quoting`) then sets *text* to a
    window of the input around that point, elided with ``…``, and *focus* to the point's
    ``(start, end)`` span in *text* (code points, end exclusive; the whole text when nothing
    narrower is known). *line* and *column* (1-based) place the focus in the input file.
    """

    origin: str
    text: str
    focus: tuple[int, int] | None = None
    line: int | None = None
    column: int | None = None
    aim: Aim | None = None  # the rule's request; read by the quoting stage only

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of DESIGN §4: ``{origin, text, focus}`` (+ line and column)."""
        return {
            "origin": self.origin,
            "text": self.text,
            "focus": list(self.focus) if self.focus is not None else None,
            "line": self.line,
            "column": self.column,
        }


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
    #: Stable id: a hash of code, scope (trace, else session) and call ids (`finding_id`).
    id: str = ""
    #: The id of the root-cause finding that explains this one (None: it is a root cause).
    caused_by: str | None = None
    #: The ids of the findings this one explains, in rank order.
    symptoms: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.id:  # frozen: the default id is set once, here
            scope = self.trace_id or self.session_id or ""
            object.__setattr__(self, "id", finding_id(self.code, scope, self.tool_call_ids))

    def fact(self, key: str) -> Any:
        """A rule-specific fact from `extra` (None when absent)."""
        return dict(self.extra).get(key)

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
            "id": self.id,
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "trace_id": self.trace_id,
            "session_id": self.session_id,
            "tool_call_ids": list(self.tool_call_ids),
            "evidence": [e.to_dict() for e in self.evidence],
            "explanation": self.explanation,
            "fix": self.fix,
            "caused_by": self.caused_by,
            "symptoms": list(self.symptoms),
        }
        if self.extra:
            d.update(dict(self.extra))
        return d


def finding_id(code: str, scope: str, call_ids: Iterable[str], *, salt: str = "") -> str:
    """16 hex digits of sha256(code|scope|call ids[|salt]): the same finding of the same input
    gets the same id in every run and every format (*salt* parts findings that share the rest)."""
    key = f"{code}|{scope}|{','.join(call_ids)}" + (f"|{salt}" if salt else "")
    return hashlib.sha256(key.encode()).hexdigest()[:16]


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
