"""Langfuse exports (trace/session downloads, observation blob exports) through the otel source:
detection by content, known counts per shape, the findings the client's own messages give, and
bad records counted (IN001), never fatal."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pandas as pd
import pytest

from tests.conftest import FIXTURES, ROOT, run_cli
from toolcall_cli.model.quoting import resolve_pointer
from toolcall_cli.sources import SOURCES, detect, scores
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.otel import ADAPTER, langfuse_sniff

LF = FIXTURES / "langfuse"
EXPORTS = sorted(p for p in LF.rglob("*") if p.is_file() and "as_messages" not in p.parts)
OTHER_SAMPLES = sorted(
    {s for name, ad in SOURCES.items() if name != "otel" for s in ad.samples}
    | {s for s in ADAPTER.samples if not s.startswith("fixtures/langfuse/")}
    | {str(p.relative_to(ROOT)) for p in (LF / "as_messages").iterdir()}
)


def events(path: Path) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions())


def findings(path: Path) -> list[dict]:
    res = run_cli(["diagnose", str(path), "-f", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.output
    return orjson.loads(res.stdout)["findings"]


def errors(path: Path) -> set[str]:
    return {f["code"] for f in findings(path) if f["severity"] == "error"}


def test_every_export_is_a_sample() -> None:
    assert {str(p.relative_to(ROOT)) for p in EXPORTS} <= set(ADAPTER.samples)


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: str(p.relative_to(LF)))
def test_langfuse_export_is_claimed_by_otel_over_every_other_sniffer(path: Path) -> None:
    sc = scores(path)
    assert sc["otel"] == langfuse_sniff.SCORE
    assert max(v for k, v in sc.items() if k != "otel") < sc["otel"], sc
    assert detect(path) == "otel"


@pytest.mark.parametrize("sample", OTHER_SAMPLES)
def test_other_files_are_not_langfuse_exports(sample: str) -> None:
    assert langfuse_sniff.sniff((ROOT / sample).read_bytes()[: 64 * 1024]) == 0


# file → (tool calls, tool results, tool executions, sessions, traces)
COUNTS = {
    "loop/trace.json": (4, 4, 4, 1, 1),
    "unanswered/trace.json": (2, 1, 1, 1, 1),
    "failed/trace.json": (1, 1, 1, 1, 1),
    "healthy/trace.json": (1, 1, 1, 1, 1),
    "healthy/trace.legacy.json": (0, 0, 1, 1, 1),  # read without IO: structure and times only
    "healthy/session.json": (0, 0, 0, 1, 1),
    "blob/observations.json": (8, 7, 7, 0, 4),  # the legacy table has no session column
    "blob/observations.jsonl": (8, 7, 7, 0, 4),
    "blob/observations_v2.jsonl": (8, 7, 7, 4, 4),
    "blob/traces.jsonl": (0, 0, 0, 4, 4),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts_per_export_shape(name: str) -> None:
    df = events(LF / name)
    kinds = df["kind"].value_counts()
    got = (
        int(kinds.get("tool_call", 0)),
        int(kinds.get("tool_result", 0)),
        int(kinds.get("http_request", 0)),
        df["session_id"].nunique(),
        df["trace_id"].nunique(),
    )
    assert got == COUNTS[name]
    assert int(kinds.get("unparsed", 0)) == 0
    assert df["ts"].notna().all()


def test_blob_shapes_give_the_same_calls() -> None:
    def calls(name: str) -> list[tuple[str, str, str]]:
        df = events(LF / "blob" / name)
        c = df[df["kind"] == "tool_call"]
        return sorted(zip(c["tool_call_id"], c["tool"], c["args"], strict=True))

    got = calls("observations.jsonl")
    assert got == calls("observations.json") == calls("observations_v2.jsonl")
    assert ("call_loop_1", "get_weather", '{"city": "Paris"}') in got


def test_traces_export_ties_legacy_observations_to_their_session() -> None:
    blob = LF / "blob"
    args = ["timeline", str(blob / "traces.jsonl"), str(blob / "observations.jsonl")]
    res = run_cli([*args, "--session-id", "conv-langfuse-loop"])
    assert res.exit_code == 0, res.output
    assert "call_loop_1" in res.stdout and "call_una_1" not in res.stdout
    alone = run_cli(
        ["timeline", str(blob / "observations.jsonl"), "--session-id", "conv-langfuse-loop"]
    )
    assert "call_loop_1" not in alone.stdout  # the legacy table alone has no session column


def test_loop_is_fl001_as_for_the_clients_messages() -> None:
    assert errors(LF / "loop" / "trace.json") == errors(LF / "as_messages/loop.messages.json")
    loop = next(f for f in findings(LF / "loop" / "trace.json") if f["code"] == "FL001")
    assert loop["tool_call_ids"] == [f"call_loop_{i}" for i in range(1, 5)]
    assert loop["session_id"] == "conv-langfuse-loop"


@pytest.mark.parametrize("name", ["unanswered/trace.json", "blob/observations_v2.jsonl"])
def test_unanswered_call_and_the_providers_refusal(name: str) -> None:
    found = findings(LF / name)
    orphan = [f for f in found if f["code"] == "OR001"]
    assert [f["tool_call_ids"] for f in orphan] == [["call_una_2"]]
    # the next generation went on (to a 400): the conversation did not end with the call, in
    # a JSON-lines export (one record per line) as in a JSON array
    assert [f["severity"] for f in orphan] == ["error"]
    assert "PR008" in {f["code"] for f in found}  # the 400 the generation recorded (level ERROR)


@pytest.mark.parametrize(
    "name",
    [
        "healthy/trace.json",
        "healthy/trace.legacy.json",
        "healthy/session.json",
        "failed/trace.json",
    ],
)
def test_healthy_sessions_have_no_error_findings(name: str) -> None:
    assert errors(LF / name) == set() == errors(LF / "as_messages/healthy.messages.json")


def test_failing_tool_is_an_error_response_with_its_status_message() -> None:
    df = events(LF / "failed" / "trace.json")
    resp = df[df["kind"] == "http_response"].iloc[0]
    got = (resp["tool"], resp["tool_call_id"], resp["status"])
    assert got == ("get_weather", "call_fail_1", "error")
    assert orjson.loads(resp["attrs"])["error"] == "unknown city: Atlantis"  # its statusMessage


def test_origins_point_at_the_exported_record() -> None:
    path = LF / "blob" / "observations.jsonl"
    call = events(path).query("kind == 'tool_call'").iloc[0]
    where, _, pointer = call["origin"].partition("#")
    line = int(where.rsplit(":", 1)[1])
    found, value = resolve_pointer(orjson.loads(path.read_text().splitlines()[line - 1]), pointer)
    assert found and value["id"] == call["tool_call_id"]


def test_spans_named_like_a_called_tool_are_tool_executions(tmp_path: Path) -> None:
    """Langfuse SDKs before v3 had no TOOL type: a tool ran inside a SPAN of the tool's name."""
    doc = orjson.loads((LF / "loop" / "trace.json").read_bytes())
    for o in doc["observations"]:
        if o["type"] == "TOOL":
            o["type"], o["metadata"] = "SPAN", {}
    (tmp_path / "trace.json").write_bytes(orjson.dumps(doc))
    df = events(tmp_path / "trace.json")
    runs = df[df["kind"] == "http_request"]
    assert list(runs["tool"]) == ["get_weather"] * 4  # the agent's own span is not one
    assert errors(tmp_path / "trace.json") == {"FL001"}


def test_broken_lines_are_counted_and_the_rest_kept(tmp_path: Path) -> None:
    lines = (LF / "blob" / "observations_v2.jsonl").read_text().splitlines()
    assert orjson.loads(lines[2])["type"] == orjson.loads(lines[6])["type"] == "TOOL"
    lines[2] = lines[2][:80]  # a row cut short (an interrupted upload)
    lines.insert(5, '{"id": "x", "trace_id": "y"}')  # a row that is not an observation
    lines[7] = lines[7].replace('"start_time":"2026', '"start_time":"not-a-time')
    path = tmp_path / "observations_v2.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert detect(path) == "otel"
    df = events(path)
    assert int((df["kind"] == "unparsed").sum()) == 3  # the cut row, the stranger, the bad time
    kinds = df["kind"].value_counts()
    assert int(kinds["tool_call"]) == 8  # the generations all survived
    assert int(kinds["http_request"]) == 7 - 1  # the cut row was a TOOL observation
    bad_time = df[(df["kind"] == "http_request") & df["ts"].isna()]
    assert list(bad_time["origin"]) == [f"{path}:8"]  # kept, without a time
    codes = {f["code"] for f in findings(path)}
    assert {"IN001", "FL001"} <= codes


def test_gzip_blob_export(tmp_path: Path) -> None:
    """Blob exports are written gzip-compressed when the integration asks for it."""
    path = tmp_path / "observations_v2.jsonl.gz"
    path.write_bytes(gzip.compress((LF / "blob" / "observations_v2.jsonl").read_bytes()))
    assert detect(path) == "otel"
    assert int((events(path)["kind"] == "tool_call").sum()) == 8


def test_download_without_io_does_not_guess(tmp_path: Path) -> None:
    """A trace of ≥350 observations is downloaded without input, output, metadata and
    toolCalls: the model calls are there, their content is not, and no loop is inferred."""
    doc = orjson.loads((LF / "loop" / "trace.json").read_bytes())
    for o in doc["observations"]:
        for key in ("input", "output", "metadata", "toolCalls", "toolDefinitions"):
            del o[key]
    (tmp_path / "trace.json").write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    df = events(tmp_path / "trace.json")
    assert int((df["kind"] == "tool_call").sum()) == 0
    assert int((df["kind"] == "http_request").sum()) == 4
    uncaptured = df[df["kind"] == "system"]["attrs"].map(orjson.loads)
    assert len(uncaptured) == 5 and all(a["content_captured"] is False for a in uncaptured)
    assert "FL001" not in {f["code"] for f in findings(tmp_path / "trace.json")}


@pytest.mark.corpus
def test_no_real_third_party_file_is_taken_for_a_langfuse_export(corpus: Path) -> None:
    """The 320 real conversations, logs, captures and schemas of ../shared/corpus score 0."""
    files = [p for p in corpus.rglob("*") if p.is_file()]
    claimed = [str(p) for p in files if langfuse_sniff.sniff(read_head(p, 64 * 1024))]
    assert files and claimed == []


@pytest.mark.parametrize("tool_calls", [5, True, "get_weather"])
def test_output_tool_calls_of_the_wrong_type_are_no_calls(
    tmp_path: Path, tool_calls: object
) -> None:
    """A generation's `output.tool_calls` that is not a list names no tool (it crashed the
    reader with a TypeError on a number or `true`); its trace still reads."""
    doc = orjson.loads((LF / "loop" / "trace.json").read_bytes())
    for o in doc["observations"]:
        if o["type"] == "GENERATION":
            o["output"], o["toolCallNames"] = {"tool_calls": tool_calls}, []
        elif o["type"] == "TOOL":
            o["type"], o["metadata"] = "SPAN", {}
    (tmp_path / "trace.json").write_bytes(orjson.dumps(doc))
    df = events(tmp_path / "trace.json")
    assert int((df["kind"] == "http_request").sum()) == 0  # no SPAN is taken for a tool run
    assert int((df["kind"] == "unparsed").sum()) == 0


def test_jsonl_export_with_a_byte_order_mark_and_crlf_reads_every_row(tmp_path: Path) -> None:
    """The sniffer skips a UTF-8 BOM; the reader must too, or the first row is lost (IN001)."""
    src = (LF / "blob" / "observations_v2.jsonl").read_bytes()
    path = tmp_path / "observations_v2.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + src.replace(b"\n", b"\r\n"))
    got, want = events(path), events(LF / "blob" / "observations_v2.jsonl")
    assert int((got["kind"] == "unparsed").sum()) == 0
    assert got["kind"].value_counts().to_dict() == want["kind"].value_counts().to_dict()


@pytest.mark.parametrize(
    "doc", [b'{"observations": [], "scores": []}', b'{"observations":[],"scores":[]}']
)
def test_an_empty_trace_download_is_one_in_any_spacing(doc: bytes) -> None:
    """A trace without observations is still a trace download, pretty-printed or compact."""
    assert langfuse_sniff.shape(doc) == "download"
