"""The one way toolcall reads YAML: safe tags only, and aliases bounded before anything is built.

A 1 KB "billion laughs" file (anchors that alias anchors that alias anchors) expands to
billions of nodes: building them keeps any command that reads YAML busy for minutes and
exhausts memory. Before a document is composed, its event stream (linear in the text: aliases
are not expanded there) is scanned and the expanded size computed per anchor; a stream whose
aliases expand past `MAX_NODES`, that uses more than `MAX_ALIASES` aliases, or whose alias
refers to its own enclosing anchor (a cycle) is refused with `YAMLBombError`, a
`yaml.YAMLError`, so every caller's existing "not valid YAML" path reports it.
"""

from __future__ import annotations

from typing import Any, Final

import yaml

from toolcall_cli.model.words import plural

#: Nodes a stream may hold once its aliases are expanded.
MAX_NODES: Final = 1_000_000
#: Aliases a stream may use (real tool definitions and cassettes use a handful).
MAX_ALIASES: Final = 10_000

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present


class YAMLBombError(yaml.YAMLError):
    """A YAML stream whose aliases expand too far (or in a cycle)."""


def check_expansion(
    text: str, *, max_nodes: int = MAX_NODES, max_aliases: int = MAX_ALIASES
) -> None:
    """Raise `YAMLBombError` when *text*'s aliases would expand past the limits."""
    sizes: dict[str, int] = {}  # anchor -> expanded node count
    stack: list[list[Any]] = [[0, None]]  # [count, anchor] per open collection
    open_anchors: set[str] = set()
    total = 0
    aliases = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > max_aliases:
                raise YAMLBombError(f"more than {max_aliases} YAML aliases")
            anchor = str(event.anchor)
            if anchor in open_anchors:
                raise YAMLBombError(f"YAML alias *{anchor} refers to its own anchor (a cycle)")
            n = sizes.get(anchor, 1)
        elif isinstance(event, yaml.ScalarEvent):
            n = 1
            if event.anchor is not None:
                sizes[str(event.anchor)] = 1
        elif isinstance(event, yaml.CollectionStartEvent):
            opened = None if event.anchor is None else str(event.anchor)
            if opened is not None:
                open_anchors.add(opened)
            stack.append([1, opened])
            total += 1
            if total > max_nodes:
                raise YAMLBombError(
                    f"YAML aliases expand to more than {plural(max_nodes, 'node', spec=',')}"
                )
            continue
        elif isinstance(event, yaml.CollectionEndEvent):
            n, anchor = stack.pop()
            if anchor is not None:
                sizes[anchor] = n
                open_anchors.discard(anchor)
            stack[-1][0] += n  # already counted in total, node by node
            continue
        else:  # stream and document boundaries
            continue
        stack[-1][0] += n
        total += n
        if total > max_nodes:
            raise YAMLBombError(
                f"YAML aliases expand to more than {plural(max_nodes, 'node', spec=',')}"
            )


def safe_load(text: str) -> Any:
    """One YAML document, safe tags only, aliases bounded."""
    check_expansion(text)
    return yaml.load(text, Loader=_Loader)


def safe_load_all(text: str) -> list[Any]:
    """Every document of a YAML stream, safe tags only, aliases bounded."""
    check_expansion(text)
    return list(yaml.load_all(text, Loader=_Loader))


def compose_all(text: str) -> list[yaml.Node | None]:
    """The node trees of a YAML stream (for line numbers), aliases bounded."""
    check_expansion(text)
    return list(yaml.compose_all(text, Loader=_Loader))
