"""`toolcall lint`: lint tool definitions per provider profile; exit 1 at or above --fail-on."""

from __future__ import annotations

from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._options import (
    FailOnOpt,
    FormatOpt,
    IgnoreOpt,
    OutputOpt,
    SelectOpt,
    emit,
    split_codes,
)
from toolcall_cli.cli._summary import say_summary
from toolcall_cli.model.findings import FailOn


class ProfileName(str, Enum):
    """--profile choices (lint.profiles.PROFILES; a test keeps them equal)."""

    openai = "openai"
    openai_strict = "openai-strict"
    openai_strict_finetuned = "openai-strict-finetuned"
    anthropic = "anthropic"
    mcp = "mcp"
    generic = "generic"


PathsArg = Annotated[
    list[Path],
    typer.Argument(help="Tool definition files, directories or globs.", show_default=False),
]
ProfileOpt = Annotated[
    ProfileName | None,
    typer.Option("--profile", help="Provider profile (default: config, else generic)."),
]
BaselineOpt = Annotated[
    Path | None,
    typer.Option("--baseline", dir_okay=False, help="Suppress the findings recorded in this file."),
]
UpdateBaselineOpt = Annotated[
    bool, typer.Option("--update-baseline", help="Record today's findings in --baseline.")
]
LockOpt = Annotated[
    Path | None,
    typer.Option("--lock", dir_okay=False, help="Compare with this lock file (SC012)."),
]
UpdateLockOpt = Annotated[
    bool,
    typer.Option("--update-lock", help="Write the lock file (--lock, else toolcall.lock)."),
]
TokenBudgetOpt = Annotated[
    int | None,
    typer.Option("--token-budget", help="Token budget of the tool list (SC013; default 8000)."),
]
FixOpt = Annotated[bool, typer.Option("--fix", help="Apply safe fixes to JSON files in place.")]


def run(
    paths: PathsArg, fmt: FormatOpt = "table", output: OutputOpt = None,
    profile: ProfileOpt = None, fail_on: FailOnOpt = FailOn.error, select: SelectOpt = None,
    ignore: IgnoreOpt = None, baseline: BaselineOpt = None,
    update_baseline: UpdateBaselineOpt = False, lock: LockOpt = None,
    update_lock: UpdateLockOpt = False, token_budget: TokenBudgetOpt = None, fix: FixOpt = False,
) -> None:  # fmt: skip
    """Lint tool definitions (OpenAI, Anthropic, MCP, JSON Schema, BFCL) for a provider profile."""
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.lint import lint_paths
    from toolcall_cli.lint.engine import options_from_config
    from toolcall_cli.render.lint_view import summary_line

    options = options_from_config(
        _settings.config().raw.get("lint", {}),
        profile=profile.value if profile else None,
        select=split_codes(select),
        ignore=split_codes(ignore),
        baseline=baseline,
        update_baseline=update_baseline,
        lock=lock,
        update_lock=update_lock,
        token_budget=token_budget,
        fix=fix,
        root=Path.cwd(),
    )
    report = lint_paths(paths, options=options)
    from toolcall_cli.model.redact import Redactor, redact_findings  # pyarrow: not at start-up

    redactor = Redactor.from_config(_settings.config().redact)
    report = replace(report, findings=redact_findings(report.findings, redactor))
    emit(report, fmt, output)
    from toolcall_cli.cli._summary import say_skipped  # the line diagnose prints for a walk

    say_skipped(report.skipped())
    say_summary(summary_line(report))
    raise typer.Exit(report.exit_code(fail_on))
