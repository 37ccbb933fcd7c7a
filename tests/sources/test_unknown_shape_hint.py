"""The exit-3 hint of a JSON file nobody reads names what it is, on the shared corpus's tool
definitions: a saved tools/list answer or an MCP Tool is no BFCL result file, though it shares
`id` and `result` with one."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_cli.errors import UnknownSourceError
from toolcall_cli.sources import detect

MCP = "tool_schemas/mcp"


def _hint(path: Path) -> str:
    with pytest.raises(UnknownSourceError) as info:
        detect(path)
    return info.value.hint or ""


@pytest.mark.corpus
def test_tool_definitions_are_named_as_such(corpus: Path) -> None:
    files = sorted((corpus / MCP).rglob("*.tools_list.response.json"))
    files += sorted((corpus / MCP / "github-mcp-server_toolsnaps").glob("*.snap"))
    files += sorted((corpus / MCP / "mcp-spec" / "examples").glob("Tool__*.json"))
    assert len(files) > 100
    for path in files:
        hint = _hint(path)
        assert "BFCL" not in hint, (path.name, hint)
        assert "`toolcall lint`" in hint and "--tools" in hint, (path.name, hint)


@pytest.mark.corpus
def test_bfcl_question_file_keeps_its_hint(corpus: Path) -> None:
    """The negative: a shape no decisive key names is still ranked by the keys it shares."""
    hint = _hint(corpus / "bfcl/gorilla_v4_data/BFCL_v4_irrelevance.json")
    assert "closest: BFCL question file (not a conversation" in hint
    assert "toolcall lint" not in hint
