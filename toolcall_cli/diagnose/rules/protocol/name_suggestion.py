"""PR002's did-you-mean: the known tool an unknown name most plausibly meant, or nothing.

Template tokens are stripped first (`startEngine<|channel|>commentary` → `startEngine`).
Then names are compared **token by token** (snake_case, camelCase, dots and dashes split;
case ignored): a suggestion differs from the name by at most one token — one token spelled
differently but alike (a character ratio ≥ 0.75: `wether`/`weather`), one token added or
dropped (`get_weather_info`/`get_weather`) — and the whole names are alike (ratio ≥ 0.6).
`calculate_sphere_volume` is not `calculate_park_area`: two of three tokens differ.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from toolcall_cli.diagnose.rules.protocol.template_tokens import strip_template_tokens

#: How alike two differing tokens must be to count as one token misspelt.
TOKEN_SIMILARITY = 0.75
#: How alike the whole names must be (a floor under the token rule for very short names).
NAME_SIMILARITY = 0.6

_TOKEN = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def name_tokens(name: str) -> list[str]:
    """The words of a tool name, lower case (`getWeather_v2` → get, weather, v, 2)."""
    return [t.lower() for t in _TOKEN.findall(name)]


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _one_token_apart(a: list[str], b: list[str]) -> bool:
    """The token lists differ by at most one similar replacement, insertion or deletion."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]
    edits = [op for op in ops if op[0] != "equal"]
    if not edits:
        return True
    if len(edits) > 1:
        return False
    tag, i1, i2, j1, j2 = edits[0]
    if tag in ("insert", "delete"):
        return (i2 - i1) + (j2 - j1) == 1 and max(len(a), len(b)) > 1
    return i2 - i1 == 1 and j2 - j1 == 1 and _ratio(a[i1], b[j1]) >= TOKEN_SIMILARITY


def suggest(name: str, known: Iterable[str]) -> str | None:
    """The known name *name* most plausibly meant, or None when none is close enough."""
    names = sorted(set(known))
    clean = strip_template_tokens(name)
    if clean in names:
        return clean
    lower = {n.lower(): n for n in names}
    if clean.lower() in lower:
        return lower[clean.lower()]
    want = name_tokens(clean)
    best: tuple[float, str] | None = None
    for cand in names:
        if not _one_token_apart(want, name_tokens(cand)):
            continue
        score = _ratio(clean.lower(), cand.lower())
        if score >= NAME_SIMILARITY and (best is None or score > best[0]):
            best = (score, cand)
    return best[1] if best else None
