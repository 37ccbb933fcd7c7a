"""The HTML report driven in headless Chromium: clicking a finding highlights its events (in
the swimlane and in the event list), hovering a swimlane mark highlights its event row, the
trace index of a big run (tau-bench) searches and pages, and the pages lay out at 1400 and
800 px wide (screenshots in each test's tmp_path for a human to look at).

The page's CSP admits only its own script; the test adds a driver script (and its hash) to a
copy of the page, which runs after the page's own script and records what it saw on <body>.
"""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, need_chromium, need_corpus, need_tshark, run_cli
from tests.render.test_html_browser import FLAGS as BROWSER_FLAGS

EPOCH = {"SOURCE_DATE_EPOCH": "1735689600"}
#: The browser test's flags, with the window size each test sets itself.
FLAGS = [f for f in BROWSER_FLAGS if not f.startswith("--window-size=")]
TAU = "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json"


class Dom(HTMLParser):
    """The elements the tests read back from Chromium's serialised DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.body: dict[str, str | None] = {}
        self.els: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "body":
            self.body = a
        self.els.append((tag, a))

    def having(self, attr: str, tag: str | None = None) -> list[dict[str, str | None]]:
        return [a for t, a in self.els if a.get(attr) is not None and tag in (None, t)]


def _classes(a: dict[str, str | None]) -> set[str]:
    return set((a.get("class") or "").split())


def _driven(html: str, js: str) -> str:
    """*html* with a driver script appended and admitted by the page's CSP."""
    digest = base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
    html = html.replace("script-src '", f"script-src 'sha256-{digest}' '", 1)
    return html.replace("</body>", f"<script>{js}</script>\n</body>", 1)


def _chromium(args: list[str], tmp: Path, width: int = 1400) -> subprocess.CompletedProcess[str]:
    cmd = [
        need_chromium(),
        *FLAGS,
        f"--window-size={width},1000",
        f"--user-data-dir={tmp / 'profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


def _render(args: list[str]) -> str:
    res = run_cli([*args, "--format", "html"], env=EPOCH)
    assert res.exit_code == 0, res.stderr
    return str(res.stdout)


def _dom(html: str, js: str, tmp: Path, width: int = 1400) -> Dom:
    page = tmp / "page.html"
    page.write_text(_driven(html, js), encoding="utf-8")
    run = _chromium(["--dump-dom", page.resolve().as_uri()], tmp, width)
    assert run.returncode == 0, run.stderr[-2000:]
    dom = Dom()
    dom.feed(run.stdout)
    assert dom.body.get("data-ready") == "true", "the page's script did not finish"
    return dom


@pytest.fixture(scope="module")
def flood_html() -> str:
    need_tshark()
    bundle = FIXTURES / "incidents" / "flooding-model-loop"
    return _render(["diagnose", str(bundle), "--fail-on", "never"])


CLICK = """
var card = document.querySelector('article.finding[data-calls]');
card.dispatchEvent(new MouseEvent('click', {bubbles: true}));
document.body.setAttribute('data-clicked', card.id);
"""


@pytest.mark.browser
def test_clicking_a_finding_highlights_its_events(flood_html: str, tmp_path: Path) -> None:
    dom = _dom(flood_html, CLICK, tmp_path)
    card = dom.body.get("data-clicked")
    (attrs,) = [a for t, a in dom.els if t == "article" and a.get("id") == card]
    assert "active" in _classes(attrs)
    calls = set((attrs.get("data-calls") or "").split())
    assert calls, "the clicked finding names no drawn call"
    rows = dom.having("data-ev", "tr")
    marks = dom.having("data-ev", "g")
    assert rows and marks
    for kind in (rows, marks):
        lit = {a.get("data-ev") for a in kind if "hl" in _classes(a)}
        want = {a.get("data-ev") for a in kind if a.get("data-call") in calls}
        assert lit == want and want, "the finding's events (and only those) are highlighted"


HOVER = """
var mark = document.querySelector('g.ev[data-ev]');
mark.dispatchEvent(new MouseEvent('mouseenter', {clientX: 300, clientY: 200}));
var tip = document.querySelector('div.tip');
document.body.setAttribute('data-hovered', mark.getAttribute('data-ev'));
document.body.setAttribute('data-tip', tip.hidden ? '' : tip.textContent);
"""


@pytest.mark.browser
def test_hovering_a_swimlane_mark_highlights_its_row_and_shows_its_tooltip(
    flood_html: str, tmp_path: Path
) -> None:
    dom = _dom(flood_html, HOVER, tmp_path)
    ev = dom.body.get("data-hovered")
    lit = [a.get("data-ev") for a in dom.having("data-ev", "tr") if "evhl" in _classes(a)]
    assert lit == [ev]
    # the tooltip is the mark's own hover text (time, source, kind, then its origin)
    first = flood_html.index(f'data-ev="{ev}"')
    title = re.search(r"<title>(.*?)</title>", flood_html[first:], re.S)
    assert title and dom.body.get("data-tip") == html_lib.unescape(title.group(1))
    assert "messages" in (dom.body.get("data-tip") or "")


SEARCH = """
var sec = document.querySelector('section.tindex'), box = sec.querySelector('input.tsearch');
function visible() { return Array.prototype.filter.call(sec.querySelectorAll('tbody tr'),
  function (r) { return !r.hidden; }).length; }
var first = visible();
box.value = 'cancel_reservation'; box.dispatchEvent(new Event('input'));
var found = visible();
sec.querySelector('.next').click();
document.body.setAttribute('data-result', [first, found, visible(),
  sec.querySelector('.tcount').textContent, sec.querySelector('.pageno').textContent].join('|'));
"""


@pytest.mark.browser
def test_trace_index_of_a_big_run_searches_and_pages(tmp_path: Path) -> None:
    html = _render(["diagnose", str(need_corpus() / TAU), "--fail-on", "never"])
    index = html[html.index('<section class="tindex"') : html.index("</section>")]
    rows = re.findall(r"<tr class=\"sev-[a-z]+\">(.*?)</tr>", index)
    hits = [r for r in rows if "cancel_reservation" in re.sub(r"<[^>]+>", "", r).lower()]
    assert len(rows) > 300 and len(hits) > 25  # enough for a second page of hits
    dom = _dom(html, SEARCH, tmp_path)
    first, found, second, count, pageno = (dom.body.get("data-result") or "").split("|")
    assert int(first) == 25 and int(found) == 25
    assert int(second) == min(25, len(hits) - 25)
    assert count == f"{len(hits)} of {len(rows)} traces"
    assert pageno == f"page 2 of {-(-len(hits) // 25)}"


LAYOUT = """
var svg = document.querySelector('svg.swim'), main = document.querySelector('main');
document.body.setAttribute('data-layout', [
  document.documentElement.scrollWidth > window.innerWidth ? 'overflow' : 'fits',
  (svg.getBoundingClientRect().width / main.clientWidth).toFixed(2)].join('|'));
"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("command", ["diagnose", "timeline"])
def test_pages_lay_out_and_are_captured_at_width(
    command: str, width: int, flood_html: str, tmp_path: Path
) -> None:
    bundle = FIXTURES / "incidents" / "flooding-model-loop"
    html = flood_html if command == "diagnose" else _render(["timeline", str(bundle)])
    dom = _dom(html, LAYOUT, tmp_path, width)
    fits, share = (dom.body.get("data-layout") or "").split("|")
    assert fits == "fits", "the page scrolls sideways"
    if command == "timeline" or width == 800:  # alone in its row: the swimlane fills the width
        assert float(share) > 0.85, share
    page = tmp_path / "shot.html"
    page.write_text(html, encoding="utf-8")
    png = tmp_path / f"html-{command}-{width}.png"
    png.unlink(missing_ok=True)
    shot = _chromium([f"--screenshot={png}", page.resolve().as_uri()], tmp_path, width)
    assert shot.returncode == 0, shot.stderr[-2000:]
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(head[16:20], "big") == width
    assert png.stat().st_size > 20_000, "screenshot looks empty"
