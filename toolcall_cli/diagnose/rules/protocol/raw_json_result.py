"""\
What it does
  Notes tool results that are a raw JSON object or array larger than 2 KB or nested five or
  more levels deep, once per session and tool, with the largest size.

Why it matters
  Raw payloads spend the context window on structure and push other facts out of it; large
  ones end up truncated (TR002) or rolled out (TR004).

Example
  A 14 KB `search_flights` result with every fare class of every flight.

Fix
  Return a summary plus a handle: the count, the fields the model needs, and a cursor or id
  to fetch the rest with another tool.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.diagnose.kit.call_label import tools_by_call
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects, with_attrs
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.model.jsonscan import looks_json
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import plural

RULE = rule(
    "PR006",
    "raw-json-result",
    Severity.info,
    "raw JSON injected as tool content instead of a summary",
    doc=__doc__,
)

#: Raw JSON results above this size (characters) or nesting are worth a summary.
RAW_JSON_CHARS = 2048

RAW_JSON_DEPTH = 5
#: Characters of a result's opening that locate it in a quote without a `content` member.
_NEEDLE = 40


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR006: large or deep raw JSON results, one finding per (session, tool)."""
    ev = with_attrs(ctx)
    res = ev[(ev["kind"] == "tool_result") & ev["detail"].notna()]
    hits: dict[tuple[str, str], list[tuple[Any, int, int]]] = {}
    starts: dict[Any, str] = {}  # the opening of each raw result: found where no `content` is
    names = tools_by_call(ev)
    ids = objects(res, "tool_call_id")
    id_of = dict(zip(res.index.tolist(), ids, strict=True))
    for idx, detail, sid, tool, cid in zip(
        res.index.tolist(),
        res["detail"].tolist(),
        objects(res, "session_id"),
        objects(res, "tool"),
        ids,
        strict=True,
    ):
        if not looks_json(detail):
            continue
        if len(detail) <= RAW_JSON_CHARS and detail.count("{") + detail.count("[") < RAW_JSON_DEPTH:
            continue  # too small and too flat to matter: skip the parse
        parsed = try_loads(detail)
        if not isinstance(parsed, dict | list):
            continue
        d = depth(parsed)
        if len(detail) <= RAW_JSON_CHARS and d < RAW_JSON_DEPTH:
            continue
        name = text(tool) or names.get(text(cid) or "", "")
        key = (text(sid) or "", name)
        hits.setdefault(key, []).append((idx, len(detail), d))
        starts[idx] = detail.lstrip()[:_NEEDLE]
    for (sid, tool), items in sorted(hits.items()):
        largest = max(items, key=lambda t: t[1])
        rows = [largest[0], *[i for i, _, _ in items if i != largest[0]][:2]]
        yield make(
            RULE,
            ctx,
            f"{plural(len(items), 'result')}{f' of {tool}' if tool else ''} "
            f"{'is' if len(items) == 1 else 'are'} raw JSON (largest "
            f"{plural(largest[1], 'character')}, {plural(largest[2], 'level')} deep) instead "
            "of a summary",
            rows,
            call_ids=[text(id_of[i]) or None for i in rows],
            session_id=sid or None,
            tool=tool or None,
            extra={"results": len(items), "largest_chars": largest[1]},
            # the `content` member; in a transcript that holds the result as text (tau-bench's
            # `messages_display`), where the result starts
            aims={i: Aim(key="content", needle=starts[i]) for i in rows},
        )


def depth(obj: Any) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, {} or [] is 1)."""
    if isinstance(obj, dict):
        return 1 + max((depth(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((depth(v) for v in obj), default=0)
    return 0
