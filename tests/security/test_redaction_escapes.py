"""Key shapes right after a JSON escape (`\\nsk-…`, `\\tAKIA…`) are redacted everywhere.

In JSON-escaped text the character before such a key is the escape's letter (`n`, `t`), so a
`\\b` boundary never matched and the key reached the store, jsonl and every diagnose format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import run_cli
from toolcall_cli.model.redact import DEFAULT_REDACTOR

SK = "sk-proj-Qm8Xv2Lr5Tz1Wn4Kp7Hs3Jd6"
AKIA = "AKIAQ3ZX7EXAMPLE5MPL"
GH = "ghp_" + "R7t9Y2u4I6" * 3 + "Pq"
XOX = "xoxb-2468013579-QwErTyUiOpAs"
SECRETS = (SK, AKIA, GH, XOX)
TAILS = ("Qm8Xv2Lr5Tz1Wn4Kp7Hs3Jd6", "Q3ZX7EXAMPLE5MPL", "R7t9Y2u4I6R7t9Y2u4I6", "QwErTyUiOpAs")
ESCAPED = f"first line\n{SK}\n{AKIA}\n{GH}\t{XOX}\r\n\u00e9{SK}"


def _leaks(text: str) -> list[str]:
    return [s for s in (*SECRETS, *TAILS) if s in text]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"note": ESCAPED}),  # \n, \t, \r\n, \u00e9 escapes before each key
        json.dumps(json.dumps({"note": ESCAPED})),  # twice encoded: \\n
        repr(ESCAPED),  # a Python repr in a log line
        ESCAPED,  # decoded text
    ],
)
def test_keys_after_an_escape_are_redacted(text: str) -> None:
    out = DEFAULT_REDACTOR.text(text)
    assert _leaks(out) == []
    assert out.count("[REDACTED]") == 5


def test_words_that_merely_contain_a_shape_are_left_alone() -> None:
    text = "risk-assessment-for-the-quarter taskASIA0123456789ABCDEF"
    assert DEFAULT_REDACTOR.text(text) == text


def _bundle(d: Path) -> Path:
    d.mkdir()
    args = json.dumps({"note": ESCAPED})
    call = {"id": "c1", "type": "function", "function": {"name": "deploy", "arguments": args}}
    messages = [
        {"role": "user", "content": f"deploy\n{SK}"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"echo": ESCAPED})},
    ]
    (d / "messages.json").write_text(json.dumps({"session_id": "s1", "messages": messages}))
    line = {
        "ts": "2025-03-01T12:00:00Z",
        "event": "tool_call.received",
        "session_id": "s1",
        "tool_call_id": "c1",
        "tool": "deploy",
        "msg": "received",
        "extra": ESCAPED,
        "body": json.dumps({"note": ESCAPED}),
    }
    (d / "middleware.log").write_text(json.dumps(line) + "\n")
    return d


def test_no_escaped_key_reaches_the_store_or_any_output(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path / "bundle")
    store = tmp_path / "store"
    res = run_cli(["-q", "ingest", str(bundle), "--store", str(store), "--format", "jsonl"])
    assert res.exit_code == 0, res.stderr
    outputs = {"ingest jsonl": res.stdout + res.stderr}
    for fmt in ("table", "json", "markdown", "sarif", "html"):
        res = run_cli(["-q", "diagnose", str(bundle), "--fail-on", "never", "--format", fmt])
        assert res.exit_code == 0, (fmt, res.stderr)
        outputs[f"diagnose {fmt}"] = res.stdout + res.stderr
    res = run_cli(["-q", "timeline", "--store", str(store), "--session-id", "s1", "-f", "json"])
    assert res.exit_code == 0, res.stderr
    outputs["timeline json"] = res.stdout
    leaks = {k: _leaks(v) for k, v in outputs.items() if _leaks(v)}
    assert leaks == {}
    files = sorted(store.rglob("*.parquet"))  # events, findings and calls tables
    assert files
    for pf in files:
        assert _leaks(json.dumps(pq.read_table(pf).to_pylist(), default=str)) == []
