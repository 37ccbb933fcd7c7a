"""tools/ is below lint, pipeline and diagnose: it imports core and errors, never its users."""

from __future__ import annotations

import ast
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "toolcall_cli" / "tools"
ALLOWED = {"toolcall_cli.model", "toolcall_cli.errors", "toolcall_cli.tools"}


def test_tools_imports_only_core() -> None:
    for path in sorted(TOOLS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                if name.startswith("toolcall_cli."):
                    assert any(name.startswith(a) for a in ALLOWED), f"{path.name} imports {name}"
