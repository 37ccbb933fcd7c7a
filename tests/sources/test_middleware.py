"""middleware adapter: JSON lines, logfmt, plain text and user formats → mw_* events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import FIXTURES, ROOT, attrs, run_cli
from toolcall_cli.model.config import load_config
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.middleware import ADAPTER
from toolcall_cli.sources.nginx import ADAPTER as NGINX

FX = FIXTURES / "middleware"


def parse(name: str, **opts: Any) -> pd.DataFrame:
    return ADAPTER.parse(FX / name, ParseOptions(**opts))


def utc(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


def col(df: pd.DataFrame, name: str) -> list[Any]:
    return [None if pd.isna(v) else v for v in df[name]]


@pytest.mark.parametrize("sample", ADAPTER.samples)
def test_claims_its_samples_and_nginx_does_not(sample: str) -> None:
    path = ROOT / sample
    head = read_head(path, 65536)
    assert ADAPTER.sniff(head, path) >= 60
    assert NGINX.sniff(head, path) == 0


def test_json_lines_aliases_kinds_and_times() -> None:
    df = parse("json_lines.log")
    assert col(df, "kind") == [
        "mw_received", "mw_request", "mw_response", "mw_injected",
        "mw_rejected", "mw_flooded", "mw_dropped", "mw_timeout",
    ]  # fmt: skip
    # ts|time|timestamp|@timestamp, epoch millis, naive (UTC by default), +01:00
    stamps = ["00.100", "00.140", "00.910", "00.930", "01", "02", "03", "04"]
    assert list(df["ts"]) == [utc(f"2025-03-01T12:00:{s}") for s in stamps]
    assert col(df, "trace_id")[:4] == ["tr-1"] * 4  # trace_id|traceId|trace
    assert col(df, "session_id")[:4] == ["s1"] * 4  # session_id|sessionId|session
    assert col(df, "tool_call_id")[:4] == ["call_1"] * 4  # tool_call_id|call_id|toolCallId
    assert col(df, "tool")[:3] == ["get_weather"] * 3  # tool|function|name
    assert col(df, "instance")[:3] == ["mw-1"] * 3  # instance|host|pod
    assert col(df, "duration_ms") == [None, None, 770.0, 20.0, None, None, None, 30000.5]
    assert col(df, "status")[2] == "success"
    assert col(df, "size")[2] == 412
    assert df["detail"][5] == "tool call cancelled because tool-call flooding was detected"
    rejected, flooded, dropped = (attrs(df["attrs"][i]) for i in (4, 5, 6))
    assert rejected["event"] == "tool_call.rejected"
    assert (rejected["reason"], rejected["rule"], rejected["field"]) == (
        "schema_violation",
        "schema",
        "check_in",
    )
    assert (flooded["count"], flooded["window_s"]) == (6, 60)
    assert (dropped["expected"], dropped["got"], dropped["call_id"]) == (
        "call_4",
        "call_x",
        "call_x",
    )
    assert df["tool_call_id"][6] == "call_4"


def test_naive_times_take_the_zone() -> None:
    df = parse("json_lines.log", tz="Europe/Berlin")
    assert df["ts"][5] == utc("2025-03-01T11:00:02")  # naive 12:00:02 in Berlin
    assert df["ts"][0] == utc("2025-03-01T12:00:00.100")  # zoned values ignore --tz


def test_logfmt() -> None:
    df = parse("logfmt.log")
    assert col(df, "kind") == [
        "mw_received",
        "mw_request",
        "mw_response",
        "mw_rejected",
        "mw_rejected",
    ]
    assert col(df, "tool_call_id") == ["call_10", "call_10", "call_10", "call_11", "call_12"]
    resp = df.iloc[2]
    assert resp["tool"] == "get_weather"  # from "Received response from get_weather"
    assert resp["duration_ms"] == 750.0 and resp["status"] == "success"
    assert attrs(resp["attrs"])["call_id"] == "call_10"
    dup, bad_json = attrs(df["attrs"][3]), attrs(df["attrs"][4])
    assert (dup["reason"], dup["rule"]) == ("duplicate tool_call_id", "prescreen")
    assert (bad_json["reason"], bad_json["rule"]) == ("invalid JSON in arguments", "prescreen")
    assert df["args"][4] == '{"city": "Par'
    assert df["ts"][4] == utc("2025-03-01T12:00:01.500")


def test_plain_text_phrases() -> None:
    df = parse("plain.log")
    kinds = "flooded request response rejected dropped timeout other"
    assert col(df, "kind") == [f"mw_{k}" for k in kinds.split()]
    first = df.iloc[0]
    assert first["ts"] == utc("2025-03-01T12:00:00.123")
    assert (first["session_id"], first["tool_call_id"], first["tool"], first["instance"]) == (
        "s1", "call_9", "get_weather", "mw-2",
    )  # fmt: skip
    assert attrs(first["attrs"])["level"] == "WARN"
    assert (df["tool"][1], df["trace_id"][1]) == ("get_weather", "tr-8")  # POST /tools/NAME
    assert attrs(df["attrs"][3])["field"] == "city"
    mismatch = attrs(df["attrs"][4])
    assert (mismatch["expected"], mismatch["got"], mismatch["call_id"]) == (
        "call_6",
        "call_606",
        "call_606",
    )
    assert df["tool_call_id"][4] == "call_6"
    assert df["detail"][6] == "health check ok"


def test_mixed_bad_lines_are_counted_not_fatal() -> None:
    df = parse("mixed_bad.log")
    assert col(df, "seq") == [1, 2, 3, 5, 6, 7, 8]  # line 4 is blank
    assert col(df, "kind") == [
        "mw_received", "unparsed", "unparsed", "mw_response", "unparsed", "unparsed", "mw_injected",
    ]  # fmt: skip
    bad = df[df["kind"] == "unparsed"]
    assert bad["detail"].iloc[0] == "this is not a log line at all"
    assert attrs(bad["attrs"].iloc[1])["reason"].startswith("invalid JSON")
    assert bad["ts"].isna().all()
    assert (df["origin"][3]).endswith("mixed_bad.log:5")


def test_user_format_from_config_is_tried_first() -> None:
    cfg = load_config(FX / "toolcall.toml")
    df = parse("custom_format.log", formats=cfg.formats)
    assert col(df, "kind") == ["mw_received", "mw_rejected", "mw_flooded"]
    assert col(df, "tool_call_id") == ["call_30", "call_31", "call_32"]
    assert col(df, "session_id") == ["s3"] * 3
    assert col(df, "instance") == ["mw-3"] * 3
    assert df["detail"][1] == "missing required field check_in"
    a = attrs(df["attrs"][1])
    assert (a["format"], a["field"], a["rule"]) == ("legacy-pipe", "check_in", "schema")
    # without the config the lines are not understood
    assert (parse("custom_format.log")["kind"] == "unparsed").all()


def test_cli_ingest_fixtures() -> None:
    for name in ("json_lines.log", "logfmt.log", "plain.log", "mixed_bad.log"):
        res = run_cli(["ingest", "--no-store", "--format", "json", str(FX / name)])
        assert res.exit_code == 0, res.stderr
        assert json.loads(res.stdout)["summary"]["files"][0]["source"] == "middleware"


def test_cli_user_format_through_config() -> None:
    args = ["--config", str(FX / "toolcall.toml"), "ingest", "--no-store", "--format", "json",
            str(FX / "custom_format.log")]  # fmt: skip
    res = run_cli(args)
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)["summary"]
    assert summary["by_source"]["middleware"] == {
        "mw_flooded": 1,
        "mw_received": 1,
        "mw_rejected": 1,
    }


def test_event_name_variants(tmp_path: Path) -> None:
    names = {
        "tool_call.received": "mw_received", "toolcall.receive": "mw_received",
        "tool_call.rejected": "mw_rejected", "tool_call.validation_failed": "mw_rejected",
        "tool_call.flooded": "mw_flooded", "tool_call.rate_limited": "mw_flooded",
        "tool_call.request": "mw_request", "tool_call.dispatched": "mw_request",
        "tool_call.response": "mw_response", "tool_call.response_received": "mw_response",
        "tool_call.dropped": "mw_dropped", "tool_call.injected": "mw_injected",
        "tool_call.timeout": "mw_timeout", "tool_call.timed_out": "mw_timeout",
        "heartbeat": "mw_other",
    }  # fmt: skip
    p = tmp_path / "ev.log"
    p.write_text("".join(json.dumps({"event": k, "tool_call_id": "c"}) + "\n" for k in names))
    df = ADAPTER.parse(p, ParseOptions())
    assert col(df, "kind") == list(names.values())


def test_json_lines_with_changing_types_fall_back_per_line(tmp_path: Path) -> None:
    p = tmp_path / "mixed.log"
    p.write_text(
        '{"ts": 1740830400, "event": "tool_call.received", "status": 200, "call_id": "a"}\n'
        '{"ts": "2025-03-01T12:00:01Z", "event": "tool_call.response", "status": "ok",'
        ' "call_id": "a", "result": {"data": [1, 2]}}\n'
        '{"ts": "2025-03-01T12:00:02Z", "event": "tool_call.received", "call_id": "b",'
        ' "function": {"name": "get_weather", "arguments": "{}"}}\n',
        encoding="utf-8",
    )
    df = ADAPTER.parse(p, ParseOptions())
    assert list(df["ts"]) == [utc(f"2025-03-01T12:00:0{s}") for s in (0, 1, 2)]
    assert col(df, "status") == ["200", "ok", None]
    assert df["tool"][2] == "get_weather"  # {"function": {"name": ...}} read line by line too
    assert attrs(df["attrs"][1])["result"] == {"data": [1, 2]}


def test_zeek_tsv_is_not_claimed_but_ingests_as_unparsed(corpus: Path) -> None:
    path = corpus / "app_logs" / "lnav_tests" / "logfile_bro_http.log.0"
    head = read_head(path, 65536)
    assert ADAPTER.sniff(head, path) == 0
    assert NGINX.sniff(head, path) == 0
    res = run_cli(["ingest", "--no-store", "--format", "json", str(path)])
    assert res.exit_code == 3  # cannot detect: the user is told to pass --source
    res = run_cli(["ingest", "--no-store", "--format", "json", "--source", "middleware", str(path)])
    assert res.exit_code == 0, res.stderr
    f = json.loads(res.stdout)["summary"]["files"][0]
    assert (f["events"], f["unparsed"]) == (0, 206)


def test_block_and_line_by_line_json_agree(tmp_path: Path) -> None:
    """The one-call pyarrow path and the per-line fallback produce the same events."""
    from toolcall_cli.sources.middleware import _all_json

    lines = (FX / "json_lines.log").read_text().splitlines()
    del lines[4]  # its epoch-number "time" would send the whole block down the per-line path
    block = tmp_path / "block.log"
    block.write_text("\n".join(lines) + "\n", encoding="utf-8")
    per_line = tmp_path / "per_line.log"
    per_line.write_text("\n".join(lines) + "\n\n", encoding="utf-8")  # a blank line: no block read
    assert _all_json(block.read_bytes(), block, "Europe/Berlin") is not None
    assert _all_json(per_line.read_bytes(), per_line, "Europe/Berlin") is None
    fast = ADAPTER.parse(block, ParseOptions(tz="Europe/Berlin"))
    slow = ADAPTER.parse(per_line, ParseOptions(tz="Europe/Berlin"))
    cols = ["ts", "kind", "trace_id", "session_id", "tool_call_id", "tool", "instance", "status",
            "duration_ms", "size", "detail"]  # fmt: skip
    pd.testing.assert_frame_equal(fast[cols], slow[cols])
    assert [attrs(a) for a in fast["attrs"]] == [attrs(a) for a in slow["attrs"]]
    assert fast["ts"][2] == utc("2025-03-01T12:00:00.910")  # "Z" is not taken as Berlin time
    assert fast["ts"][4] == utc("2025-03-01T11:00:02")  # the naive one is


def test_progress_is_reported() -> None:
    seen: list[tuple[int, int]] = []
    ADAPTER.parse(FX / "plain.log", ParseOptions(progress=lambda d, t: seen.append((d, t))))
    size = (FX / "plain.log").stat().st_size
    assert seen[0] == (0, size) and seen[-1] == (size, size)


def test_no_corpus_document_is_taken_for_a_line_log(corpus: Path) -> None:
    """Conversations, schemas, BFCL files and captures: neither log adapter claims any of them."""
    for path in sorted(corpus.rglob("*")):
        if not path.is_file() or "nginx_logs" in path.parts:
            continue
        head = read_head(path, 65536)
        assert ADAPTER.sniff(head, path) == 0, path
        assert NGINX.sniff(head, path) == 0, path
