"""Tool-definition linting (`toolcall lint`): loaders, SC rules, lock file, baseline, fixes.

The rule modules live in `lint/rules/`, one per code, imported there by name (explicit
registration, no scanning); each registers its rule in `model.findings.RULES` (the catalogue)
and its check in `LINT_RULES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolcall_cli.lint import rules as _rules  # noqa: F401  (registers every SC rule)
from toolcall_cli.lint.base import LINT_RULES
from toolcall_cli.lint.engine import LintOptions, lint
from toolcall_cli.lint.report import LintReport

__all__ = ["LINT_RULES", "LintOptions", "LintReport", "lint_paths"]


def lint_paths(paths: Sequence[Path], *, options: LintOptions | None = None) -> LintReport:
    """Lint the tool definitions in *paths* (files, directories, globs)."""
    return lint(paths, options or LintOptions())
