"""The HTML incident report in a real browser (headless Chromium): it loads, its script runs
without errors, the swimlane SVG has a lane per source and per call and a bar per measured call,
and a screenshot is written to the test's tmp_path for a human to look at (pytest keeps the
last three runs under /tmp/pytest-of-$USER/)."""

from __future__ import annotations

import json
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, need_chromium, need_tshark, run_cli

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]
#: Console text of a script error, a CSP block or a refused load.
ERRORS = ("Uncaught", "Refused", "Content Security Policy", "ERR_")
#: (bundle, has a pcap)
BUNDLES = [("flooding-model-loop", True), ("silent-drop", False)]


class Dom(HTMLParser):
    """Collects the elements the test counts from Chromium's serialised DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.body: dict[str, str | None] = {}
        self.src_lanes: list[str] = []
        self.call_lanes: list[str] = []
        self.bars: dict[str, int] = {}
        self.scripts = 0
        self.cards: dict[str, str] = {}  # finding id -> data-calls
        self.highlighted: set[str] = set()  # data-call of elements the script highlighted
        self._lane: str | None = None
        self._title_of: str | None = None
        self.titles: dict[str, str] = {}
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if tag == "script":
            self.scripts += 1
        if tag == "article" and a.get("data-calls"):
            self.cards[a.get("id") or ""] = a.get("data-calls") or ""
        if a.get("data-call") and "hl" in cls:
            self.highlighted.add(a.get("data-call") or "")
        if tag == "g" and "lane-src" in cls:
            self.src_lanes.append(a.get("data-lane") or "")
        if tag == "g" and "lane-call" in cls:
            cid = a.get("id") or ""
            self.call_lanes.append(cid)
            self._lane = cid
            self._title_of = cid
        if tag == "rect" and "ph" in cls and self._lane:
            self.bars[self._lane] = self.bars.get(self._lane, 0) + 1

    def handle_data(self, data: str) -> None:
        if self._title_of and self.lasttag == "title":
            self.titles[self._title_of] = data
            self._title_of = None


def _chromium(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    exe = need_chromium()
    cmd = [exe, *FLAGS, f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _expected(bundle: Path) -> tuple[int, dict[str, bool]]:
    """Sources per trace summed, and per call id whether any phase was measured (from the
    timeline's JSON, i.e. independently of the HTML renderer)."""
    res = run_cli(["timeline", str(bundle), "--format", "json", "--limit", "1000"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    sources = sum(len({e["source"] for e in t["events"]}) for t in doc["traces"])
    calls = {
        c["tool_call_id"]: any(
            c["phases"][p] is not None for p in ("initiation_ms", "service_ms", "injection_ms")
        )
        for t in doc["traces"]
        for c in t["calls"]
    }
    return sources, calls


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert head[12:16] == b"IHDR"
    w, hgt = struct.unpack(">II", head[16:24])
    return int(w), int(hgt)


@pytest.mark.browser
@pytest.mark.parametrize(("name", "pcap"), BUNDLES)
def test_report_renders_in_chromium(name: str, pcap: bool, tmp_path: Path) -> None:
    need_chromium()
    if pcap:
        need_tshark()
    bundle = FIXTURES / "incidents" / name
    out = tmp_path / f"{name}.html"
    res = run_cli(
        ["diagnose", str(bundle), "--format", "html", "-o", str(out), "--fail-on", "never"]
    )
    assert res.exit_code == 0, res.stderr
    url = out.resolve().as_uri()

    # "#t1-f1" selects the first finding of the first trace, as a click would
    dom_run = _chromium(
        ["--enable-logging=stderr", "--v=0", "--dump-dom", url + "#t1-f1"], tmp_path
    )
    assert dom_run.returncode == 0, dom_run.stderr[-2000:]
    console = [ln for ln in dom_run.stderr.splitlines() if "CONSOLE" in ln]
    assert not [ln for ln in console if any(w in ln for w in ERRORS)], console
    dom = Dom()
    dom.feed(dom_run.stdout)
    assert dom.body.get("data-ready") == "true", "the inline script did not finish"
    assert dom.scripts == 1

    assert "t1-f1" in dom.cards, "the first finding names no drawn call"
    assert dom.highlighted == set(dom.cards["t1-f1"].split()), "selecting it highlighted others"

    n_sources, calls = _expected(bundle)
    assert len(dom.src_lanes) == n_sources
    assert len(dom.call_lanes) == len(calls) > 0
    for cid in dom.call_lanes:
        title = dom.titles.get(cid, "")
        tool_call_id = next((k for k in calls if k and f"· {k} —" in title), None)
        assert tool_call_id is not None, f"lane {cid} names no known call: {title!r}"
        if calls[tool_call_id]:
            assert dom.bars.get(cid, 0) >= 1, f"call {tool_call_id} has phases but no bar"

    png = tmp_path / f"html-report-{name}.png"
    png.unlink(missing_ok=True)
    shot = _chromium([f"--screenshot={png}", url], tmp_path)
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert png.is_file()
    assert png.stat().st_size > 20_000, "screenshot looks empty"
    assert _png_size(png) == (1400, 1000)
