"""rich helpers for table views: a console bound to the given stream, safe cells."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.text import Text

from toolcall_cli.render import RenderOptions
from toolcall_cli.render.safe import clean


def console(out: TextIO, opts: RenderOptions) -> Console:
    """A Console writing to *out*; built per render so NO_COLOR/--color are honoured."""
    return Console(
        file=out,
        width=opts.width or 100,
        color_system="auto" if opts.color else None,
        force_terminal=opts.color,
        no_color=not opts.color,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=False,
    )


def cell(value: object, *, style: str = "", limit: int | None = 200, one_line: bool = True) -> Text:
    """Untrusted text as a rich Text: controls escaped, markup never interpreted."""
    if value is None or (isinstance(value, float) and value != value):
        return Text("")
    return Text(clean(value, keep_newlines=not one_line, limit=limit), style=style)


SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
