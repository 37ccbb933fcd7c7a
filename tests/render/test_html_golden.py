"""The HTML report's structure (a golden outline of tags, classes, ids and data attributes),
its determinism, its self-containment, and that hostile input never becomes markup."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import GOLDEN_DIR, ROOT, read_golden, run_cli

BUNDLE = "fixtures/incidents/silent-drop"
GOLDEN = GOLDEN_DIR / "render" / "html_outline_silent-drop.txt"
STRUCT_ATTRS = (
    "id",
    "class",
    "data-call",
    "data-calls",
    "data-lane",
    "data-outcome",
    "data-phase",
    "data-code",
    "data-kind",
    "lang",
    "role",
    "href",
)


class Outline(HTMLParser):
    """Tag tree with the structural attributes only (no text, no coordinates)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.depth = 0
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.in_own_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        keep = " ".join(f'{k}="{a[k]}"' for k in STRUCT_ATTRS if a.get(k) is not None)
        self.lines.append("  " * self.depth + f"<{tag}{' ' + keep if keep else ''}>")
        if tag not in _VOID:
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.depth -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag not in _VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)


_VOID = {"meta", "br", "hr", "img", "input", "link", "source", "wbr", "area", "base", "col"}


#: A fixed generation time (reproducible-builds convention), so two renders are identical.
EPOCH = {"SOURCE_DATE_EPOCH": "1735689600"}


def _render(args: list[str]) -> str:
    res = run_cli(args, env=EPOCH)
    assert res.exit_code == 0, res.stderr
    return str(res.stdout)


def _outline(html: str) -> str:
    p = Outline()
    p.feed(html)
    p.close()
    assert p.depth == 0, "unbalanced tags"
    return "\n".join(p.lines) + "\n"


HTML_ARGS = ["diagnose", BUNDLE, "--format", "html", "--fail-on", "never"]


@pytest.fixture(scope="module")
def report_html() -> str:
    """The bundle's HTML report, rendered once for the tests that only read it."""
    return _render(HTML_ARGS)


def test_outline_golden(report_html: str, update_goldens: bool) -> None:
    html = report_html
    outline = _outline(html)
    assert outline == read_golden(GOLDEN, outline, update=update_goldens), (
        "rerun with --update-goldens and review"
    )


def test_page_is_deterministic_and_self_contained(report_html: str) -> None:
    a, b = report_html, _render(HTML_ARGS)
    assert a == b
    assert a.startswith("<!DOCTYPE html>") and '<html lang="en">' in a
    p = Outline()
    p.feed(a)
    for tag, attrs in p.tags:
        for k in ("src", "href", "xlink:href", "action"):
            v = attrs.get(k)
            assert v is None or v.startswith("#"), f"external reference {tag} {k}={v}"
        assert tag not in ("link", "img", "iframe", "object", "embed")
    assert 'http-equiv="Content-Security-Policy"' in a and "default-src 'none'" in a
    titles = [t for t, _ in p.tags if t == "title"]
    assert len(titles) > 3  # the page's, the SVG's, and hover text on lanes and bars


def test_diagnose_findings_and_lanes_present(report_html: str) -> None:
    html = report_html
    doc = json.loads(_render(["diagnose", BUNDLE, "--format", "json", "--fail-on", "never"]))
    p = Outline()
    p.feed(html)
    cards = [a for t, a in p.tags if t == "article"]
    assert [a.get("data-code") for a in cards] == [f["code"] for f in doc["findings"]]
    lanes = [a for t, a in p.tags if t == "g" and "lane-call" in (a.get("class") or "")]
    assert [a.get("data-outcome") for a in lanes] == ["missing"]
    text = "".join(p.text)
    for f in doc["findings"]:
        assert f["message"] in text
        for e in f["evidence"]:
            assert e["origin"] in text


def test_timeline_html() -> None:
    html = _render(["timeline", BUNDLE, "--format", "html"])
    p = Outline()
    p.feed(html)
    srcs = [
        a.get("data-lane") for t, a in p.tags if t == "g" and "lane-src" in (a.get("class") or "")
    ]
    assert srcs == ["messages", "middleware", "nginx"]
    assert not [t for t, _ in p.tags if t == "article"]


XSS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "javascript:alert(3)",
    "</title><svg onload=alert(4)>",
    "\x1b[31mred\x07",
]


def _hostile_bundle(root: Path) -> Path:
    bundle = root / "hostile"
    bundle.mkdir()
    payload = " ".join(XSS)
    call_id = 'call_<script>alert(5)</script>"x'
    messages = {
        "session_id": "sess-<marquee>x</marquee>",
        "trace_id": '"><img src=x onerror=alert(6)>',
        "messages": [
            {"role": "user", "content": payload},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "get_<img src=x onerror=alert(7)>",
                            "arguments": json.dumps({"url": "javascript:alert(8)", "q": payload}),
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_orphan<script>", "content": payload},
        ],
    }
    (bundle / "messages.json").write_text(json.dumps(messages), encoding="utf-8")
    lines = [
        {
            "ts": "2025-03-01T12:00:00.100Z",
            "event": "tool_call.received",
            "msg": payload,
            "trace_id": messages["trace_id"],
            "session_id": messages["session_id"],
            "tool_call_id": call_id,
            "tool": "get_<img src=x onerror=alert(9)>",
            "instance": "<script>alert(10)</script>",
        },
        {
            "ts": "2025-03-01T12:00:00.200Z",
            "event": "tool_call.rejected",
            "msg": "rejected: " + payload,
            "reason": payload,
            "trace_id": messages["trace_id"],
            "session_id": messages["session_id"],
            "tool_call_id": call_id,
            "tool": "get_<img src=x onerror=alert(9)>",
        },
    ]
    (bundle / "middleware.log").write_text(
        "".join(json.dumps(x) + "\n" for x in lines) + "not json <script>alert(11)</script>\n",
        encoding="utf-8",
    )
    return bundle


@pytest.mark.parametrize("command", ["diagnose", "timeline"])
def test_hostile_input_never_becomes_markup(command: str, tmp_path: Path) -> None:
    bundle = _hostile_bundle(tmp_path)
    args = [command, str(bundle), "--format", "html"]
    html = _render(args + (["--fail-on", "never"] if command == "diagnose" else []))
    p = Outline()
    p.feed(html)
    tags = [t for t, _ in p.tags]
    assert tags.count("script") == 1  # the page's own
    assert "img" not in tags and "marquee" not in tags
    for tag, attrs in p.tags:
        for k, v in attrs.items():
            assert not k.startswith("on"), f"event handler attribute {k} on <{tag}>"
            assert not (v or "").strip().lower().startswith("javascript:"), (tag, k, v)
    # the hostile text is shown (escaped), not dropped; control characters are made visible
    text = "".join(p.text)
    assert "<script>alert(1)</script>" in text
    assert "\x1b" not in html and "\x07" not in html
    assert "\\x1b[31mred\\x07" in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    if command == "diagnose":
        assert tags.count("article") >= 1
    assert str(ROOT) not in "".join(a.get("id") or "" for _, a in p.tags)
