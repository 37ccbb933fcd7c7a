"""`toolcall diagnose` quotes evidence only from its inputs: the files it ingested, or the files
the store's manifest records — a rewritten origin column never makes it print another file."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import FIXTURES
from toolcall_cli.cli._inputs import evidence_for
from toolcall_cli.diagnose.request import DiagnoseRequest
from toolcall_cli.diagnose.run import diagnose
from toolcall_cli.sources import parse_file
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.store.write import write_files

LOG = FIXTURES / "rules" / "IN001" / "positive.middleware.log"


def _evidence(store: Path) -> list[tuple[str, str]]:
    # the same gather step the command uses: the store, and the files its manifest records
    got = evidence_for(None, store=store, source=None, opts=ParseOptions())
    req = DiagnoseRequest(select=("IN001",))
    rep = diagnose(got.events, req, inputs=got.inputs, quotable=got.quotable)
    return [(e.origin, e.text) for f in rep.findings for e in f.evidence]


def test_store_quotes_the_files_its_manifest_records(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    shutil.copy(LOG, log)
    store = tmp_path / "store"
    write_files(store, [(log, "middleware", parse_file(log, source="middleware"))])
    got = _evidence(store)
    lines = log.read_text().splitlines()
    assert got
    for origin, text in got:
        path, _, n = origin.rpartition(":")
        assert path == str(log)
        assert text == lines[int(n) - 1].strip()[:400]


def test_a_rewritten_origin_is_not_read(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    shutil.copy(LOG, log)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET\n" * 50)
    events = parse_file(log, source="middleware")
    events["origin"] = [f"{secret}:{i + 1}" for i in range(len(events))]
    store = tmp_path / "store"
    write_files(store, [(log, "middleware", events)])
    got = _evidence(store)
    assert got and all(origin.startswith(str(secret)) for origin, _ in got)
    assert not [text for _, text in got if "TOPSECRET" in text]
