"""A generic SARIF 2.1.0 builder for any command's findings (lint, diagnose).

`sarif_log()` returns the log as a dict: one run, ``tool.driver.rules`` from the given rules
(``id`` = code, ``name``, ``shortDescription``, ``help``), one result per finding with
``ruleId``, ``level`` (error → error, warning → warning, info → note), a physical location
whose ``uri`` is relative to *root* (``uriBaseId`` ``%SRCROOT%``) and ``region.startLine`` ≥ 1,
and ``partialFingerprints["toolcall/v1"]`` = sha256(code|path|pointer|call_id).

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

from toolcall_cli.core.findings import Finding, Rule

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
) -> dict[str, Any]:
    """The SARIF 2.1.0 log of *findings*; *rules* become ``tool.driver.rules``."""
    rule_list = sorted({r.code: r for r in rules}.values(), key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(rule_list)}
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
        props = {
            k: v
            for k, v in (
                ("pointer", pointer),
                ("tool", f.tool),
                ("trace_id", f.trace_id),
                ("session_id", f.session_id),
            )
            if v
        }
        if props:
            res["properties"] = props
        results.append(res)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
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
        ],
    }
