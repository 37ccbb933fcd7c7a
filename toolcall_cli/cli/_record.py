"""Recording a diagnose of the store back into it: the `findings` table (every run) and the
`calls` table (a run over the whole store), store/results.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolcall_cli.cli._console import say


def record_diagnose(store: Path, report: Any, cfg: Any, *, req: Any, calls: Any = None) -> None:
    """Write *report*'s findings (and, when *req* diagnosed the whole store, its calls:
    *calls*, the pooled `calls` rows of a per-bucket run, else its timeline's) to *store*,
    replacing those of an earlier run that asked the same (*req*'s scope and selection) of the
    same store under the same config; a store that cannot be written (read-only, a bundle
    someone else owns) only warns: the report is out already."""
    from toolcall_cli.store.manifest import read_manifest
    from toolcall_cli.store.results import config_fingerprint, record_run

    timeline = getattr(report, "timeline", None)
    try:
        record_run(
            store,
            read_manifest(store),
            (f.to_dict() for f in report.findings),
            None if req.scope.restricted else calls if calls is not None else _calls_of(timeline),
            fingerprint=config_fingerprint(cfg),
            selection=_selection(req),
        )
    except OSError as e:
        say(f"toolcall: warning: findings not recorded in the store {store}: {e.strerror or e}")


def _selection(req: Any) -> str:
    """What a `DiagnoseRequest` asks of the store, as text: the scope, the codes selected and
    ignored (in any order), the tool files, skew correction and redaction."""
    return repr(
        (
            req.scope,
            sorted(req.select),
            sorted(req.ignore),
            [str(p.resolve()) for p in req.tools],
            req.skew_correction,
            req.opts.redactor,
        )
    )


def _calls_of(timeline: Any) -> Any:
    return timeline.calls if timeline is not None else None
