"""Running the lint rules over loaded tools: selection, baseline, lock, fixes, the report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.lint.base import LINT_RULES, LintContext
from toolcall_cli.lint.baseline import read_baseline, suppress, write_baseline
from toolcall_cli.lint.fix import apply_fixes
from toolcall_cli.lint.lock import DEFAULT_LOCK, write_lock
from toolcall_cli.lint.profiles import DEFAULT_PROFILE, get_profile
from toolcall_cli.lint.report import LintReport, sort_findings, summarise
from toolcall_cli.model.config_keys import DEFAULT_TOKEN_BUDGET
from toolcall_cli.model.findings import Finding, Location, Severity, select_codes
from toolcall_cli.model.words import plural
from toolcall_cli.tools.loaders import FileLoad, LoadResult, ToolDef, load_all

UNPARSED_CODE = "IN001"
#: Per-tool rules that still run on a schema nested deeper than MAX_SCHEMA_DEPTH (SC001 reports it).
DEEP_SAFE = frozenset({"SC001", "SC003", "SC009"})


@dataclass(frozen=True, slots=True)
class LintOptions:
    """Everything `toolcall lint` can be told."""

    profile: str = DEFAULT_PROFILE
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    token_budget: int = DEFAULT_TOKEN_BUDGET
    lock: Path | None = None
    update_lock: bool = False
    baseline: Path | None = None
    update_baseline: bool = False
    fix: bool = False
    root: Path = field(default_factory=Path.cwd)


def options_from_config(section: object, **flags: Any) -> LintOptions:
    """LintOptions from the config's ``[lint]`` table (``profile``, ``token_budget``, ``select``,
    ``ignore``, ``lock``, ``baseline``), overridden by the CLI *flags* that are not None/empty."""
    if not isinstance(section, dict):
        raise UsageError("config: [lint] must be a table")
    known = {
        "profile": str,
        "token_budget": int,
        "select": list,
        "ignore": list,
        "lock": str,
        "baseline": str,
    }
    base: dict[str, Any] = {}
    for key, value in section.items():
        want = known.get(key)
        if want is None:
            raise UsageError(f"config: unknown key lint.{key}", hint=f"known: {', '.join(known)}")
        if not isinstance(value, want) or isinstance(value, bool):
            raise UsageError(f"config: lint.{key} must be a {want.__name__}, got {value!r}")
        base[key] = value
    for key in ("select", "ignore"):
        if key in base:
            base[key] = tuple(str(c).upper() for c in base[key])
    for key in ("lock", "baseline"):
        if key in base:
            base[key] = Path(base[key])
    base.update({k: v for k, v in flags.items() if v is not None and v is not False and v != ()})
    return LintOptions(**base)


def run_rules(tools: Sequence[ToolDef], ctx: LintContext, codes: set[str]) -> list[Finding]:
    """Findings of the selected rules over *tools* (per-tool checks, then whole-registry ones)."""
    out: list[Finding] = []
    selected = [lr for code, lr in LINT_RULES.items() if code in codes]
    deep = {id(t) for t in tools if ctx.too_deep(t)}
    for lr in selected:
        if lr.per_tool is not None:
            for t in tools:
                if id(t) not in deep or lr.rule.code in DEEP_SAFE:
                    out.extend(lr.per_tool(t, ctx))
        elif lr.per_registry is not None:
            out.extend(lr.per_registry(tools, ctx))
    return out


def _unparsed(loaded: LoadResult) -> list[Finding]:
    return [
        Finding(
            code=UNPARSED_CODE,
            name="unparsed-line",
            severity=Severity.warning,
            message=f"line is not JSON: {bad.reason}",
            location=Location(path=file, line=bad.line, pointer=""),
            fix="fix or remove the line",
        )
        for file, bad in loaded.bad
    ]


def lint(paths: Sequence[Path], opts: LintOptions) -> LintReport:
    """Load every tool from *paths*, run the rules, apply baseline/lock/fix options."""
    if opts.update_baseline and opts.baseline is None:
        raise UsageError("--update-baseline needs --baseline FILE")
    if opts.token_budget < 1:
        raise UsageError("--token-budget must be a positive number of tokens")
    profile = get_profile(opts.profile)
    lock = None if opts.update_lock else opts.lock
    ctx = LintContext(profile=profile, token_budget=opts.token_budget, lock=lock, root=opts.root)
    loaded = load_all(paths)
    if not loaded.tools:  # nothing linted is not "no findings" (DESIGN §1: not healthy)
        raise _nothing_to_lint(loaded.files)
    fixed = None
    if opts.fix:
        fixed = apply_fixes(loaded.tools, ctx)
        if fixed.edits:
            loaded = load_all(paths)
    codes = select_codes(
        [*LINT_RULES.names(), UNPARSED_CODE], select=opts.select, ignore=opts.ignore
    )
    findings = run_rules(loaded.tools, ctx, codes)
    if UNPARSED_CODE in codes:
        findings.extend(_unparsed(loaded))
    extra: dict[str, object] = {}
    if opts.update_lock:
        lock_path = opts.lock or DEFAULT_LOCK
        extra["lock_written"] = {
            "path": str(lock_path),
            "tools": write_lock(lock_path, loaded.tools, opts.root),
        }
    suppressed = 0
    if opts.baseline is not None:
        if opts.update_baseline:
            extra["baseline_written"] = {
                "path": str(opts.baseline),
                "fingerprints": write_baseline(opts.baseline, findings, opts.root),
            }
        findings, suppressed = suppress(findings, read_baseline(opts.baseline), opts.root)
    if fixed is not None:
        extra["fixed"] = {
            "edits": fixed.edits,
            "files": list(fixed.files),
            "not_fixable": list(fixed.unfixable),
        }
    files = loaded.files
    skipped = [{"path": f.path, "reason": skip_reason(f)} for f in files if f.status != "tools"]
    if skipped:  # a walked file that held no definitions is named, never just counted
        extra["skipped"] = skipped
    summary = summarise(
        findings,
        profile=profile.name,
        tools=len(loaded.tools),
        files=len(files),
        tool_files=sum(f.status == "tools" for f in files),
        skipped_files=sum(f.status != "tools" for f in files),
        unparsed_records=len(loaded.bad),
        suppressed=suppressed,
        token_budget=opts.token_budget,
        **extra,
    )
    return LintReport(findings=tuple(sort_findings(findings)), summary=summary, root=str(opts.root))


#: Why a file was skipped, by its load status.
SKIP_REASONS = {"no-tools": "no tool definitions", "unparsed": "not JSON, JSON lines or YAML"}


def skip_reason(f: FileLoad) -> str:
    """Why *f* gave no tools, in words."""
    return f.detail or SKIP_REASONS.get(f.status, f.status)


def _nothing_to_lint(files: Sequence[FileLoad]) -> InputError:
    """The error of a run whose inputs hold no tool definition: each file and why."""
    named = [f"{f.path} ({skip_reason(f)})" for f in files[:5]]
    more = f" and {len(files) - 5} more" if len(files) > 5 else ""
    where = f": {', '.join(named)}{more}" if files else ""
    return InputError(
        f"no tool definition found in {plural(len(files), 'file')}{where}",
        hint="lint takes OpenAI tools, Anthropic input_schema, MCP tools/list, a bare JSON "
        "Schema or BFCL function docs",
    )
