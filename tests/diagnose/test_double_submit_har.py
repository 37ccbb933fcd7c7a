"""FL002 on HAR recordings: the initiator stack (the click handler that fired twice) is quoted
as evidence, and the same-body check (two identical chat POSTs, however far apart, with no
tool result between) holds for HAR as it does for a capture."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.model.findings import Finding
from toolcall_cli.sources import ingest_paths

HAR = FIXTURES / "har"
MITM = FIXTURES / "mitm"


def fl002(path: Path) -> list[Finding]:
    result = ingest_paths([path])
    report = diagnose_events(
        result.events, select=["FL002"], inputs=tuple(str(f.path) for f in result.files)
    )
    return [f for f in report.findings if f.code == "FL002"]


def test_the_initiator_that_fired_twice_is_quoted() -> None:
    (f,) = fl002(HAR / "chrome_initiator.har")
    assert "started by script: chat @" in f.message
    assert "← sendChat @" in f.message and "← onclick @" in f.message
    cause = [e for e in f.evidence if e.origin.endswith("/_initiator")]
    assert [e.origin.rsplit("#", 1)[1] for e in cause] == [
        "/log/entries/1/_initiator",
        "/log/entries/2/_initiator",
    ]
    # quoted from the HAR itself: Chromium's own call frames
    assert all('"functionName":"sendChat"' in e.text for e in cause)
    assert dict(f.extra)["initiators"] == 2


def test_without_initiators_the_finding_quotes_the_requests_only() -> None:
    (f,) = fl002(HAR / "playwright_double_submit.har")  # Playwright writes no _initiator
    assert "started by" not in f.message
    assert not any(e.origin.endswith("/_initiator") for e in f.evidence)


def _two_chat_posts(tmp_path: Path, *, apart_s: float, same_body: bool) -> Path:
    """The double-submit recording's page load and two first chat POSTs, the second moved
    *apart_s* later (beyond the 1 s burst window), its body kept or changed."""
    doc: dict[str, Any] = json.loads((HAR / "playwright_double_submit.har").read_text())
    entries = doc["log"]["entries"][:3]
    first = datetime.fromisoformat(entries[1]["startedDateTime"].replace("Z", "+00:00"))
    later = first + timedelta(seconds=apart_s)
    entries[2]["startedDateTime"] = later.isoformat().replace("+00:00", "Z")
    if not same_body:
        post = entries[2]["request"]["postData"]
        # the same length: only the body's digest tells the two apart
        post["text"] = post["text"].replace("weather in Paris?", "weather in Lille?")
    doc["log"]["entries"] = entries
    out = tmp_path / "two_posts.har"
    out.write_text(json.dumps(doc))
    return out


def test_identical_bodies_seconds_apart_are_a_double_submit(tmp_path: Path) -> None:
    (f,) = fl002(_two_chat_posts(tmp_path, apart_s=3.0, same_body=True))
    assert dict(f.extra)["source"] == "har"
    assert "within 3000 ms" in f.message


def test_different_bodies_seconds_apart_are_two_turns(tmp_path: Path) -> None:
    assert fl002(_two_chat_posts(tmp_path, apart_s=3.0, same_body=False)) == []


@pytest.mark.parametrize(
    ("path", "source"),
    [(HAR / "playwright_double_submit.har", "har"), (MITM / "reverse_double_submit.mitm", "mitm")],
)
def test_the_follow_ups_that_carry_results_are_not_resubmissions(path: Path, source: str) -> None:
    """The first turn was sent twice; each run then called its tool and sent its own follow-up
    with that result in the body. Those follow-ups continue the two runs: the finding counts
    the 2 requests of the double submit, not 3 or 4 "before any tool result"."""
    (f,) = fl002(path)
    assert f.fact("requests") == 2
    assert f.fact("source") == source
    assert f.message.endswith("before any tool result: the turn was submitted twice")
    posts = [e.origin for e in f.evidence]
    first_turn = ["/log/entries/1/request", "/log/entries/2/request"]
    if source == "har":
        assert [o.rsplit("#", 1)[1] for o in posts] == first_turn


def _follow_up_sent_again(tmp_path: Path, *, apart_ms: int) -> Path:
    """One run of the recording as a capture of the chat endpoint alone (page, first POST,
    the follow-up carrying the tool's result) with that follow-up sent a second time,
    identical, *apart_ms* later."""
    doc: dict[str, Any] = json.loads((HAR / "playwright_double_submit.har").read_text())
    page, first, _, _, follow, *_ = doc["log"]["entries"]
    again = json.loads(json.dumps(follow))
    start = datetime.fromisoformat(follow["startedDateTime"].replace("Z", "+00:00"))
    later = start + timedelta(milliseconds=apart_ms)
    again["startedDateTime"] = later.isoformat().replace("+00:00", "Z")
    doc["log"]["entries"] = [page, first, follow, again]
    out = tmp_path / "follow_up_twice.har"
    out.write_text(json.dumps(doc))
    return out


def test_a_follow_up_sent_twice_with_the_same_result_is_still_a_double_submit(
    tmp_path: Path,
) -> None:
    """The negative: a result the first copy already carried is nothing new in the second,
    so a resent follow-up is still the turn submitted twice."""
    (f,) = fl002(_follow_up_sent_again(tmp_path, apart_ms=120))
    assert f.fact("requests") == 2
    assert [e.origin.rsplit("#", 1)[1] for e in f.evidence][:2] == [
        "/log/entries/2/request",
        "/log/entries/3/request",
    ]


def test_separate_bursts_of_one_session_are_counted_as_bursts(tmp_path: Path) -> None:
    """Two double submits minutes apart in one session: one finding, whose message counts
    the bursts instead of calling 4 requests 300 s apart "the turn submitted twice"."""
    lines = (FIXTURES / "incidents" / "double-submit" / "access.log").read_text().splitlines()
    chat = [ln for ln in lines if "/v1/chat/completions" in ln]
    later = [ln.replace("12:00:01", "12:05:01").replace("req-", "req-later-") for ln in chat]
    path = tmp_path / "access.log"
    path.write_text("\n".join([*lines, *later]) + "\n")
    (f,) = fl002(path)
    assert f.fact("requests") == 4
    assert "came in 2 bursts (2 within 100 ms, 2 within 100 ms)" in f.message
    assert f.message.endswith("2 turns were each submitted more than once")
