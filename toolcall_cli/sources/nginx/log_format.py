"""Compile an nginx `log_format` string into ONE regex with a named group per `$variable`.

Accepted inputs: the bare format (`$remote_addr - $remote_user [$time_local] "$request" ...`),
or a whole directive as it stands in nginx.conf, possibly spread over several quoted strings:
`log_format main escape=json '{"time":"$time_iso8601",' '"trace":"$http_x_trace_id"}';`.
A template that is a JSON object (or `escape=json`) is returned as a JSON format: lines are
parsed as JSON and the template's keys are mapped to the variables they hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolcall_cli.errors import UsageError

_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_JSON_PAIR = re.compile(r'"([^"]+)"\s*:\s*"?\$\{?(\w+)\}?')

#: The predefined nginx `combined` format.
COMBINED = (
    '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
    '"$http_referer" "$http_user_agent"'
)

#: Patterns for variables whose shape is known (anything else: up to the next literal character).
_KNOWN: dict[str, str] = {
    "time_local": r"\d{1,2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}",
    "time_iso8601": r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
    "msec": r"\d+(?:\.\d+)?",
    "status": r"\d{3}|-",
    "body_bytes_sent": r"\d+|-",
    "bytes_sent": r"\d+|-",
    "request_length": r"\d+|-",
    "request_time": r"\d+(?:\.\d+)?|-",
}


@dataclass(frozen=True, slots=True)
class CompiledFormat:
    """A compiled log_format: a regex (RE2- and Python-compatible) or a JSON key mapping."""

    source: str
    regex: str | None
    groups: dict[str, str] = field(default_factory=dict)  # regex group name → variable
    json_keys: dict[str, str] = field(default_factory=dict)  # JSON key → variable (JSON formats)

    @property
    def is_json(self) -> bool:
        """True when lines are JSON objects (escape=json formats)."""
        return self.regex is None


def format_text(spec: str) -> tuple[str, bool]:
    """The format template inside *spec* and whether it declared `escape=json`."""
    s = spec.strip()
    if not s.startswith("log_format"):
        return s, False
    head = s[len("log_format") :]
    json_escape = bool(re.search(r"\sescape=json\b", head))
    pieces = [a if a else b for a, b in _QUOTED.findall(head)]
    if not pieces:
        # unquoted template: `log_format name $remote_addr ...;`
        body = re.sub(r"^\s*\S+\s*(?:escape=\S+\s*)?", "", head).rstrip().rstrip(";")
        return body, json_escape
    return "".join(pieces), json_escape


def compile_format(spec: str) -> CompiledFormat:
    """Compile *spec* (a log_format template or directive); a UsageError when it has no variable."""
    text, json_escape = format_text(spec)
    if not _VAR.search(text):
        raise UsageError(
            f"nginx log_format has no $variables: {text[:80]!r}",
            hint="pass the log_format from nginx.conf, e.g. '$remote_addr [$time_local] $status'",
        )
    if json_escape or text.lstrip().startswith("{"):
        keys = {k: v for k, v in _JSON_PAIR.findall(text)}
        return CompiledFormat(source=text, regex=None, json_keys=keys)
    parts: list[str] = ["^"]
    groups: dict[str, str] = {}
    pos = 0
    matches = list(_VAR.finditer(text))
    for i, m in enumerate(matches):
        parts.append(_literal(text[pos : m.start()]))
        var = m.group(1) or m.group(2)
        nxt_lit = (
            text[m.end() : matches[i + 1].start()] if i + 1 < len(matches) else text[m.end() :]
        )
        pattern = _pattern_for(var, nxt_lit, last=i + 1 == len(matches))
        name = _group_name(var, groups)
        groups[name] = var
        parts.append(f"(?P<{name}>{pattern})")
        pos = m.end()
    parts.append(_literal(text[pos:]))
    parts.append(r"[ \t]*$")
    regex = "".join(parts)
    try:
        re.compile(regex)
    except re.error as e:  # pragma: no cover - the builder only emits valid syntax
        raise UsageError(f"cannot compile nginx log_format: {e}") from None
    return CompiledFormat(source=text, regex=regex, groups=groups)


def _literal(s: str) -> str:
    # Runs of blanks in a format are single spaces in the log only by convention; accept any run.
    out = []
    for chunk in re.split(r"(\s+)", s):
        if not chunk:
            continue
        out.append(r"\s+" if chunk.isspace() else re.escape(chunk))
    return "".join(out)


def _pattern_for(var: str, following: str, *, last: bool) -> str:
    if var in _KNOWN:
        return _KNOWN[var]
    if not following:
        return ".*" if last else r"\S*"
    stop = following[0]
    if stop.isspace():
        return r"[^\s]*"
    return f"[^{re.escape(stop)}]*"


def _group_name(var: str, taken: dict[str, str]) -> str:
    base = "v_" + re.sub(r"\W", "_", var)
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name
