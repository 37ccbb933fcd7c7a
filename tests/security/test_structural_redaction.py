"""Redaction keeps JSON valid: credential values become the string "[REDACTED]" at any depth.

`"api_key": 12345` used to become `{"api_key":[REDACTED]}` (invalid JSON in the store), and
`ingest --format jsonl` / `timeline --format json` then exited 70.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from toolcall_cli.model.redact import DEFAULT_REDACTOR, MARK

S = "Zq7Wx3Vc9Bn5Mk2Lp8Rt4"  # the planted secret (no known shape on its own)

DOCUMENTS: list[tuple[str, Any]] = [
    ("number", {"api_key": 918273645546372819}),
    ("array", {"api_key": [S, 1]}),
    ("object", {"password": {"v": S}}),
    ("deep", {"a": [{"b": {"c": [{"client_secret": S}]}}]}),
    ("json in a string", {"body": json.dumps({"x_api_key": S, "n": 1})}),
    ("twice encoded", {"body": json.dumps({"inner": json.dumps({"token": S})})}),
    ("HAR header", {"headers": [{"name": "X-Api-Key", "value": S}, {"name": "A", "value": "1"}]}),
    ("header pairs", {"headers": [["X-Api-Key", S], ["Accept", "*/*"]]}),
    ("nginx vars", {"http_cookie": f"sid={S}", "cookie_session": S, "http_authorization": S}),
    ("query", {"url": f"/cb?code=1&access_token={S}&state=2"}),
    ("password query", {"request": f"GET /login?user=a&password={S} HTTP/1.1"}),
    ("url userinfo", {"dsn": f"postgres://app:{S}@db:5432/x"}),
    ("jwt", {"note": f"sent eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.{S}"}),
    ("bearer in a list", {"h": [f"Authorization: Bearer {S}"]}),
]


@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_a_document_stays_valid_json(name: str, doc: Any) -> None:
    text = json.dumps(doc)
    out = DEFAULT_REDACTOR.text(text)
    assert S not in out and "918273645546372819" not in out
    assert MARK in out
    json.loads(out)  # still a document


def test_escaped_key_names_are_read_as_keys() -> None:
    out = DEFAULT_REDACTOR.text('{"api\\u005fkey": 5, "pass\\u0077ord": "' + S + '"}')
    assert json.loads(out) == {"api_key": MARK, "password": MARK}


def test_schema_properties_named_like_credentials_are_kept() -> None:
    schema = {
        "type": "object",
        "properties": {"password": {"type": "string", "minLength": 8}},
        "required": ["password", "user"],
    }
    text = json.dumps({"parameters": schema, "api_key": 1})
    assert json.loads(DEFAULT_REDACTOR.text(text))["parameters"] == schema


def test_a_document_without_secrets_keeps_its_exact_text() -> None:
    text = '{"a" :  1, "tokens": 5, "max_tokens": 10}'
    assert DEFAULT_REDACTOR.text(text) == text


def _bundle(d: Path) -> Path:
    d.mkdir()
    args = json.dumps({"api_key": 918273645546372819, "creds": {"password": [S]}})
    call = {"id": "c1", "type": "function", "function": {"name": "deploy", "arguments": args}}
    msgs = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    (d / "messages.json").write_text(
        json.dumps({"session_id": "s1", "trace_id": "t1", "messages": msgs})
    )
    line = {
        "ts": "2025-03-01T12:00:00Z",
        "event": "tool_call.received",
        "session_id": "s1",
        "trace_id": "t1",
        "tool_call_id": "c1",
        "tool": "deploy",
        "api_key": 112233445566778899,
        "headers": [["X-Api-Key", S]],
        "auth": {"token": {"value": S}},
    }
    (d / "middleware.log").write_text(json.dumps(line) + "\n")
    return d


def test_the_store_and_every_output_stay_valid_json(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path / "b")
    store = tmp_path / "store"
    res = run_cli(["-q", "ingest", str(bundle), "--store", str(store), "--format", "jsonl"])
    assert res.exit_code == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 2
    args = [json.loads(r["args"]) for r in rows if r["args"] is not None]
    assert args == [{"api_key": MARK, "creds": {"password": MARK}}]
    attrs = next(r["attrs"] for r in rows if r["source"] == "middleware")
    attrs = json.loads(attrs) if isinstance(attrs, str) else attrs
    assert attrs["api_key"] == MARK and attrs["headers"] == [["X-Api-Key", MARK]]
    for fmt in ("json", "table", "markdown"):
        res = run_cli(["-q", "timeline", "--store", str(store), "--trace-id", "t1", "-f", fmt])
        assert res.exit_code == 0, (fmt, res.stderr)
        assert S not in res.stdout and "918273645546372819" not in res.stdout
    res = run_cli(["-q", "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.stderr
    assert S not in res.stdout and "112233445566778899" not in res.stdout


def test_a_secret_shaped_id_is_redacted_and_still_joins(tmp_path: Path) -> None:
    key = "sk-proj-IdColumn5Leak3Key7Abc9Xy"
    lines = [
        {"ts": "2025-03-01T12:00:00Z", "event": "tool_call.received", "session_id": key,
         "tool_call_id": "c1", "tool": "t"},
        {"ts": "2025-03-01T12:00:01Z", "event": "tool_call.request", "session_id": key,
         "tool_call_id": "c1", "tool": "t"},
    ]  # fmt: skip
    log = tmp_path / "mw.log"
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    res = run_cli(["-q", "ingest", "--no-store", str(log), "--format", "jsonl"])
    assert res.exit_code == 0, res.stderr
    assert "IdColumn5Leak3Key7Abc9Xy" not in res.stdout
    sessions = {json.loads(line)["session_id"] for line in res.stdout.splitlines()}
    assert len(sessions) == 1 and sessions.pop().startswith("[REDACTED:")


def test_lint_redacts_what_it_quotes(tmp_path: Path) -> None:
    key = "sk-proj-LintQuote4Key8Abc2Def6"
    tool = {
        "type": "function",
        "function": {"name": f"deploy {key}", "description": "d", "parameters": {"type": "object"}},
    }
    (tmp_path / "tools.json").write_text(json.dumps([tool]))
    res = run_cli(["lint", str(tmp_path / "tools.json"), "-f", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["findings"], "the invalid name is a finding"
    assert "LintQuote4Key8Abc2Def6" not in res.stdout + res.stderr
