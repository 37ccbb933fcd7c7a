"""\
What it does
    Reports pairs of tool names in one registry that are equal ignoring case, or one edit
    (insertion, deletion or substitution) apart.

Why it matters
    Models confuse near names; the call goes to the wrong tool or to a name that does not exist
    (PR002/PR003 at run time).

Example
    ``get_user`` and ``get_users``; ``SendEmail`` and ``sendEmail``.

Fix
    Merge the tools, or rename one so the difference is obvious (``get_user_by_id``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from toolcall_cli.lint.base import LintContext, finding, registry_groups, registry_rule
from toolcall_cli.lint.labels import tool_place
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC004",
    "similar-tool-names",
    Severity.warning,
    "tool names equal ignoring case or one edit apart",
    doc=__doc__,
)


def one_edit(a: str, b: str) -> bool:
    """True when *a* and *b* differ by exactly one insertion, deletion or substitution."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def near_pairs(names: list[str]) -> set[tuple[str, str]]:
    """Pairs (earlier, later) of distinct names equal ignoring case or one edit apart.

    Candidates come from shared single-deletion variants (symmetric delete), so this is
    linear in the registry size rather than quadratic; `one_edit` confirms each candidate.
    """
    order = {n: i for i, n in enumerate(names)}
    buckets: dict[str, list[str]] = {}
    for n in names:
        keys = {n, n.casefold()} | {n[:i] + n[i + 1 :] for i in range(len(n))}
        for k in keys:
            buckets.setdefault(k, []).append(n)
    pairs: set[tuple[str, str]] = set()
    for members in buckets.values():
        if len(members) < 2 or len(members) > 200:
            continue
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if a != b and (a.casefold() == b.casefold() or one_edit(a, b)):
                    pairs.add((a, b) if order[a] < order[b] else (b, a))
    return pairs


@registry_rule(RULE)
def check(tools: Sequence[ToolDef], ctx: LintContext) -> Iterator[Finding]:
    """Near names within each registry."""
    for group in registry_groups(tools).values():
        by_name: dict[str, ToolDef] = {}
        for t in group:
            by_name.setdefault(t.name, t)
        for a, b in sorted(
            near_pairs(list(by_name)), key=lambda p: (by_name[p[1]].file, by_name[p[1]].line, p)
        ):
            how = "equal ignoring case" if a.casefold() == b.casefold() else "one edit apart"
            later = by_name[b]
            yield finding(
                RULE,
                later,
                later.pointer,
                f'tool "{b}" and "{a}" ({tool_place(by_name[a])}) are {how}',
                fix="merge the tools or rename one so the difference is obvious",
            )
