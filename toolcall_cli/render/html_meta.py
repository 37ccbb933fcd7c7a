"""The HTML report's frame: a header that says when, from what, where and with which toolcall
and settings the page was made; the text of every rule the page cites, embedded so each code
links to it; and a legend of the glyphs the page actually draws.

The generation time honours ``SOURCE_DATE_EPOCH`` (reproducible-builds convention), so a
report rendered twice from the same inputs can be byte-identical.
"""

from __future__ import annotations

import hashlib
import os
import platform
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from toolcall_cli import __version__
from toolcall_cli.render.html_page import OUTCOME_STYLE, SOURCE_COLOUR, h

_PHASE_FILL = (
    ("initiation_ms", "initiation within SLA"),
    ("service_ms", "tool service within SLA"),
    ("injection_ms", "injection within SLA"),
)


def generated_at() -> datetime:
    """Now (UTC), or the time ``SOURCE_DATE_EPOCH`` names."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), tz=UTC)
    return datetime.now(tz=UTC).replace(microsecond=0)


def config_fingerprint(cfg: Any) -> str:
    """A short hash of the effective settings (where they were read from left out), so two
    reports can be told to come from the same configuration or not."""
    if cfg is None:  # the view was not handed the run's settings
        return "not recorded"
    fields = getattr(cfg, "__dataclass_fields__", {})
    skip = {"path", "raw", "discovered", "notes"}
    body = repr([(k, getattr(cfg, k)) for k in fields if k not in skip])
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:12]


def header(title: str, command: str, inputs: Iterable[str], cfg: Any) -> str:
    """The page header: title, then generated-at, inputs, host, version, config fingerprint."""
    files = list(inputs)
    shown = ", ".join(files[:20]) + (f" and {len(files) - 20} more" if len(files) > 20 else "")
    where = getattr(cfg, "path", None)
    conf = f"{config_fingerprint(cfg)}" + (f" ({where})" if where else "")
    rows = (
        ("generated", generated_at().strftime("%Y-%m-%d %H:%M:%S UTC")),
        ("inputs", shown or "the store"),
        ("host", platform.node() or "unknown"),
        ("toolcall", __version__),
        ("config", conf),
    )
    meta = "".join(f"<dt>{k}</dt><dd>{h(v, limit=2000)}</dd>" for k, v in rows)
    return (
        f'<header class="top"><h1>{h(title)}</h1><p>{h(command)}</p>'
        f'<dl class="runmeta">{meta}</dl></header>'
    )


def rule_anchor(code: str) -> str:
    """The element id of a code's embedded rule text."""
    return f"rule-{code}"


def rule_link(code: str, sev: str = "") -> str:
    """A code as a link to its rule text on the page."""
    cls = f"code sev-{h(sev)}" if sev else "code"
    return f'<a class="{cls}" href="#{rule_anchor(code)}">{h(code)}</a>'


def rules_section(codes: Iterable[str]) -> str:
    """The documentation of each cited code (`toolcall rules CODE`), embedded in the page."""
    from toolcall_cli.model.findings import RULES

    cards = []
    for code in sorted(set(codes)):
        try:
            r = RULES.get(code)
        except Exception:  # a code without a registered rule has no text to show
            continue
        cards.append(
            f'<details class="rule" id="{rule_anchor(code)}"><summary><code>{h(code)}</code> '
            f"{h(r.name)} ({h(r.severity.value)}) — {h(r.summary)}</summary>"
            f'<pre class="ruledoc">{h(r.doc)}</pre></details>'
        )
    if not cards:
        return ""
    return f'<section class="rules" id="rules"><h2>Rules cited</h2>{"".join(cards)}</section>'


def legend(sources: Iterable[str], used: set[str]) -> str:
    """A legend of what the page draws: *used* holds the glyph and mark names in use
    (outcomes, ``error``, ``hatch``, ``span`` and the phase keys)."""
    items = [
        f'<span><i class="sw" style="background:{SOURCE_COLOUR.get(s, "#5b6472")}"></i>'
        f"{h(s)} event</span>"
        for s in sources
    ]
    from toolcall_cli.render.html_svg import OK_FILL

    items += [
        f'<span><i class="sw" style="background:{OK_FILL[p]}"></i>{label}</span>'
        for p, label in _PHASE_FILL
        if p in used
    ]
    if "hatch" in used:
        items.append(
            '<span><svg width="22" height="11" aria-hidden="true"><rect width="22" height="11" '
            'fill="url(#hatch)"/></svg>phase over SLA (hatched)</span>'
        )
    if "span" in used:
        items.append(
            '<span><svg width="22" height="11" aria-hidden="true"><line x1="0" y1="6" '
            'x2="22" y2="6" class="span" stroke="#8c959f" stroke-width="2" '
            'stroke-dasharray="3 3"/></svg>seen, no phase measurable</span>'
        )
    items += [
        f'<span data-glyph="{o}"><svg aria-hidden="true"><use href="#g-{o}"/></svg>'
        f"{h(label)}</span>"
        for o, (label, _) in OUTCOME_STYLE.items()
        if o in used
    ]
    if "error" in used:
        items.append(
            '<span data-glyph="error"><svg aria-hidden="true"><use href="#g-error"/></svg>'
            "HTTP error status</span>"
        )
    return f'<div class="legend" aria-label="legend">{"".join(items)}</div>'


def used_marks(svgs: Iterable[str]) -> set[str]:
    """The glyphs and marks the drawn SVGs use (read from the markup they produced)."""
    used: set[str] = set()
    for svg in svgs:
        for o in (*OUTCOME_STYLE, "error"):
            if f'href="#g-{o}"' in svg:
                used.add(o)
        if 'fill="url(#hatch)"' in svg:
            used.add("hatch")
        if 'class="span"' in svg:
            used.add("span")
        for p, _ in _PHASE_FILL:
            if f'class="ph ok" data-phase="{p[:-3]}"' in svg:
                used.add(p)
    return used
