"""The nginx reader held to committed goldens of its event table (tests/golden/events/nginx/):
one JSON line per event, over the fixtures, built inputs that reach every shape of the combined
parser (the CSV reader, the split path, COMBINED_RX for the lines they leave, the layout and
row readers of the trailing text), and the real logs of the corpus, read in place (their
goldens are digests: corpus text is not copied into the repo). `pytest --update-goldens`
rewrites them; review the diff like code."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pandas as pd
import pytest

from bench.cli_bench import wide_nginx
from fixtures.gen import bench_inputs
from tests.conftest import CORPUS, FIXTURES, ROOT
from tests.sources import test_nginx_fastpath as fastpath_cases
from tests.sources.test_nginx_fastpath import varied_lines
from toolcall_cli.sources import nginx
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.nginx import ADAPTER

GOLDEN = ROOT / "tests" / "golden" / "events" / "nginx"
NGINX_CORPUS = CORPUS / "nginx_logs"
CORPUS_FILES = (
    sorted(p for p in NGINX_CORPUS.rglob("*") if p.is_file()) if NGINX_CORPUS.is_dir() else []
)

HEAD = '10.0.0.1 - - [01/Mar/2025:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "agent/1.0" '
#: Trailing texts the layout reader takes, and those it leaves to the row reader.
TRAILING = (
    *fastpath_cases.TRAILING,
    'trace_id=a "x-forwarded-for" rt=1',
    "session_id=b trace_id=a tool_call_id=c",
)


def event_lines(df: pd.DataFrame, path: Path) -> str:
    """The event table as JSON lines (columns in schema order, nulls as null), *path* as
    [INPUT]."""
    rows = df.astype(object).where(df.notna(), None).to_dict(orient="records")
    text = "".join(orjson.dumps(row, default=str).decode() + "\n" for row in rows)
    return text.replace(str(path), "[INPUT]")


def _check(name: str, text: str, update: bool) -> None:
    golden = GOLDEN / name
    if update:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
        return
    assert golden.exists(), f"golden {golden} is missing; run pytest --update-goldens"
    assert text == golden.read_text(encoding="utf-8"), (
        f"golden {name} differs; rerun with --update-goldens and review the diff"
    )


def _built(tmp_path: Path, case: str) -> Path:
    path = tmp_path / f"{case}.log"
    if case == "varied":  # odd heads, escaped quotes, junk, tabs, non-ASCII, random trailing
        path.write_text("\n".join(varied_lines(600, seed=5)) + "\n", encoding="utf-8")
    elif case == "trailing":  # each text often enough that a sample keeps layouts of some
        rows = [TRAILING[i % len(TRAILING)] for i in range(8 * len(TRAILING))]
        rows += ["trace_id=a session_id=b rt=1"] * 40 + ["trace_id=a cache=HIT pod=p-1 rt=1"] * 10
        path.write_text("".join(HEAD + r + "\n" for r in rows), encoding="utf-8")
    else:  # the bench's lines, compact and wide
        bench_inputs.nginx(tmp_path / "compact.log", 400)
        if case == "compact":
            return tmp_path / "compact.log"
        wide_nginx(tmp_path / "compact.log", path)
    return path


@pytest.mark.parametrize("csv", [False, True], ids=["small", "csv-reader"])
@pytest.mark.parametrize("case", ["varied", "trailing", "compact", "wide"])
def test_built_inputs_match_their_goldens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_goldens: bool, case: str, csv: bool
) -> None:
    """A big file's lines go through the CSV reader first: the same golden holds for both."""
    if csv:
        monkeypatch.setattr(nginx, "CSV_MIN_LINES", 0)
    path = _built(tmp_path, case)
    df = ADAPTER.parse(path, ParseOptions())
    _check(f"{case}.jsonl", event_lines(df, path), update_goldens)


FIXTURE_LOGS = sorted((FIXTURES / "nginx").glob("*.log"))


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: p.name)
def test_fixtures_match_their_goldens(path: Path, update_goldens: bool) -> None:
    fmt = path.with_name(path.stem + ".format.txt")
    opts = ParseOptions(nginx_format=fmt.read_text().strip()) if fmt.exists() else ParseOptions()
    df = ADAPTER.parse(path, opts)
    _check(f"fixtures/{path.stem}.jsonl", event_lines(df, path), update_goldens)


@pytest.mark.corpus
def test_corpus_matches_its_digests(corpus: Path, update_goldens: bool) -> None:
    """Each real log's event table, as a sha256 of its JSON lines and its counts of kinds."""
    got = {}
    for path in CORPUS_FILES:
        df = ADAPTER.parse(path, ParseOptions())
        text = event_lines(df, path)
        got[str(path.relative_to(NGINX_CORPUS))] = {
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
            "kinds": df["kind"].value_counts().sort_index().to_dict(),
        }
    text = orjson.dumps(got, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"
    _check("corpus.json", text, update_goldens)
