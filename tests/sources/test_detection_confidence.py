"""Confident detection: prose, code, build files and unrelated logs score zero everywhere.

A README that quotes "tool call cancelled because tool-call flooding was detected" is not a
middleware log (issue 15: it used to yield FL006 citing README.md:6). Every phrase DESIGN §2
lists is quoted by the files of fixtures/detect/prose/ in prose, markdown, Python, a Makefile
and a Gradle file, beside a Spring Boot log that has nothing to do with tool calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_cli.sources import SOURCES, ingest_paths, scores

PROSE = Path(__file__).resolve().parents[2] / "fixtures" / "detect" / "prose"
PHRASES = (
    "tool call cancelled because tool-call flooding was detected",
    "duplicate tool_call_id",
    "invalid JSON in arguments",
    "missing required field",
    "POST /tools/",
    "Received response from",
    "call_id mismatch",
    "tool call timeout",
    "tool_call.rejected",
)


def test_the_prose_files_quote_every_middleware_phrase() -> None:
    text = "\n".join(p.read_text() for p in PROSE.iterdir())
    for phrase in PHRASES:
        assert phrase in text, phrase


@pytest.mark.parametrize("name", sorted(p.name for p in PROSE.iterdir()))
def test_prose_scores_zero_for_every_adapter(name: str) -> None:
    got = scores(PROSE / name)
    assert got == dict.fromkeys(SOURCES.names(), 0)


def test_a_directory_walk_lists_what_it_skipped_and_why() -> None:
    result = ingest_paths([PROSE])
    assert result.files == ()
    assert sorted(p.name for p, _ in result.skipped) == sorted(p.name for p in PROSE.iterdir())
    assert {why for _, why in result.skipped} == {"format not recognised"}
