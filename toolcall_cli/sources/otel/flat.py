"""Indexed attribute families (`gen_ai.prompt.0.role`, `llm.input_messages.1.message.tool_calls.0
.tool_call.id`) back into nested objects, one per index, with the key that places each."""

from __future__ import annotations

from typing import Any


def indexed(attrs: dict[str, Any], prefix: str) -> list[tuple[int, dict[str, Any], str]]:
    """`(N, object, first key)` for every `prefix.N.*` group, in index order."""
    groups: dict[int, dict[str, Any]] = {}
    first: dict[int, str] = {}
    for key, val in attrs.items():
        if not key.startswith(prefix):
            continue
        head, _, tail = key[len(prefix) :].partition(".")
        if not head.isdigit() or not tail:
            continue
        n = int(head)
        first.setdefault(n, key)
        _put(groups.setdefault(n, {}), tail.split("."), val)
    return [(n, groups[n], first[n]) for n in sorted(groups)]


def _put(d: dict[str, Any], parts: list[str], val: Any) -> None:
    for p in parts[:-1]:
        nxt = d.get(p)
        if not isinstance(nxt, dict):
            nxt = d[p] = {}
        d = nxt
    d[parts[-1]] = val


def items(d: Any) -> list[Any]:
    """The values of an index-keyed object (`{"0": …, "1": …}`) in index order."""
    if isinstance(d, list):
        return d
    if not isinstance(d, dict):
        return []
    keys = sorted((k for k in d if k.isdigit()), key=int)
    return [d[k] for k in keys]
