"""The generic SARIF builder (`render/sarif.py`), which diagnose reuses for its findings."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema

from toolcall_cli.model.findings import Evidence, Finding, Location, Rule, Severity
from toolcall_cli.render.sarif import sarif_log

SCHEMA = json.loads(Path(__file__).with_name("sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
RULE = Rule(
    code="FL003",
    name="duplicate-call-id",
    severity=Severity.error,
    summary="one id on two calls",
    doc="What it does\n...",
)


def _validate(log: dict[str, object]) -> None:
    v = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    assert [e.message for e in v.iter_errors(log)] == []


def test_locations_from_evidence_and_fingerprints() -> None:
    root = Path.cwd()  # relative origins are relative to the working directory
    findings = [
        Finding(
            code="FL003",
            name="duplicate-call-id",
            severity=Severity.error,
            message="id reused",
            tool_call_ids=("call_1", "call_2"),
            evidence=(Evidence("logs/mw.log:12", "tool_call.received call_1"),),
        ),
        Finding(
            code="FL003",
            name="duplicate-call-id",
            severity=Severity.warning,
            message="m",
            evidence=(Evidence("session.json#/messages/3/tool_calls/0", "x"),),
        ),
        Finding(
            code="PR002", name="unknown-tool", severity=Severity.info, message="no location at all"
        ),
        Finding(
            code="FL003",
            name="duplicate-call-id",
            severity=Severity.error,
            message="outside the root",
            location=Location(path="/elsewhere/x.json", line=0, pointer="/a"),
        ),
    ]
    log = sarif_log(findings, [RULE], tool_name="toolcall", version="0.1.0", root=root)
    _validate(log)
    res = log["runs"][0]["results"]
    loc0 = res[0]["locations"][0]["physicalLocation"]
    assert loc0["artifactLocation"] == {"uri": "logs/mw.log", "uriBaseId": "%SRCROOT%"}
    assert loc0["region"]["startLine"] == 12
    want = hashlib.sha256(b"FL003|logs/mw.log||call_1").hexdigest()
    assert res[0]["partialFingerprints"]["toolcall/v1"] == want
    assert res[0]["ruleIndex"] == 0 and res[0]["level"] == "error"
    loc1 = res[1]["locations"][0]["physicalLocation"]
    assert loc1["artifactLocation"]["uri"] == "session.json" and loc1["region"]["startLine"] == 1
    assert (
        res[1]["properties"]["pointer"] == "/messages/3/tool_calls/0"
        and res[1]["level"] == "warning"
    )
    assert "locations" not in res[2] and res[2]["level"] == "note" and "ruleIndex" not in res[2]
    loc3 = res[3]["locations"][0]["physicalLocation"]
    assert (
        loc3["artifactLocation"]["uri"] == "file:///elsewhere/x.json"
        and loc3["region"]["startLine"] == 1
    )
    assert log["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "FL003"
