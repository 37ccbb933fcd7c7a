"""Help that explains itself: human metavars, full summaries, examples, did-you-mean, formats.

Every command is a :class:`ToolcallCommand` (registered in `cli/app.py`, the app's group is a
:class:`ToolcallGroup`), which

- offers only the `--format` choices that serve the command (`render.formats_of`, from the
  renderers' own declarations): help, completion and validation all use the narrowed list;
- names values as a person would (`PATH...`, `FILE`, `DIR`, `N`, `ID`, `TIME`, `a|b|c`)
  instead of Python types (`<list[Path]>`, `<int range>`);
- lists commands with their whole one-line summary (click cuts them at 45 characters);
- ends its help with the EXAMPLES of `cli/_examples.py` (the man pages print the same);
- answers an unknown flag with the flag it most likely meant (`--trace` → `--trace-id`; click
  sorts its candidates alphabetically, so `--source` came first);
- coerces defaults and plain values without pydantic (`cli/_coerce.py`: start-up).
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from enum import Enum
from typing import Any

import typer.core

# the vendored click typer ships (there is no other click here; typer pins the API we use)
from typer._click.exceptions import NoSuchOption

from toolcall_cli.cli import _coerce
from toolcall_cli.cli._examples import EXAMPLES
from toolcall_cli.render import formats_of

#: Option name → metavar, where the type alone would say "TEXT".
_NAMED = {
    "trace_id": "ID", "session_id": "ID", "tool_call_id": "ID", "since": "TIME",
    "until": "TIME", "target": "URL", "tool": "NAME", "select": "CODES", "ignore": "CODES",
    "tz": "ZONE", "nginx_format": "FORMAT", "mcp_url": "URL", "mcp_command": "COMMAND",
    "code": "CODE", "config_file": "FILE",
}  # fmt: skip


def metavar(param: Any) -> str:
    """The human metavar of a typer parameter: from its name, else its annotation."""
    if param.metavar:
        return str(param.metavar)
    desc = getattr(param, "type_descriptor", None)
    ann = getattr(desc, "annotation", None)
    inner = getattr(ann, "__args__", ())
    nested = (a for arg in inner for a in getattr(arg, "__args__", ()))  # list[Enum] | None
    for t in (ann, *inner, *nested):
        if isinstance(t, type) and issubclass(t, Enum):
            return "|".join(str(m.value) for m in t)
    if param.name in _NAMED:
        return _NAMED[param.name]
    text = str(ann)
    if "Path" in text:
        info = getattr(desc, "parameter_info", None)
        if getattr(info, "dir_okay", True) is False:
            return "FILE"
        if getattr(info, "file_okay", True) is False:
            return "DIR"
        return "PATH"
    if "int" in text or "float" in text:
        return "N"
    return "TEXT"


def _narrow_formats(param: Any, command: str) -> None:
    """Make `--format` offer only *command*'s formats (help, completion and validation)."""
    allowed = formats_of(command)
    narrowed = Enum(f"{command.title()}Format", {f: f for f in allowed}, type=str)  # type: ignore[misc]
    param.type_descriptor = replace(param.type_descriptor, annotation=narrowed)
    param.metavar = "|".join(allowed)


def _closest(given: str, known: list[str]) -> list[str]:
    """Flags that start with what was typed first (`--trace` → `--trace-id`), then the
    closest spellings (`--sesion-id` → `--session-id`)."""
    prefixed = [k for k in known if k.startswith(given)]
    return prefixed or difflib.get_close_matches(given, known, n=2, cutoff=0.6)


def did_you_mean(given: str, known: list[str]) -> str:
    """`No such option: --trace. Did you mean --trace-id?` (or only the first sentence)."""
    close = _closest(given, known)
    head = f"No such option: {given}."
    if not close:
        return head + " See --help for the options."
    return f"{head} Did you mean {' or '.join(close[:2])}?"


def _parse_suggesting(parse: Any, params: list[Any], ctx: Any, args: list[str]) -> list[str]:
    """*parse*(ctx, args), re-raising an unknown flag with the flag most likely meant."""
    try:
        return list(parse(ctx, args))
    except NoSuchOption as e:
        known = sorted({o for p in params for o in (*p.opts, *p.secondary_opts)})
        raise NoSuchOption(
            e.option_name, message=did_you_mean(e.option_name, known), ctx=e.ctx
        ) from None


class ToolcallCommand(typer.core.TyperCommand):
    """A typer command with toolcall's help conventions (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.name == "fmt":
                _narrow_formats(param, self.name or "")
            if param.param_type_name == "argument" or not getattr(param, "is_flag", False):
                param.metavar = metavar(param)

    def get_short_help_str(self, limit: int = 45) -> str:
        """The whole first line of the help (the group lists it unabridged)."""
        return (self.help or "").strip().splitlines()[0] if self.help else ""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """Arguments by metavar alone (typer adds the Python type), then the options."""
        args, opts = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                name = str(param.metavar) + ("..." if param.nargs != 1 else "")
                args.append((name, record[1]))
            else:
                opts.append(record)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        """The command's EXAMPLES, each a command line and what it does."""
        examples = EXAMPLES.get(self.name or "", ())
        if not examples:
            return
        formatter.write_paragraph()
        formatter.write("Examples:\n")
        for line, what in examples:  # unwrapped: a command line is copied whole
            formatter.write(f"  $ {line}\n      {what}\n")

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse, answering an unknown flag with the one most likely meant."""
        _coerce.install(self.get_params(ctx))
        return _parse_suggesting(super().parse_args, self.params, ctx, args)

    def invoke(self, ctx: Any) -> Any:
        """Hand the command the format its narrowed choice stands for, as a plain name."""
        if isinstance(ctx.params.get("fmt"), Enum):
            ctx.params["fmt"] = ctx.params["fmt"].value
        return super().invoke(ctx)


class ToolcallGroup(typer.core.TyperGroup):
    """The app's group: human metavars and did-you-mean for its own (global) flags too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if not getattr(param, "is_flag", False):
                param.metavar = metavar(param)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse the global options, answering an unknown one with the closest."""
        _coerce.install(self.get_params(ctx))
        return _parse_suggesting(super().parse_args, self.params, ctx, args)
