"""No evidence, no verdict (issue 15): inputs that yield no event exit 3 and say why.

Goldens record the exact stderr line and the exit code for a directory of prose, an empty
directory, result files toolcall does not read, and a file forced with --source that parses to
unparsed records only; a healthy verdict names what it read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import assert_golden

PROSE = "fixtures/detect/prose"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("diagnose/exit3_prose_dir", ["diagnose", PROSE]),
        ("timeline/exit3_prose_dir", ["timeline", PROSE]),
        ("replay/exit3_prose_dir", ["replay", PROSE, "--trace-id", "t"]),
        (
            "diagnose/exit3_forced_source_nothing",
            ["diagnose", "--source", "messages", f"{PROSE}/README.md"],
        ),
        (
            "diagnose/exit0_readme_beside_evidence_is_skipped",
            ["diagnose", "fixtures/detect/bundle_with_readme"],
        ),
        (
            "ingest/readme_beside_evidence_is_skipped",
            ["ingest", "fixtures/detect/bundle_with_readme", "--no-store", "-f", "json"],
        ),
        (
            "diagnose/exit0_healthy_names_its_evidence",
            ["diagnose", "fixtures/incidents/healthy", "--select", "OR"],
        ),
    ],
)  # fmt: skip
def test_no_evidence_golden(name: str, args: list[str], update_goldens: bool) -> None:
    assert_golden(name, args, update=update_goldens)


def test_empty_directory_golden(tmp_path: Path, update_goldens: bool) -> None:
    (tmp_path / "empty").mkdir()
    assert_golden(
        "diagnose/exit3_empty_dir", ["diagnose", "empty"], update=update_goldens, cwd=tmp_path
    )
