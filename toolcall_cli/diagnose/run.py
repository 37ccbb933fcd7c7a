"""The `toolcall diagnose` core: evidence (files or the store) → events → report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from toolcall_cli.core.config import DEFAULT, Config
from toolcall_cli.core.redact import redacting
from toolcall_cli.core.store import DEFAULT_STORE, load_events
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.diagnose.base import DiagnoseReport
from toolcall_cli.sources import ingest_paths
from toolcall_cli.sources.base import ParseOptions

if TYPE_CHECKING:
    from toolcall_cli.pipeline.registry import ToolRegistry


@dataclass(frozen=True, slots=True)
class DiagnoseRequest:
    """What the command asks for (every field has the CLI's default)."""

    paths: tuple[Path, ...] = ()
    source: str | None = None
    opts: ParseOptions = field(default_factory=ParseOptions)
    store: Path = DEFAULT_STORE
    tools: tuple[Path, ...] = ()
    skew_correction: bool = True
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def load_registry(paths: Sequence[Path]) -> ToolRegistry | None:
    """A tool registry from tool-definition files (None when no files are named)."""
    from toolcall_cli.sources.transcripts.bfcl_questions import is_question_file

    paths = [p for p in paths if not is_question_file(p)]  # per-entry tools: joined by id
    if not paths:
        return None
    from toolcall_cli.pipeline.registry import registry_from_paths

    return registry_from_paths(list(paths))


def gather(req: DiagnoseRequest) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The event table: ingested on the fly from PATHs, else read from the store."""
    if req.paths:
        opts = replace(req.opts, tools=req.tools)  # BFCL results join their questions by id
        result = ingest_paths(req.paths, source=req.source, opts=opts)
        return result.events, tuple(str(f.path) for f in result.files)
    return load_events(req.store), (str(req.store),)


def diagnose(req: DiagnoseRequest, *, cfg: Config = DEFAULT) -> DiagnoseReport:
    """Gather the evidence and classify it with the effective config.

    Evidence quotes re-read input files, so the request's redactor stays active meanwhile.
    """
    events, inputs = gather(req)
    registry = load_registry(req.tools or cfg.tools)
    with redacting(req.opts.redactor):
        return diagnose_events(
            events,
            cfg=cfg,
            registry=registry,
            skew_correction=req.skew_correction,
            select=req.select,
            ignore=req.ignore,
            inputs=inputs,
        )
