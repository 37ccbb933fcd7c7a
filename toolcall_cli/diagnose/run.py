"""The `toolcall diagnose` core: an event table (ingested or read from the store) → report.

Gathering the events is the CLI's shared step (`cli._inputs.evidence_for`, as for `timeline`
and `replay`), so every command ingests the same way and shows the same progress.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.request import DiagnoseRequest, diagnose_as_asked
from toolcall_cli.model.config import DEFAULT, Config

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from toolcall_cli.store.engines import Engine


class Evidence(Protocol):
    """What a reader hands back: the events, where they came from, the files evidence may be
    quoted from, and the files a directory walk skipped."""

    @property
    def events(self) -> pd.DataFrame: ...
    @property
    def inputs(self) -> tuple[str, ...]: ...
    @property
    def quotable(self) -> tuple[str, ...]: ...
    @property
    def skipped(self) -> tuple[tuple[Path, str], ...]: ...


def diagnose_asked(
    req: DiagnoseRequest,
    read: Callable[[Mapping[str, str | None]], Evidence],
    *,
    store: Path | None,
    cfg: Config,
    engine: Engine | None,
) -> tuple[DiagnoseReport, pa.Table | None]:
    """The report `toolcall diagnose` asks for, and the calls table of a store diagnosed
    bucket by bucket (else None): the whole *store* when one is given and bucketed, else the
    events *read* gives for the request's scope. *engine* is closed when the work is done,
    or has failed (an interrupt leaves the pool to the process's exit)."""
    try:
        if store is not None:
            from toolcall_cli.diagnose.run_store import diagnose_store  # bucket by bucket

            report, calls = diagnose_store(store, req, cfg=cfg, engine=engine)
            return report, calls
        evidence = read(req.scope.ids)
        report = diagnose(
            evidence.events, req, inputs=evidence.inputs, quotable=evidence.quotable,
            skipped=evidence.skipped, cfg=cfg, engine=engine,
        )  # fmt: skip
        return report, None
    finally:
        if engine is not None and sys.exc_info()[0] is not KeyboardInterrupt:
            engine.close()


def diagnose(
    events: pd.DataFrame,
    req: DiagnoseRequest,
    *,
    inputs: tuple[str, ...] = (),
    quotable: tuple[str, ...] = (),
    skipped: Sequence[tuple[Path, str]] = (),
    cfg: Config = DEFAULT,
    engine: Engine | None = None,
) -> DiagnoseReport:
    """Classify *events* (read from *inputs*: files, or the store) with the effective config;
    *skipped* (path, reason) files of a directory walk are listed in the summary.

    Evidence quotes re-read only the *quotable* files (the ingested files, or the files the
    store's manifest records — never a path only an event's origin names) and go through the
    request's redactor. With an *engine*, the events are diagnosed per correlation bucket on its
    workers (toolcall_cli.diagnose.bucket_tasks) and the buckets' findings pooled.
    """
    if engine is not None:
        from toolcall_cli.diagnose.bucket_tasks import diagnose_on

        report = diagnose_on(engine, events, req, cfg=cfg, inputs=inputs, quotable=tuple(quotable))
        return _with_skipped(report, skipped)
    report = diagnose_as_asked(
        events, req, cfg=cfg, inputs=inputs, quotable=quotable, scope=req.scope
    )
    return _with_skipped(report, skipped)


def _with_skipped(report: DiagnoseReport, skipped: Sequence[tuple[Path, str]]) -> DiagnoseReport:
    if not skipped:
        return report
    listed = [{"path": str(p), "reason": why} for p, why in skipped]
    return dataclasses.replace(report, summary={**report.summary, "skipped": listed})
