"""What `toolcall diagnose` asks for, and one event table diagnosed as asked: the one call of
`diagnose_events` that the whole run, a store bucket and an engine task all go through."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.align.select import ScopeFlags
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.model.config import Config
from toolcall_cli.sources.base import ParseOptions

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.align.skew import SkewEstimate
    from toolcall_cli.tools.registry import ToolRegistry


@dataclass(frozen=True, slots=True)
class DiagnoseRequest:
    """What the command asks for (every field has the CLI's default)."""

    opts: ParseOptions = field(default_factory=ParseOptions)  # its redactor guards quotes
    tools: tuple[Path, ...] = ()
    skew_correction: bool = True
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    scope: ScopeFlags = field(default_factory=ScopeFlags)


def load_registry(paths: Sequence[Path]) -> ToolRegistry | None:
    """A tool registry from tool-definition files (None when no files are named); BFCL question
    files are left out (their tools are per entry: the transcripts source joins them by id)."""
    from toolcall_cli.sources.transcripts.bfcl_questions import is_question_file

    paths = [p for p in paths if not is_question_file(p)]
    if not paths:
        return None
    from toolcall_cli.tools.registry import registry_from_paths

    return registry_from_paths(list(paths))


def diagnose_as_asked(
    events: pd.DataFrame,
    req: DiagnoseRequest,
    *,
    cfg: Config,
    inputs: tuple[str, ...],
    quotable: tuple[str, ...],
    scope: ScopeFlags | None,
    skew_estimate: SkewEstimate | None = None,
) -> DiagnoseReport:
    """`diagnose_events` with *req*'s tools, selection, skew correction and redactor: the
    whole evidence in this process, or one bucket of it (a store or engine task passes the
    whole evidence's *skew_estimate* and no *scope*)."""
    return diagnose_events(
        events,
        cfg=cfg,
        registry=load_registry(req.tools or cfg.tools),
        skew_correction=req.skew_correction,
        select=req.select,
        ignore=req.ignore,
        inputs=inputs,
        quotable=quotable,
        redactor=req.opts.redactor,
        scope=scope,
        skew_estimate=skew_estimate,
    )
