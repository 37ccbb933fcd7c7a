"""Generate man pages from the typer app, the rule catalogue and the config keys.

toolcall.1 and one page per command come from the typer app and the rule catalogue;
toolcall.toml.5 from `model.config_keys.KEYS`, the one place config keys are defined.

`python -m toolcall_cli.cli._manpage DIR` writes them; tests regenerate in memory and diff.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Any

import typer.main

from toolcall_cli import __version__
from toolcall_cli.catalogue import load_all
from toolcall_cli.cli._help import metavar
from toolcall_cli.errors import ExitCode

DATE = "2026"
EXIT_MEANINGS = {
    ExitCode.OK: "ran; no findings at or above --fail-on",
    ExitCode.FINDINGS: "ran; at least one finding at or above --fail-on",
    ExitCode.USAGE: "bad flags, arguments or configuration",
    ExitCode.INPUT: "input unreadable, undetectable, or malformed beyond recovery",
    ExitCode.ENVIRONMENT: "a missing external dependency (tshark)",
    ExitCode.INTERNAL: "a bug in toolcall",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}


def _esc(text: str) -> str:
    out = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in out.splitlines():
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def _default(p: Any) -> str:
    d = p.default
    if d is None or d is False or p.param_type_name == "argument":
        return ""
    if isinstance(d, Enum):
        d = d.value
    if isinstance(d, list | tuple):
        return ""
    return f" (default: {d})"


def _params(cmd: Any) -> list[str]:
    out = []
    for p in cmd.params:
        if getattr(p, "hidden", False) or p.name == "help":
            continue
        if p.param_type_name == "argument":
            label = metavar(p) + ("..." if p.nargs == -1 else "")
        else:
            label = ", ".join(p.opts + p.secondary_opts)
            if not getattr(p, "is_flag", False):
                shown = metavar(p)
                label += f" {{{shown}}}" if "|" in shown else f" {shown}"  # {a|b}: roff usage
        out.append(f".TP\n.B {_esc(label)}\n{_esc((p.help or '').strip())}{_esc(_default(p))}")
    return out


def _header(name: str, summary: str) -> str:
    title = f'.TH {name.upper()} 1 "{DATE}" "toolcall {__version__}" "toolcall manual"\n'
    return f"{title}.SH NAME\n{_esc(name)} \\- {_esc(summary)}\n"


def pages() -> dict[str, str]:
    """File name → roff text for every page."""
    from toolcall_cli.cli.app import app

    group = typer.main.get_command(app)
    result: dict[str, str] = {}
    sub = getattr(group, "commands", {})
    main = [_header("toolcall", "diagnose and replay LLM tool-call round trips")]
    main.append(
        ".SH SYNOPSIS\n.B toolcall\n[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...\n"
    )
    main.append(".SH DESCRIPTION\n" + _esc((group.help or "").strip()) + "\n")
    main.append(".SH GLOBAL OPTIONS\n" + "\n".join(_params(group)) + "\n")
    main.append(".SH COMMANDS")
    for name, cmd in sub.items():
        main.append(
            f".TP\n.BR toolcall\\-{_esc(name)} (1)\n{_esc((cmd.help or '').splitlines()[0])}"
        )
        page = [_header(f"toolcall-{name}", (cmd.help or "").splitlines()[0].rstrip("."))]
        page.append(f".SH SYNOPSIS\n.B toolcall {_esc(name)}\n[\\fIOPTIONS\\fR]\n")
        page.append(".SH DESCRIPTION\n" + _esc((cmd.help or "").strip()) + "\n")
        page.append(".SH OPTIONS\n" + "\n".join(_params(cmd)) + "\n")
        page.append(_examples_section(name))
        page.append(_exit_section())
        page.append(".SH SEE ALSO\n.BR toolcall (1)\n")
        result[f"toolcall-{name}.1"] = "\n".join(page)
    main.append("")
    main.append(_exit_section())
    main.append(".SH RULES")
    for r in load_all():
        others = "".join(f"\n{_esc(f'{s.value} when {why}')}" for s, why in r.other_severities)
        main.append(
            f".SS {r.code} {_esc(r.name)} ({r.severity.value})\n{_esc(r.summary)}{others}\n"
            f".PP\n.nf\n{_esc(r.doc)}\n.fi"
        )
    main.append("")
    result["toolcall.1"] = "\n".join(main)
    result["toolcall.toml.5"] = _config_page()
    return result


def _config_page() -> str:
    """toolcall.toml(5): every key with its kind, default and meaning."""
    from toolcall_cli.model.config import DEFAULT
    from toolcall_cli.model.config_keys import ARRAY_SECTIONS, KEYS
    from toolcall_cli.model.config_show import toml_value

    out = [
        f'.TH TOOLCALL.TOML 5 "{DATE}" "toolcall {__version__}" "toolcall manual"',
        ".SH NAME",
        "toolcall.toml \\- configuration of toolcall",
        ".SH SYNOPSIS",
        ".B toolcall.toml",
        ", or the",
        ".B [tool.toolcall]",
        "table of",
        ".B pyproject.toml",
        ".SH DESCRIPTION",
        _esc(
            "toolcall reads the file named with the global --config FILE, else the first "
            "toolcall.toml (or pyproject.toml with a [tool.toolcall] table) found in the working "
            "directory or a parent. A file found by discovery may add redaction but never turn "
            "it off. Unknown sections and keys are usage errors (exit 2) with a did-you-mean. "
            "Every key is optional; `toolcall config init` writes a commented file with every "
            "key and its default, and `toolcall config show` prints the effective values and "
            "where each came from (default, discovered file, --config, environment, flag)."
        ),
    ]
    section = None
    for key in KEYS:
        if key.section != section:
            section = key.section
            title = (
                "TOP-LEVEL KEYS"
                if not section
                else (f"[[{section}]]" if section in ARRAY_SECTIONS else f"[{section}]")
            )
            out.append(f".SH {_esc(title)}")
        default = key.value(DEFAULT)
        shown = toml_value(default) if default not in (None, [], {}, "") else "empty"
        example = f" Example: {key.name} = {key.example}." if key.example else ""
        out.append(
            f".TP\n.B {_esc(key.name)}\n{_esc(key.kind)}; default {_esc(shown)}.\n"
            f"{_esc(key.meaning[0].upper() + key.meaning[1:])}.{_esc(example)}"
        )
    out.append(".SH ENVIRONMENT")
    out.append(
        ".TP\n.B TOOLCALL_MAX_DECOMPRESSED\n"
        + _esc("overrides limits.max_decompressed (bytes, K/M/G suffixes).")
    )
    out.append(".TP\n.B TOOLCALL_FORMAT\n" + _esc("the default --format of every command."))
    out.append(".TP\n.B NO_COLOR\n" + _esc("no colour, as --color never."))
    out.append(".SH SEE ALSO\n.BR toolcall (1),\n.BR toolcall\\-config (1)\n")
    return "\n".join(out)


def _examples_section(command: str) -> str:
    """EXAMPLES: the same command lines as --help (cli/_examples.py)."""
    from toolcall_cli.cli._examples import EXAMPLES

    rows = "\n".join(
        f".PP\n.nf\n$ {_esc(line)}\n.fi\n.RS\n{_esc(what)}\n.RE"
        for line, what in EXAMPLES.get(command, ())
    )
    return f".SH EXAMPLES\n{rows}\n" if rows else ""


def _exit_section() -> str:
    rows = "\n".join(f".TP\n.B {int(c)}\n{_esc(m)}" for c, m in EXIT_MEANINGS.items())
    return f".SH EXIT STATUS\n{rows}\n"


def write(directory: Path) -> list[Path]:
    """Write every page into *directory*."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write(Path(sys.argv[1] if len(sys.argv) > 1 else "man")):
        print(p)
