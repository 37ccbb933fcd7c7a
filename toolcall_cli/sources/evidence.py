"""No evidence, no verdict: a run whose inputs yield no event is an input error (DESIGN §1).

A directory of READMEs, result files toolcall does not read, or an empty directory must not
come back as "0 calls look healthy"; nor may a file forced with `--source` that parses to
nothing but unparsed records. :func:`require_evidence` raises the one error for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.errors import InputError

if TYPE_CHECKING:
    from toolcall_cli.sources import IngestResult

#: Skipped files named in the message before "…".
_NAMED = 3


def reads_hint() -> str:
    """The hint naming what toolcall reads and how to force an adapter."""
    from toolcall_cli.model.events import TRAITS
    from toolcall_cli.sources import SOURCES

    names = SOURCES.names()
    what = ", ".join(TRAITS[n].reads or n for n in TRAITS if n in names)
    return f"toolcall reads {what}; pass --source {'|'.join(names)} to force one"


def require_evidence(
    result: IngestResult, paths: Sequence[Path], *, source: str | None = None
) -> None:
    """Raise `InputError` (exit 3) when no input produced a single event."""
    unparsed = sum(f.unparsed for f in result.files)
    if sum(f.events for f in result.files):
        return
    where = ", ".join(str(p) for p in paths) or "the inputs"
    parts = []
    if result.skipped:
        n = len(result.skipped)
        named = "; ".join(f"{p.name}: {why}" for p, why in result.skipped[:_NAMED])
        more = f"; {n - _NAMED} more" if n > _NAMED else ""
        parts.append(f"{n} file{'s' if n != 1 else ''} skipped ({named}{more})")
    if result.files:
        n = len(result.files)
        forced = f" with --source {source}" if source else ""
        parts.append(
            f"{n} file{'s' if n != 1 else ''} read{forced} gave {unparsed} unparsed "
            f"record{'s' if unparsed != 1 else ''} and no event"
        )
    if not parts:
        parts.append("no files found")
    raise InputError(f"no evidence recognised in {where}: {', '.join(parts)}", hint=reads_hint())
