"""How lint messages name a definition's place and a subschema inside it."""

from __future__ import annotations

from toolcall_cli.lint.walk import Node
from toolcall_cli.tools.loaders import ToolDef


def tool_place(tool: ToolDef) -> str:
    """`file:line` of the tool's definition."""
    return f"{tool.file}:{tool.line}"


def node_label(tool: ToolDef, node: Node) -> str:
    """`"name"` for a named property, else its pointer below `parameters` (or `parameters`)."""
    return f'"{node.name or node.pointer[len(tool.schema_pointer) :] or "parameters"}"'
