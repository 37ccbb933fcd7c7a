"""The bench's floor program (bench/floor.py) reads every line of its file: a floor whose
reader skipped lines would understate what the command cannot go under."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOOR = ROOT / "bench" / "floor.py"


@pytest.mark.parametrize(
    ("source", "fixture"),
    [
        ("middleware", "fixtures/middleware/json_lines.log"),
        ("nginx", "fixtures/nginx/combined.log"),
    ],
)
def test_floor_reads_every_line(source: str, fixture: str) -> None:
    path = ROOT / fixture
    lines = sum(1 for line in path.read_bytes().splitlines() if line)
    out = subprocess.run(
        [sys.executable, str(FLOOR), source, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.strip().splitlines()[-1] == f"floor: {lines} rows read"
