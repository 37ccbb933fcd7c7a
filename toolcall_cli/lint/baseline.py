"""Baselines: adopt the linter on a legacy registry by suppressing the findings it has today.

The file is JSON ``{"version": 1, "fingerprints": [...]}``; a fingerprint is
sha256(code|file|pointer|tool) with the file relative to the root, so findings stay suppressed
when lines move but reappear when the offending schema location or tool changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson

from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.lint.report import baseline_key
from toolcall_cli.model.findings import Finding
from toolcall_cli.model.jsonio import pretty

VERSION = 1


def read_baseline(path: Path) -> frozenset[str]:
    """The fingerprints in *path*; missing/malformed → InputError."""
    try:
        doc = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise InputError(
            f"baseline not found: {path}", hint="create it with --update-baseline"
        ) from None
    except (OSError, orjson.JSONDecodeError) as e:
        raise InputError(f"cannot read baseline {path}: {e}") from None
    fps = doc.get("fingerprints") if isinstance(doc, dict) else None
    if not isinstance(fps, list) or not all(isinstance(x, str) for x in fps):
        raise InputError(f'{path}: not a toolcall baseline (expected {{"fingerprints": [...]}})')
    return frozenset(fps)


def write_baseline(path: Path, findings: Sequence[Finding], root: Path) -> int:
    """Write the fingerprints of *findings*; returns how many."""
    fps = sorted({baseline_key(f, root) for f in findings})
    try:
        path.write_text(pretty({"version": VERSION, "fingerprints": fps}) + "\n", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write baseline {path}: {e.strerror or e}") from None
    return len(fps)


def suppress(
    findings: Sequence[Finding], fingerprints: frozenset[str], root: Path
) -> tuple[list[Finding], int]:
    """(findings not in the baseline, number suppressed)."""
    kept = [f for f in findings if baseline_key(f, root) not in fingerprints]
    return kept, len(findings) - len(kept)
