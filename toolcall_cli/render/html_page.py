"""The HTML page shell: escaping, inline CSS, the optional inline script, glyph symbols.

Everything the page needs is inline (no external assets, no fetches); a Content-Security-Policy
allows only the page's own style and its one script (by hash), so even markup that slipped
through escaping could neither run nor load anything. The page reads fine with scripts disabled.
"""

from __future__ import annotations

import base64
import hashlib
import html
from typing import Final

from toolcall_cli.model.events import SOURCE_TRAITS
from toolcall_cli.render.html_script import SCRIPT
from toolcall_cli.render.safe import clean

#: Outcome → (glyph label, colour); the glyph shapes are the `<symbol>`s of `SYMBOLS`.
OUTCOME_STYLE: dict[str, tuple[str, str]] = {
    "rejected": ("rejected by validation", "#c81e1e"),
    "flooded": ("cancelled: flooding", "#d9480f"),
    "timeout": ("tool timeout", "#9a6700"),
    "dropped": ("response dropped", "#8b3fd1"),
    "missing": ("no result", "#5b6472"),
    # per call the label says which (cancelled_text.cancelled_label)
    "cancelled": ("cancelled: by the user (turn aborted) or the client", "#6e7781"),
    "result": ("result injected", "#1a7f37"),
}

#: Source lane colours, as each source declares them.
SOURCE_COLOUR: Final[dict[str, str]] = {t.name: t.colour for t in SOURCE_TRAITS}


def h(text: object, *, limit: int | None = None, one_line: bool = False) -> str:
    """Untrusted text for HTML: controls made visible, then escaped (quotes included)."""
    return html.escape(clean(text, keep_newlines=not one_line, limit=limit), quote=True)


#: Reusable glyphs (drawn as shapes, not font characters, so they render everywhere).
SYMBOLS = """<svg class="defs" width="0" height="0" aria-hidden="true" focusable="false">
<defs>
<pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse"
  patternTransform="rotate(45)">
<rect width="5" height="5" fill="#e5484d"/><line x1="0" y1="0" x2="0" y2="5" stroke="#9b1c1c"
  stroke-width="2.4"/>
</pattern>
<symbol id="g-rejected" viewBox="-8 -8 16 16"><circle r="6.5" fill="#fff" stroke="#c81e1e"
  stroke-width="2.2"/>\
<line x1="-4.4" y1="4.4" x2="4.4" y2="-4.4" stroke="#c81e1e" stroke-width="2.2"/></symbol>
<symbol id="g-flooded" viewBox="-8 -8 16 16"><path d="M0 -7 L7.5 6 L-7.5 6 Z" fill="#d9480f"/>\
<rect x="-1" y="-3" width="2" height="5" fill="#fff"/><rect x="-1" y="3" width="2" height="1.6"
  fill="#fff"/></symbol>
<symbol id="g-timeout" viewBox="-8 -8 16 16"><circle r="6.5" fill="#fff" stroke="#9a6700"
  stroke-width="2"/>\
<path d="M0 -4 V0 H3.5" fill="none" stroke="#9a6700" stroke-width="1.8"/></symbol>
<symbol id="g-dropped" viewBox="-8 -8 16 16"><path d="M0 -7 L7 0 L0 7 L-7 0 Z" fill="#8b3fd1"/>\
<path d="M-3 -3 L3 3 M3 -3 L-3 3" stroke="#fff" stroke-width="1.8"/></symbol>
<symbol id="g-missing" viewBox="-8 -8 16 16"><circle r="6.5" fill="#fff" stroke="#5b6472"
  stroke-width="1.8" \
stroke-dasharray="2.5 1.8"/><path d="M-2.3 -2.2 A2.4 2.4 0 1 1 0.6 0.4 L0 1.6" fill="none"
  stroke="#5b6472" \
stroke-width="1.6"/><circle cx="0" cy="4" r="1" fill="#5b6472"/></symbol>
<symbol id="g-cancelled" viewBox="-8 -8 16 16"><circle r="6.5" fill="#fff" stroke="#6e7781"
  stroke-width="2"/>\
<line x1="-4" y1="0" x2="4" y2="0" stroke="#6e7781" stroke-width="2.2"/></symbol>
<symbol id="g-result" viewBox="-8 -8 16 16"><circle r="6.5" fill="#1a7f37"/>\
<path d="M-3.2 0.2 L-0.8 2.8 L3.4 -2.6" fill="none" stroke="#fff" stroke-width="2"/></symbol>
<symbol id="g-error" viewBox="-8 -8 16 16"><circle r="5.5" fill="#c81e1e"/>\
<rect x="-1" y="-3.4" width="2" height="4" fill="#fff"/><rect x="-1" y="1.6" width="2"
  height="1.6" fill="#fff"/></symbol>
</defs>
</svg>"""

CSS = """
:root{--fg:#1c2128;--muted:#5b6472;--line:#d0d7de;--bg:#f6f8fa;--card:#fff;
--err:#c81e1e;--warn:#9a6700;--info:#0969da;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--fg);background:var(--bg)}
header.top{background:#1c2128;color:#fff;padding:14px 24px}
header.top h1{margin:0;font-size:20px}
header.top p{margin:4px 0 0;color:#c9d1d9}
main{padding:16px 24px 40px}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.banner{background:var(--card);border:1px solid var(--line);border-left:6px solid var(--err);
border-radius:6px;padding:10px 14px;margin-bottom:14px}
.banner.clean{border-left-color:var(--ok)}
.banner.sev-warning{border-left-color:#d4a72c}
.banner.sev-info{border-left-color:var(--info)}
.banner h2{margin:0 0 4px;font-size:16px}
.banner p{margin:2px 0}
.counts span{display:inline-block;margin-right:14px}
.note{color:var(--muted);margin:6px 0}
.skew{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:6px 10px;margin:8px 0}
section.trace{background:var(--card);border:1px solid var(--line);border-radius:8px;
padding:12px 16px;margin:16px 0}
section.trace>h2{margin:0;font-size:17px}
.meta{color:var(--muted);margin:2px 0 10px}
.grid{display:grid;grid-template-columns:minmax(0,3fr) minmax(340px,2fr);gap:18px;align-items:start}
.grid.solo{grid-template-columns:minmax(0,1fr)}
.lanes svg.swim{width:100%;height:auto;display:block;background:#fff}
svg.defs{position:absolute}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0;color:var(--muted);font-size:12.5px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.legend svg{width:14px;height:14px}
.sw{display:inline-block;width:22px;height:11px;border-radius:2px}
table.calls{border-collapse:collapse;width:100%;margin-top:10px;font-size:13px}
table.calls th,table.calls td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left}
table.calls td.num{text-align:right;font-variant-numeric:tabular-nums}
table.calls td.breach{color:var(--err);font-weight:600}
table.calls tr.bad td:first-child{border-left:4px solid var(--err)}
.out{display:inline-flex;align-items:center;gap:4px;white-space:nowrap}
.out svg{width:14px;height:14px}
aside.findings h3{margin:0 0 8px;font-size:15px}
article.finding{border:1px solid var(--line);border-left:5px solid var(--info);border-radius:6px;
padding:8px 10px;margin:0 0 10px;background:#fff;cursor:pointer}
article.finding.sev-error{border-left-color:var(--err)}
article.finding.sev-warning{border-left-color:#d4a72c}
article.finding.active{outline:3px solid #0969da;outline-offset:1px}
article.finding h4{margin:0;font-size:14px;display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.sev{font-size:11px;font-weight:700;letter-spacing:.04em;padding:1px 6px;border-radius:10px;
color:#fff;background:var(--info)}
.sev-error .sev{background:var(--err)}
.sev-warning .sev{background:var(--warn)}
.finding p,.banner p{margin:5px 0;overflow-wrap:anywhere}
.fix{background:#dafbe1;border-radius:4px;padding:4px 8px}
.finding .calls a{margin-right:6px}
a.code{font:600 11.5px ui-monospace,"DejaVu Sans Mono",monospace;padding:0 4px;border-radius:3px;
  background:#ddf4ff;text-decoration:none;white-space:nowrap}
a.code.sev-error{background:#ffebe9;color:var(--err)}
a.code.sev-warning{background:#fff8c5;color:var(--warn)}
article.finding:target{outline:3px solid #0969da}
ul.evidence{list-style:none;margin:4px 0;padding:0}
ul.evidence li{border-left:3px solid var(--line);padding:2px 8px;margin:3px
  0;overflow-wrap:anywhere}
ul.evidence .origin{color:var(--muted);display:block;font-size:12px}
ul.evidence q{quotes:none;white-space:pre-wrap;font-family:ui-monospace,"DejaVu Sans
  Mono",monospace;
font-size:12.5px}
details>summary{cursor:pointer;color:var(--muted)}
.swim text{font-size:12px;fill:var(--fg)}
.swim .lbl-src{font-weight:600}
.swim .lbl-bad{font-weight:700;fill:var(--err)}
.swim .tick{stroke:#eaeef2}
.swim .ticklbl{fill:var(--muted);font-size:10.5px}
.swim .lane-alt{fill:#f6f8fa}
.swim .lane-bad{fill:#fff0f0}
.swim .sep{stroke:#d0d7de}
.swim .span{stroke:#8c959f;stroke-width:2;stroke-dasharray:3 3}
.swim .ph{stroke:#fff;stroke-width:1}
.swim .ph.unknown{fill:none;stroke:#8c959f;stroke-dasharray:2 2}
.trace.focus [data-call]:not(.hl){opacity:.22}
.trace.focus .hl .ph,.trace.focus .hl circle{stroke:#0969da;stroke-width:2}
.trace.focus tr.hl td{background:#ddf4ff}
div.tip{position:absolute;z-index:10;background:#1f2328;color:#fff;font-size:12px;padding:4px 8px;
  border-radius:4px;white-space:pre-wrap;max-width:480px;pointer-events:none}
a{color:#0969da}
footer{color:var(--muted);padding:0 24px 24px;font-size:12px}
dl.runmeta{display:grid;grid-template-columns:max-content 1fr;gap:1px 12px;margin:6px 0 0;
  font-size:12.5px}
dl.runmeta dt{color:var(--muted)}
dl.runmeta dd{margin:0;overflow-wrap:anywhere}
pre.quote{white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0;font:12.5px ui-monospace,
  "DejaVu Sans Mono",monospace;max-height:22em;overflow:auto}
pre.quote mark,pre.quote mark span{background:#fff8c5;outline:1px solid #d4a72c}
.j-key{color:#0550ae}.j-str{color:#0a3069}.j-num{color:#953800}.j-lit{color:#8250df}
.chat .breach,.meta .breach{color:var(--err)}
details.events{margin-top:10px}
.evscroll{max-height:24em;overflow:auto;border:1px solid var(--line)}
table.events{border-collapse:collapse;width:100%;font-size:12.5px}
table.events td,table.events th{padding:2px 6px;border-bottom:1px solid var(--line);
  text-align:left;vertical-align:top}
table.events tr{cursor:pointer}
table.events tr.hl td,table.events tr.evhl td{background:#ddf4ff}
.swim .ev.evhl circle{stroke:#0969da;stroke-width:2.5;r:6}
table.tindex{border-collapse:collapse;width:100%;font-size:13px}
table.tindex td,table.tindex th{padding:2px 6px;border-bottom:1px solid var(--line);text-align:left}
table.tindex tr.sev-error td:first-child{border-left:4px solid var(--err)}
section.rules details{margin:4px 0}
pre.ruledoc{white-space:pre-wrap;font-size:12.5px;background:#f6f8fa;padding:8px;border-radius:4px}
main.wide .grid.solo{grid-template-columns:minmax(0,1fr)}
@media (max-width:1000px){.grid{grid-template-columns:minmax(0,1fr)}}
"""


def _script_hash() -> str:
    digest = hashlib.sha256(SCRIPT.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def page(title: str, body: str) -> str:
    """The whole document around *body* (already-escaped HTML); *title* is escaped here."""
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src '{_script_hash()}'; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{h(title, one_line=True)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"{SYMBOLS}\n{body}\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def glyph(outcome: str, *, size: int = 14, label: str | None = None) -> str:
    """An inline outcome glyph for HTML text (with an accessible label: *label*, else the
    outcome's)."""
    label = label or OUTCOME_STYLE.get(outcome, OUTCOME_STYLE["missing"])[0]
    ref = outcome if outcome in OUTCOME_STYLE else "missing"
    return (
        f'<svg width="{size}" height="{size}" role="img" aria-label="{h(label)}">'
        f'<use href="#g-{ref}"/></svg>'
    )


def outcome_tag(outcome: str, label: str | None = None) -> str:
    """Glyph plus the outcome word (never colour alone); *label* (the call's own account of
    its outcome) is the glyph's accessible label and the tag's tooltip."""
    tip = f' title="{h(label)}"' if label else ""
    return f'<span class="out o-{h(outcome)}"{tip}>{glyph(outcome, label=label)}{h(outcome)}</span>'
