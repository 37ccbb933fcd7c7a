"""Generate man pages (toolcall.1 and one per command) from the typer app and the rule catalogue.

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
            label = p.name.upper() + ("..." if p.nargs == -1 else "")
        else:
            label = ", ".join(p.opts + p.secondary_opts)
            if not getattr(p, "is_flag", False):
                label += f" {_metavar(p)}"
        out.append(f".TP\n.B {_esc(label)}\n{_esc((p.help or '').strip())}{_esc(_default(p))}")
    return out


def _metavar(p: Any) -> str:
    ann = getattr(getattr(p, "type_descriptor", None), "annotation", None)
    for t in (ann, *getattr(ann, "__args__", ())):
        if isinstance(t, type) and issubclass(t, Enum):
            return "{" + "|".join(str(m.value) for m in t) + "}"
    if ann is not None and "Path" in str(ann):
        return "PATH"
    if ann is not None and ("int" in str(ann) or "float" in str(ann)):
        return "N"
    return "TEXT"


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
    return result


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
