"""The lint report: findings in file order, a summary, the exit-code decision, fingerprints."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_cli.errors import ExitCode
from toolcall_cli.lint.lock import rel
from toolcall_cli.model.findings import FailOn, Finding, fails

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class LintReport:
    """What `toolcall lint` hands to the renderers."""

    findings: tuple[Finding, ...]
    summary: dict[str, Any]
    root: str = "."

    def exit_code(self, fail_on: FailOn) -> ExitCode:
        """FINDINGS when a finding reaches the threshold, else OK."""
        return ExitCode.FINDINGS if fails(self.findings, fail_on) else ExitCode.OK

    def skipped(self) -> list[tuple[str, str]]:
        """(path, reason) of each file a directory walk skipped (it held no definitions)."""
        return [(str(s["path"]), str(s["reason"])) for s in self.summary.get("skipped", ())]

    def counts(self) -> dict[str, int]:
        """Findings per severity."""
        c = Counter(f.severity.value for f in self.findings)
        return {s: c.get(s, 0) for s in ("error", "warning", "info")}


def finding_dict(f: Finding) -> dict[str, Any]:
    """The lint JSON shape of one finding (DESIGN §6)."""
    loc = f.location
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity.value,
        "message": f.message,
        "file": loc.path,
        "line": loc.line,
        "column": loc.column,
        "pointer": loc.pointer,
        "tool": f.tool,
        "fix": f.fix,
    }


def baseline_key(f: Finding, root: Path) -> str:
    """sha256(code|file|pointer|tool), file relative to *root*: stable when lines move."""
    path = rel(f.location.path, root) if f.location.path else ""
    text = f"{f.code}|{path}|{f.location.pointer or ''}|{f.tool or ''}"
    return hashlib.sha256(text.encode()).hexdigest()


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """File order: path, line, pointer, code."""
    return sorted(
        findings,
        key=lambda f: (
            f.location.path or "",
            f.location.line or 0,
            f.location.pointer or "",
            f.code,
            f.message,
        ),
    )


def summarise(findings: Iterable[Finding], **extra: Any) -> dict[str, Any]:
    """Counts per severity and per code, plus the run's facts in *extra*."""
    fs = list(findings)
    sev = Counter(f.severity.value for f in fs)
    return {
        "findings": len(fs),
        "errors": sev.get("error", 0),
        "warnings": sev.get("warning", 0),
        "infos": sev.get("info", 0),
        "by_code": dict(sorted(Counter(f.code for f in fs).items())),
        **extra,
    }
