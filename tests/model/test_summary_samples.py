"""The ingest summary keeps `SAMPLES_PER_FILE` unparsed samples per *file*, the file of an
origin being `model.origins.file_of`'s (it split at the last `:`, so each pointer of a JSON
document was a file of its own and two captures named `x:a`, `x:b` were one)."""

from __future__ import annotations

import pandas as pd

from tests.conftest import FIXTURES, run_cli
from toolcall_cli.model.summary import SAMPLES_PER_FILE, Digest, IngestReport
from toolcall_cli.sources import parse_file


def _samples(*frames: pd.DataFrame) -> list[str]:
    report = IngestReport(
        files=(), events=frames[0].iloc[:0], store=None, digest=Digest.of(*frames)
    )
    return [s["origin"] for s in report.summary()["unparsed"]["samples"]]


def test_a_json_documents_unparsed_members_are_sampled_as_one_file() -> None:
    import orjson

    path = "fixtures/messages/broken_types.json"  # 5 unparsed members, `path#/messages/N`
    res = run_cli(["ingest", path, "--no-store", "-f", "json"], cwd=FIXTURES.parent)
    summary = orjson.loads(res.stdout)["summary"]
    assert summary["unparsed"]["count"] == 5
    assert [s["origin"] for s in summary["unparsed"]["samples"]] == [
        f"{path}#/messages/1",
        f"{path}#/messages/2/tool_calls",
        f"{path}#/messages/3",
    ]


def test_captures_whose_names_hold_a_colon_are_sampled_apart() -> None:
    ev = parse_file(FIXTURES / "messages" / "broken_types.json", source="messages")
    bad = ev[ev["kind"] == "unparsed"].reset_index(drop=True)

    def named(file: str) -> pd.DataFrame:
        frame = [f"{file}#frame={i}" for i in range(len(bad))]
        return bad.assign(origin=pd.Series(frame, dtype=ev["origin"].dtype))

    got = _samples(named("x:a.pcap"), named("x:b.pcap"))
    assert [o.split("#")[0] for o in got] == ["x:a.pcap"] * SAMPLES_PER_FILE + [
        "x:b.pcap"
    ] * SAMPLES_PER_FILE
