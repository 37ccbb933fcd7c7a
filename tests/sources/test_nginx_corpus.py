"""Real third-party access logs (../shared/corpus/nginx_logs): all ingest, bad lines are counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS, run_cli
from toolcall_cli.sources import detect, parse_file
from toolcall_cli.sources.base import ParseOptions

NGINX = CORPUS / "nginx_logs"
FILES = sorted(p for p in NGINX.rglob("*") if p.is_file()) if NGINX.is_dir() else []

#: (file, parsed access lines, unparsed lines) — the malformed and wrapped lines are counted.
EXPECTED = {
    "elastic_examples/apache_logs": (10_000, 0),
    "lnav_tests/logfile_access_log.0": (3, 0),
    "lnav_tests/logfile_access_log.1": (1, 0),
    "lnav_tests/logfile_bad_access_log.0": (2, 1),
    "lnav_tests/logfile_shop_access_log.0": (1000, 0),
    "lnav_tests/logfile_syslog_with_access_log.0": (0, 5),
    "crowdsec_hub_tests/nginx_http-logs__nginx_http-logs.log": (4, 5),
    "crowdsec_hub_tests/nginx-http-sqli-probing__nginx-http-sqli-probing.log": (16, 0),
    "crowdsec_hub_tests/traefik_clf__traefik_clf.log": (7, 0),
}


@pytest.mark.corpus
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(NGINX)))
def test_every_file_ingests(corpus: Path, path: Path) -> None:
    df = parse_file(path, source="nginx", opts=ParseOptions())
    assert len(df) > 0
    rel = str(path.relative_to(NGINX))
    if rel in EXPECTED:
        parsed = int((df["kind"] == "http_access").sum())
        unparsed = int((df["kind"] == "unparsed").sum())
        assert (parsed, unparsed) == EXPECTED[rel]
    if path.name.startswith("LICENSE"):
        assert (df["kind"] == "unparsed").all()


@pytest.mark.corpus
def test_apache_logs_all_parse_with_times(corpus: Path) -> None:
    path = corpus / "nginx_logs" / "elastic_examples" / "apache_logs"
    assert detect(path) == "nginx"
    df = parse_file(path, opts=ParseOptions())
    assert len(df) == 10_000
    assert (df["kind"] == "http_access").all()
    assert df["ts"].notna().all()
    assert str(df["ts"].min()) == "2015-05-17 10:05:00+00:00"
    assert df["http_status"].notna().all()


@pytest.mark.corpus
def test_malformed_request_lines_keep_their_text(corpus: Path) -> None:
    path = (
        corpus / "nginx_logs" / "crowdsec_hub_tests" / "nginx-http-malformed__nginx_http-logs.log"
    )
    df = parse_file(path, source="nginx", opts=ParseOptions())
    access = df[df["kind"] == "http_access"]
    assert (access["http_status"] == 400).all()
    assert (
        access["detail"].str.startswith("\\x16\\x03").any()
        or access["detail"].str.contains("Gh0st").any()
    )
    assert len(access) == len(df) == 12  # binary junk in the request is still an access line
    assert "batman" in set(access["detail"])


@pytest.mark.corpus
def test_cli_ingest_real_log(corpus: Path) -> None:
    path = corpus / "nginx_logs" / "lnav_tests" / "logfile_bad_access_log.0"
    res = run_cli(["ingest", "--no-store", "--format", "json", str(path)])
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)["summary"]
    assert summary["unparsed"]["count"] == 1


@pytest.mark.corpus
def test_split_fast_path_equals_the_regex(corpus: Path) -> None:
    """The quote-split fast path gives exactly what COMBINED_RX gives, on every real file."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from tests.conftest import FIXTURES
    from toolcall_cli.sources._shared.textlog import nonblank, read_lines
    from toolcall_cli.sources.nginx import extract
    from toolcall_cli.sources.nginx.combined import COMBINED_RX
    from toolcall_cli.sources.nginx.fastpath import extract_combined

    for path in [*FILES, *sorted((FIXTURES / "nginx").glob("*.log"))]:
        lines, _ = nonblank(read_lines(path, ParseOptions())[0])
        slow, slow_ok = extract(lines, COMBINED_RX)
        fast, fast_ok = extract_combined(lines, COMBINED_RX, extract)
        assert slow_ok.equals(fast_ok), path
        for name, col in slow.items():
            a = pc.if_else(slow_ok, col.cast(pa.large_string()), None)
            b = pc.if_else(fast_ok, fast[name].cast(pa.large_string()), None)
            assert a.equals(b), (path, name)
