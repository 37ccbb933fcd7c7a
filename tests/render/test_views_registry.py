"""render.VIEWS (the lazy view table) names every view module and every report type it draws."""

from __future__ import annotations

from pathlib import Path

from toolcall_cli.render import _HANDLERS, VIEWS, load_views

RENDER = Path(__file__).resolve().parents[2] / "toolcall_cli" / "render"


def test_every_view_module_is_in_the_table() -> None:
    listed = {name for views in VIEWS.values() for name in views}
    assert listed == {p.stem for p in RENDER.glob("*_view.py")}


def test_every_handler_is_reachable_from_its_report_type() -> None:
    load_views()
    assert _HANDLERS
    for (fmt, report_type), handler in _HANDLERS.items():
        module = handler.__module__.rsplit(".", 1)[1]
        assert module in VIEWS.get(report_type.__name__, ()), (fmt, report_type.__name__)
