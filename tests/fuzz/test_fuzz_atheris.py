"""Run the atheris targets in a subprocess: a short, reproducible run of the combined `all`
target in `make test` (a fixed seed and a fixed number of inputs); each target for 5 minutes
at random under `make fuzz` (--fuzz-long).

Seeds come from the fixtures of each format (written to a temporary corpus directory, never
into the repo) plus every input a run has ever crashed on (`regressions/`, named
`all-<what>`: the first byte picks the target, as in the `all` target); crash artifacts go to
the test's tmp_path and are shown on failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT

atheris = pytest.importorskip("atheris", reason="pip install atheris (the dev extra)")

TARGET = Path(__file__).with_name("atheris_targets.py")
REGRESSIONS = Path(__file__).with_name("regressions")
ORDER = ("nginx", "middleware", "tagged")
SHORT_RUNS = 400  # inputs in make test's run (~6 s idle); a wall-time bound instead would vary
SEED = 20261201


def _strings(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _regressions(name: str) -> list[bytes]:
    """Past crash inputs of the `all` target; for one target, those it picked (selector cut)."""
    found = [p.read_bytes() for p in sorted(REGRESSIONS.glob("all-*"))]
    if name == "all":
        return found
    return [data[1:] for data in found if data and ORDER[data[0] % 3] == name]


def _seeds(name: str) -> list[bytes]:
    if name == "all":
        return [bytes([i]) + seed for i, target in enumerate(ORDER) for seed in _seeds(target)]
    if name == "tagged":
        docs = [
            json.loads((FIXTURES / "messages" / f).read_text())
            for f in ("tagged.json", "react.json")
        ]
        return [s.encode() for doc in docs for s in _strings(doc) if len(s) > 20]
    return [
        line
        for p in sorted((FIXTURES / name).glob("*.log"))
        for line in p.read_bytes().splitlines()
        if line.strip()
    ]


def test_atheris_target(atheris_target: str, tmp_path: Path, fuzz_long: bool) -> None:
    name = atheris_target
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, seed in enumerate(_seeds(name) + _regressions(name)):
        (corpus / f"seed{i}").write_bytes(seed)
    seconds = 300 if fuzz_long else 120  # short runs stop at SHORT_RUNS inputs well before
    budget = [] if fuzz_long else [f"-runs={SHORT_RUNS}", f"-seed={SEED}"]
    proc = subprocess.run(
        [
            sys.executable,
            str(TARGET),
            name,
            f"-max_total_time={seconds}",
            *budget,
            "-max_len=4096",
            "-rss_limit_mb=2048",
            f"-artifact_prefix={tmp_path}/",
            "-print_final_stats=1",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 120,
        cwd=ROOT,
    )
    crashes = sorted(
        p for p in tmp_path.iterdir() if p.name.startswith(("crash-", "oom-", "timeout-"))
    )
    detail = proc.stderr[-4000:] + "".join(f"\n{p.name}: {p.read_bytes()[:300]!r}" for p in crashes)
    assert proc.returncode == 0 and not crashes, detail
    assert "stat::number_of_executed_units" in proc.stderr, detail
