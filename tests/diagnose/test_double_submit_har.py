"""FL002 on HAR recordings: the initiator stack (the click handler that fired twice) is quoted
as evidence, and the same-body check (two identical chat POSTs, however far apart, with no
tool result between) holds for HAR as it does for a capture."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES
from toolcall_cli.core.findings import Finding
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.sources import ingest_paths

HAR = FIXTURES / "har"


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
