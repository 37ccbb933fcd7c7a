"""render.VIEWS (the lazy view table) names every view module and every report type it draws;
the renderers' declarations match the handlers the views register."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from toolcall_cli.model.summary import IngestReport
from toolcall_cli.render import _HANDLERS, RENDERERS, VIEWS, formats_of, load_views, renders

RENDER = Path(__file__).resolve().parents[2] / "toolcall_cli" / "render"


def test_every_view_module_is_in_the_table() -> None:
    listed = {name for views in VIEWS.values() for name in views.modules}
    assert listed == {p.stem for p in RENDER.glob("*_view.py")}


def test_every_handler_is_reachable_from_its_report_type() -> None:
    load_views()
    assert _HANDLERS
    for (fmt, report_type), handler in _HANDLERS.items():
        module = handler.__module__.rsplit(".", 1)[1]
        assert module in VIEWS[report_type.__name__].modules, (fmt, report_type.__name__)


@pytest.mark.parametrize("report_type", sorted(VIEWS))
def test_each_command_draws_exactly_the_formats_that_declare_it(report_type: str) -> None:
    load_views()
    drawn = {fmt for fmt, t in _HANDLERS if t.__name__ == report_type}
    assert drawn == set(formats_of(VIEWS[report_type].command))


def test_every_renderer_serves_a_command_that_exists() -> None:
    from toolcall_cli.cli.app import COMMANDS

    assert {v.command for v in VIEWS.values()} == set(COMMANDS)
    for name, renderer in RENDERERS.items():
        assert renderer.commands, name
        for command in renderer.commands:
            assert command.split(" ", 1)[0] in COMMANDS, (name, command)


def test_a_handler_for_an_undeclared_format_is_refused() -> None:
    assert "ingest" not in RENDERERS.get("csv").commands
    with pytest.raises(ValueError, match="format csv does not declare the command ingest"):
        renders("csv", IngestReport)


def test_a_format_the_command_is_not_served_by_is_a_usage_error() -> None:
    from toolcall_cli.errors import UsageError
    from toolcall_cli.render import RenderOptions, render
    from toolcall_cli.replay import ReplayReport

    with pytest.raises(UsageError) as refused:
        render("sarif", ReplayReport("t", None, ()), io.StringIO(), RenderOptions())
    assert refused.value.message == "replay does not support --format sarif"
    assert refused.value.hint == "choose one of: table, json, markdown"
