"""Run one rule over its fixtures/rules/<CODE>/{positive,negative}.* bundle.

Real adapters, real align, the real classifier registry: the fixture files diagnose together.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.model.findings import Finding
from toolcall_cli.sources import ingest_paths

RULES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "rules"


def bundle(code: str, kind: str) -> list[Path]:
    """The files of one side of a rule's fixture (several files diagnose together)."""
    paths = sorted((RULES_DIR / code).glob(f"{kind}.*"))
    assert paths, f"fixtures/rules/{code}/{kind}.* is missing"
    return paths


def needs_tshark(code: str) -> bool:
    """The rule's fixtures include a capture."""
    return any(p.suffix in (".pcap", ".pcapng") for p in (RULES_DIR / code).iterdir())


def run_rule(code: str, kind: str) -> list[Finding]:
    """The findings of rule *code* on its positive or negative fixture."""
    return list(_run_rule(code, kind))


@lru_cache(maxsize=64)
def _run_rule(code: str, kind: str) -> tuple[Finding, ...]:
    result = ingest_paths(bundle(code, kind))
    inputs = tuple(str(f.path) for f in result.files)
    report = diagnose_events(result.events, select=[code], inputs=inputs)
    return tuple(f for f in report.findings if f.code == code)
