"""Tool-definition linting (`toolcall lint`): loaders, SC rules, lock file, baseline, fixes.

Rule modules are imported here by name (explicit registration, no scanning); each registers its
rules in `core.findings.RULES` (the catalogue) and in `LINT_RULES` (the checks).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolcall_cli.lint import rules_bounds as _rules_bounds  # noqa: F401
from toolcall_cli.lint import rules_budget as _rules_budget  # noqa: F401
from toolcall_cli.lint import rules_drift as _rules_drift  # noqa: F401
from toolcall_cli.lint import rules_names as _rules_names  # noqa: F401
from toolcall_cli.lint import rules_schema as _rules_schema  # noqa: F401
from toolcall_cli.lint import rules_strict as _rules_strict  # noqa: F401
from toolcall_cli.lint.base import LINT_RULES
from toolcall_cli.lint.engine import LintOptions, lint
from toolcall_cli.lint.report import LintReport

__all__ = ["LINT_RULES", "LintOptions", "LintReport", "lint_paths"]


def lint_paths(paths: Sequence[Path], *, options: LintOptions | None = None) -> LintReport:
    """Lint the tool definitions in *paths* (files, directories, globs)."""
    return lint(paths, options or LintOptions())
