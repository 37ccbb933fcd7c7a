"""A generic SARIF 2.1.0 builder for any command's findings (lint, diagnose).

`sarif_log()` returns the log as a dict: one run, ``tool.driver.rules`` from the given rules
(``id`` = code, ``name``, ``shortDescription``, ``help``), one result per finding with
``ruleId``, ``level`` (error → error, warning → warning, info → note), a physical location
whose ``uri`` is relative to *root* (``uriBaseId`` ``%SRCROOT%``) and ``region.startLine`` ≥ 1,
and ``partialFingerprints["toolcall/v1"]`` = sha256(code|path|pointer|call_id).

Linked findings (diagnose incidents, DESIGN §4) carry their links: a root cause lists each
symptom's location in ``relatedLocations`` (message ``symptom CODE: …``), a symptom lists its
cause's (``caused by CODE: …``), and ``properties`` hold ``id``, ``caused_by`` and
``symptoms``. Findings without links (lint) are unchanged.

A finding without a ``location.path`` is placed at its first evidence origin
(``path:line``, ``path#/pointer`` or ``path#frame=N``), so diagnose findings land on the log
line that proves them.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolcall_cli.model.findings import Finding, Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
_ORIGIN = re.compile(r"^(?P<path>.*?)(?::(?P<line>\d+))?(?:#(?P<frag>.*))?$")


def fingerprint(code: str, path: str, pointer: str, call_id: str) -> str:
    """sha256(code|path|pointer|call_id): stable across runs and line moves."""
    return hashlib.sha256(f"{code}|{path}|{pointer}|{call_id}".encode()).hexdigest()


def _uri(path: str, root: Path) -> tuple[str, bool]:
    """(uri, relative?) — relative to *root* with forward slashes when inside it."""
    p = Path(path)
    absolute = p if p.is_absolute() else (Path.cwd() / p)
    try:
        rel = os.path.relpath(absolute.resolve(), root.resolve())
    except ValueError:
        rel = ".."
    if not rel.startswith(".."):
        return Path(rel).as_posix(), True
    return absolute.resolve().as_uri(), False


def _place(f: Finding) -> tuple[str | None, int, str]:
    """(path, line ≥ 1, pointer) of a finding, falling back to its first evidence origin."""
    loc = f.location
    if loc.path:
        return loc.path, max(1, loc.line or 1), loc.pointer or ""
    for ev in f.evidence:
        m = _ORIGIN.match(ev.origin or "")
        if m and m.group("path"):
            frag = m.group("frag") or ""
            return m.group("path"), max(1, int(m.group("line") or 1)), frag
    return None, 1, ""


def _location(f: Finding, root: Path) -> dict[str, Any] | None:
    """The physical location of *f* (None when it has no file)."""
    path, line, _ = _place(f)
    if path is None:
        return None
    uri, relative = _uri(path, root)
    artifact: dict[str, Any] = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = "%SRCROOT%"
    return {"artifactLocation": artifact, "region": {"startLine": line}}


def _related(f: Finding, by_id: dict[str, Finding], root: Path) -> list[dict[str, Any]]:
    """relatedLocations: a cause's symptoms, or a symptom's cause."""
    linked = [("symptom", by_id[s]) for s in f.symptoms if s in by_id]
    if f.caused_by in by_id:
        linked.append(("caused by", by_id[f.caused_by]))
    out: list[dict[str, Any]] = []
    for how, other in linked:
        entry: dict[str, Any] = {
            "id": len(out),
            "message": {"text": f"{how} {other.code}: {other.message}"},
        }
        where = _location(other, root)
        if where is not None:
            entry["physicalLocation"] = where
        out.append(entry)
    return out


def _rule_entry(r: Rule) -> dict[str, Any]:
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.summary},
        "help": {"text": r.doc or r.summary},
        "defaultConfiguration": {"level": LEVELS[r.severity.value]},
    }


def sarif_log(
    findings: Iterable[Finding],
    rules: Iterable[Rule],
    *,
    tool_name: str = "toolcall",
    version: str,
    root: Path,
    skipped: Iterable[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The SARIF 2.1.0 log of *findings*; *rules* become ``tool.driver.rules``; each
    *skipped* (path, reason) input is a note of the run's invocation (a tool execution
    notification), so a scanner's view names what was not analysed."""
    rule_list = sorted({r.code: r for r in rules}.values(), key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(rule_list)}
    findings = list(findings)
    by_id = {f.id: f for f in findings if f.id}
    results = []
    for f in findings:
        path, line, pointer = _place(f)
        call_id = f.tool_call_ids[0] if f.tool_call_ids else ""
        res: dict[str, Any] = {
            "ruleId": f.code,
            "level": LEVELS[f.severity.value],
            "message": {"text": f.message + (f"\nFix: {f.fix}" if f.fix else "")},
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        uri = ""
        if path is not None:
            uri, relative = _uri(path, root)
            artifact: dict[str, Any] = {"uri": uri}
            if relative:
                artifact["uriBaseId"] = "%SRCROOT%"
            res["locations"] = [
                {"physicalLocation": {"artifactLocation": artifact, "region": {"startLine": line}}}
            ]
        res["partialFingerprints"] = {"toolcall/v1": fingerprint(f.code, uri, pointer, call_id)}
        props: dict[str, Any] = {
            k: v
            for k, v in (
                ("pointer", pointer),
                ("tool", f.tool),
                ("trace_id", f.trace_id),
                ("session_id", f.session_id),
            )
            if v
        }
        related = _related(f, by_id, root)
        if related:
            res["relatedLocations"] = related
            props.update(id=f.id, caused_by=f.caused_by, symptoms=list(f.symptoms))
        if props:
            res["properties"] = props
        results.append(res)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": tool_name,
                "version": version,
                "rules": [_rule_entry(r) for r in rule_list],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}},
        "results": results,
    }
    notes = [_skipped_note(path, why, root) for path, why in skipped]
    if notes:
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": notes}]
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _skipped_note(path: str, why: str, root: Path) -> dict[str, Any]:
    """A `notification` saying *path* was skipped and why."""
    uri, relative = _uri(path, root)
    artifact: dict[str, Any] = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = "%SRCROOT%"
    return {
        "level": "note",
        "message": {"text": f"skipped {path}: {why}"},
        "locations": [{"physicalLocation": {"artifactLocation": artifact}}],
    }
