"""Secrets planted in every kind of evidence never reach any output or the store (issue 8 §3).

A bundle holds a capture whose requests carry `Authorization`/`Cookie`/`X-Api-Key` headers and
a bearer token in the body, a middleware log with an `sk-…` key (in a parsed line and in one
no format reads, which IN001 quotes from the raw file), and a messages file whose tool
arguments carry an AWS key and a GitHub token. Every command runs in every format it offers,
and the Parquet store is read back both as raw bytes and through pyarrow. With `--no-redact`
the same secrets do appear, which proves they were planted where the outputs can see them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from fixtures.gen.pcapwriter import PcapWriter, http_exchange
from tests.conftest import run_cli

BEARER = "eyJhbGciOiJIUzI1NiJ9.s3cr3tPayl0ad.SiGnAtUrE42x"
COOKIE = "c00kieS3cretValue77"
SET_COOKIE = "setC00kieSecret99"
API_KEY = "apik3y9f8e7d6c5b4a3210"
SK = "sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2"
AKIA = "AKIAZ7Q4EXAMPLE9X2KD"
GH = "ghp_" + "A1b2C3d4E5" * 3 + "Zz"
SECRETS = (BEARER, COOKIE, SET_COOKIE, API_KEY, SK, AKIA, GH)
# the distinctive tails: a partial leak (prefix kept, tail shown) must fail too
TAILS = (
    "s3cr3tPayl0ad",
    COOKIE,
    SET_COOKIE,
    API_KEY,
    "Zx9Qw8Er7Ty6Ui5Op4As3Df2",
    "Z7Q4EXAMPLE9X2KD",
    "A1b2C3d4E5A1b2C3d4E5",
)
SESSION = "s-secret"


def _bundle(d: Path) -> Path:
    d.mkdir()
    (d / "messages.json").write_text(
        json.dumps(
            {
                "session_id": SESSION,
                "trace_id": "tr-secret",
                "messages": [
                    {"role": "user", "content": "deploy with my keys"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_s1",
                                "type": "function",
                                "function": {
                                    "name": "deploy",
                                    "arguments": json.dumps(
                                        {"aws_key": AKIA, "token": GH, "note": f"key {AKIA}"}
                                    ),
                                },
                            },
                            {
                                "id": "call_s2",
                                "type": "function",
                                "function": {
                                    "name": "deploy",
                                    "arguments": '{"token": "' + GH + '", "cut": ',
                                },
                            },
                        ],
                    },
                    {"role": "tool", "tool_call_id": "call_s1", "content": f"deployed using {GH}"},
                ],
            }
        )
    )
    lines = [
        {
            "ts": "2025-03-01T12:00:00.100Z",
            "event": "tool_call.received",
            "trace_id": "tr-secret",
            "session_id": SESSION,
            "tool_call_id": "call_s1",
            "tool": "deploy",
            "msg": f"tool call received api_key={SK}",
        },
        {
            "ts": "2025-03-01T12:00:00.140Z",
            "event": "tool_call.request",
            "trace_id": "tr-secret",
            "session_id": SESSION,
            "tool_call_id": "call_s1",
            "tool": "deploy",
            "msg": "POST /tools/deploy",
            "headers": {"Authorization": f"Bearer {BEARER}"},
        },
    ]
    text = "\n".join(json.dumps(x) for x in lines)
    (d / "middleware.log").write_text(text + f"\n@@@ unreadable line leaking {SK} @@@\n")
    with PcapWriter(d / "capture.pcap") as w:
        c = w.tcp(client=("127.0.0.1", 51000), server=("127.0.0.1", 8080))
        http_exchange(
            c,
            1740830400.2,
            1740830400.4,
            "POST",
            "/tools/deploy",
            {
                "X-Tool-Call-ID": "call_s1",
                "X-Trace-ID": "tr-secret",
                "X-Session-ID": SESSION,
                "Authorization": f"Bearer {BEARER}",
                "Cookie": f"sessionid={COOKIE}; theme=dark",
                "X-Api-Key": API_KEY,
            },
            {
                "function": "deploy",
                "arguments": json.dumps({"auth": f"Bearer {BEARER}", "aws_key": AKIA}),
            },
            200,
            {"Set-Cookie": f"sid={SET_COOKIE}; Path=/; HttpOnly"},
            {"status": "success", "call_id": "call_s1", "data": {"echo": f"Bearer {BEARER}"}},
        )
        c2 = w.tcp(client=("127.0.0.1", 51001), server=("127.0.0.1", 443))
        http_exchange(
            c2,
            1740830400.0,
            1740830400.1,
            "POST",
            "/v1/chat/completions",
            {"Authorization": f"Bearer {SK}", "X-Session-ID": SESSION},
            {"model": "m", "messages": [{"role": "user", "content": f"my key is {SK}"}]},
            200,
            {},
            {
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "call_s1",
                                    "type": "function",
                                    "function": {
                                        "name": "deploy",
                                        "arguments": json.dumps({"token": GH}),
                                    },
                                }
                            ],
                        }
                    }
                ]
            },
        )
    return d


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _bundle(tmp_path_factory.mktemp("redact") / "bundle")


def _leaks(text: str) -> list[str]:
    return [s for s in (*SECRETS, *TAILS) if s in text]


def _run(args: list[str], cwd: Path | None = None) -> Any:
    res = run_cli(["-q", *args], cwd=cwd)
    assert res.exit_code == 0, (args, res.exit_code, res.stderr[-1500:])
    return res


@pytest.mark.tshark
def test_no_secret_in_any_output_or_in_the_store(bundle: Path, tmp_path: Path, tshark: str) -> None:
    store = tmp_path / "store"
    seen: dict[str, str] = {}
    res = _run(["ingest", str(bundle), "--store", str(store), "--format", "jsonl"])
    seen["ingest jsonl"] = res.stdout + res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert {r["source"] for r in rows} == {"messages", "middleware", "pcap"}
    assert any("[REDACTED]" in (r["args"] or "") for r in rows if r["source"] == "pcap")
    for fmt in ("table", "json", "markdown"):
        res = _run(
            [
                "ingest",
                "--no-store",
                str(bundle / "middleware.log"),
                str(bundle / "messages.json"),
                "--format",
                fmt,
            ]
        )
        seen[f"ingest {fmt}"] = res.stdout + res.stderr
    for fmt in ("table", "json", "markdown", "sarif"):
        res = _run(["diagnose", "--store", str(store), "--fail-on", "never", "--format", fmt])
        seen[f"diagnose {fmt}"] = res.stdout + res.stderr
    res = _run(["diagnose", str(bundle), "--fail-on", "never", "--format", "json"])
    seen["diagnose paths"] = res.stdout + res.stderr
    report = json.loads(res.stdout)
    quoted = [e["text"] for f in report["findings"] for e in f["evidence"]]
    # IN001 quotes the raw line from the file...
    assert any("unreadable line leaking [REDACTED]" in q for q in quoted), quoted
    for fmt in ("table", "json", "markdown"):
        res = _run(["timeline", "--store", str(store), "--session-id", SESSION, "--format", fmt])
        seen[f"timeline {fmt}"] = res.stdout + res.stderr
        res = _run(["replay", "--store", str(store), "--session-id", SESSION, "--format", fmt])
        seen[f"replay {fmt}"] = res.stdout + res.stderr
    res = _run(["replay", str(bundle), "--session-id", SESSION, "--format", "json"])
    seen["replay paths"] = res.stdout + res.stderr
    leaks = {name: _leaks(out) for name, out in seen.items() if _leaks(out)}
    assert not leaks, leaks  # ...with the secret redacted
    files = sorted(store.rglob("*.parquet"))  # events, findings and calls tables
    assert len(json.loads((store / "manifest.json").read_text())["files"]) == 3
    assert any(p.parts[-3] == "findings" for p in files)  # diagnose recorded its findings
    for pf in files:
        assert not _leaks(pf.read_bytes().decode("latin-1"))
        table = pq.read_table(pf)
        text = json.dumps(table.to_pylist(), default=str)
        assert not _leaks(text), (pf, _leaks(text))
    assert not _leaks((store / "manifest.json").read_text())


@pytest.mark.tshark
def test_no_redact_shows_the_planted_secrets(bundle: Path, tshark: str) -> None:
    res = run_cli(["-q", "ingest", "--no-store", "--no-redact", str(bundle), "--format", "jsonl"])
    assert res.exit_code == 0, res.stderr
    assert "--no-redact" in res.stderr  # the warning
    assert {SK, AKIA, GH, BEARER} <= set(_leaks(res.stdout))
    res = run_cli(
        [
            "diagnose",
            "--no-redact",
            str(bundle / "middleware.log"),
            "--format",
            "json",
            "--fail-on",
            "never",
        ]
    )
    assert SK in res.stdout  # quotes too are raw when redaction is off


@pytest.mark.config_discovery
def test_user_patterns_and_json_paths_reach_evidence_quotes(tmp_path: Path) -> None:
    (tmp_path / "toolcall.toml").write_text(
        '[redact]\npatterns = ["ACME-[0-9]{8}"]\njson_paths = ["/card/number"]\n'
    )
    pay = {"name": "pay", "arguments": {"card": {"number": "4111111111111111", "exp": "12/30"}}}
    (tmp_path / "m.json").write_text(
        json.dumps(
            {
                "session_id": "s",
                "messages": [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": "c1", "type": "function", "function": pay}],
                    }
                ],
            }
        )
    )
    res = run_cli(["diagnose", "m.json", "--format", "json", "--fail-on", "never"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    quotes = [e["text"] for f in json.loads(res.stdout)["findings"] for e in f["evidence"]]
    assert any('"exp":"12/30"' in q for q in quotes)  # PR007 quotes the call (object arguments)
    assert "4111111111111111" not in res.stdout
    log = tmp_path / "middleware.log"
    log.write_text(
        json.dumps(
            {
                "ts": "2025-03-01T12:00:00Z",
                "event": "tool_call.received",
                "tool_call_id": "c1",
                "tool": "pay",
                "msg": "customer ACME-12345678",
            }
        )
        + "\n### customer ACME-87654321 said hi ###\n"
    )
    res = run_cli(["diagnose", str(log), "--format", "json", "--fail-on", "never"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert "ACME-" not in res.stdout
    assert "[REDACTED]" in res.stdout
