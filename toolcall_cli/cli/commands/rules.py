"""`toolcall rules`: the catalogue of finding codes, or one code's documentation."""

from __future__ import annotations

from typing import Annotated

import typer

from toolcall_cli.catalogue import RulesReport, rules_report
from toolcall_cli.cli._options import FormatOpt, OutputOpt, emit


def run(
    code: Annotated[
        str | None, typer.Argument(help="A code (FL001) or name (model-loop).", show_default=False)
    ] = None,
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
) -> None:
    """Print the catalogue of finding codes, or one code's documentation."""
    report: RulesReport = rules_report(code)
    emit(report, fmt, output)
