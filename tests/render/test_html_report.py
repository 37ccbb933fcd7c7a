"""What the HTML report says, read from its markup: the run header, rule texts behind every
code link, a legend of the glyphs drawn, each call's own end-to-end latency, evidence shown
as indented JSON (never escaped JSON inside JSON), and trace titles from their own calls."""

from __future__ import annotations

import html as html_lib
import platform
import re
from dataclasses import replace

import pytest

from tests.conftest import FIXTURES, run_cli
from toolcall_cli import __version__
from toolcall_cli.model.config import DEFAULT, Sla
from toolcall_cli.model.findings import Evidence
from toolcall_cli.render.html_evidence import evidence_item
from toolcall_cli.render.html_meta import config_fingerprint

BUNDLE = FIXTURES / "incidents" / "flooding-model-loop"


@pytest.fixture(scope="module")
def page() -> str:
    res = run_cli(
        ["diagnose", str(BUNDLE), "--format", "html", "--fail-on", "never"],
        env={"SOURCE_DATE_EPOCH": "1735689600"},
    )
    assert res.exit_code == 0, res.stderr
    return str(res.stdout)


def _meta(page: str) -> dict[str, str]:
    dl = re.search(r'<dl class="runmeta">(.*?)</dl>', page)
    assert dl
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", dl.group(1))
    return {k: html_lib.unescape(v) for k, v in pairs}


def test_header_names_time_inputs_host_version_and_config(page: str) -> None:
    meta = _meta(page)
    assert meta["generated"] == "2025-01-01 00:00:00 UTC"
    assert meta["host"] == (platform.node() or "unknown")
    assert meta["toolcall"] == __version__
    assert meta["config"] == config_fingerprint(DEFAULT)
    for name in ("access.log", "capture.pcap", "messages.json", "middleware.log"):
        assert f"flooding-model-loop/{name}" in meta["inputs"]


def test_timeline_header_records_its_config_too() -> None:
    res = run_cli(["timeline", str(BUNDLE), "--format", "html"])
    assert res.exit_code == 0, res.stderr
    assert _meta(str(res.stdout))["config"] == config_fingerprint(DEFAULT)


def test_config_fingerprint_changes_with_a_setting_not_with_where_it_was_read() -> None:
    other = replace(DEFAULT, sla=Sla(end_to_end_ms=9000))
    assert re.fullmatch(r"sha256:[0-9a-f]{12}", config_fingerprint(DEFAULT))
    assert config_fingerprint(other) != config_fingerprint(DEFAULT)
    from pathlib import Path

    assert config_fingerprint(replace(DEFAULT, path=Path("x.toml"))) == config_fingerprint(DEFAULT)


def test_every_code_link_opens_its_rule_text_on_the_page(page: str) -> None:
    links = set(re.findall(r'href="#rule-([A-Z]{2}\d{3})"', page))
    assert links >= {"FL001", "TM002"}
    for code in links:
        block = re.search(rf'<details class="rule" id="rule-{code}">(.*?)</details>', page, re.S)
        assert block and "What it does" in block.group(1) and "Fix" in block.group(1)


def test_legend_lists_only_the_glyphs_the_swimlanes_draw(page: str) -> None:
    legend = re.search(r'<div class="legend".*?</div>', page, re.S)
    assert legend
    shown = set(re.findall(r'data-glyph="([a-z]+)"', legend.group()))
    svgs = "".join(re.findall(r'<svg class="swim".*?</svg>', page, re.S))
    drawn = set(re.findall(r'href="#g-([a-z]+)"', svgs))
    assert shown == drawn == {"flooded", "result"}


def test_end_to_end_is_each_calls_own_and_the_chat_request_is_shown_once(page: str) -> None:
    table = re.search(r'<table class="calls">.*?</table>', page, re.S)
    assert table
    rows = re.findall(r"<tr id=\"t1-c\d+-row\".*?</tr>", table.group(), re.S)
    e2e = [re.findall(r'<td class="num[^"]*">([^<]*)</td>', r)[-1] for r in rows]
    assert e2e[:5] == ["210 ms"] * 5  # received → injected, not the 9.5 s chat request
    assert "over SLA" not in table.group()
    assert page.count("chat request 9.5 s") == 1
    assert re.search(r'chat request 9.5 s <b class="breach">✗ over SLA</b>', page)


def test_evidence_is_indented_json_with_strings_of_json_unpacked(page: str) -> None:
    quotes = re.findall(r'<pre class="quote json">(.*?)</pre>', page, re.S)
    assert quotes
    plain = [html_lib.unescape(re.sub(r"<[^>]+>", "", q)) for q in quotes]
    assert all('\\"' not in q for q in plain), "escaped JSON inside JSON"
    assert any('"city": "Paris"' in q and '"temp_c": 11' in q for q in plain)


def test_the_focus_is_marked_in_json_and_in_a_cut_window() -> None:
    text = '{"role":"tool","content":"{\\"a\\": 1}","tool_call_id":"c1"}'
    at = text.index('"content"')
    got = evidence_item(Evidence("m.json#/messages/2", text, (at, len(text) - 20), 3, 5))
    assert "line 3:5" in got
    assert re.search(r'<mark><span class="j-key">&quot;content&quot;</span>', got)
    assert re.search(r"<mark>.*&quot;a&quot;.*</mark>", got)
    cut = '…"size": 40}'
    got = evidence_item(Evidence("mw.log:15", cut, (1, 11), 15, 291))
    assert "<mark>&quot;size&quot;: 40</mark>" in got


def test_trace_title_names_the_traces_own_calls(page: str) -> None:
    assert re.search(r"<h2 id=\"t1-h\">Trace <code>trace-loop</code> · get_weather ×6</h2>", page)
