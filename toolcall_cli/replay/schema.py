"""Stage 2, `schema`: the arguments against the tool's JSON Schema, every violation reported.

Draft 2020-12 unless the schema's ``$schema`` names draft 4/6/7 (then draft 7). Format checking
is on; ``date`` is strict: ``^\\d{4}-\\d{2}-\\d{2}$`` *and* a real calendar date. The extension
``x-business-rules`` on a date field takes ``min_date`` (``"today"`` or ``YYYY-MM-DD``) and
``max_days_from_now`` (an integer); "now" is the call's event time — never the wall clock — so a
replay of an old incident gives the verdict the middleware gave then. When a call has no event
time (messages alone) the rules relative to now are not evaluated, and the reason says so.

Regex keywords run in RE2 (`model.schema_re2`): a schema's own ``pattern`` cannot hang replay;
one RE2 cannot run is the skip ``unchecked-pattern``, naming it.

Codes: ``schema-violation``, ``business-rule``; skips ``no-registry``, ``invalid-schema``,
``unchecked-pattern``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from toolcall_cli.model.jsonio import canonical, loads
from toolcall_cli.model.re2 import PatternError
from toolcall_cli.model.words import plural
from toolcall_cli.replay.base import (
    ReplayContext,
    ToolCall,
    Verdict,
    failed,
    passed,
    shorten,
    skipped,
)

if TYPE_CHECKING:
    import jsonschema
    from jsonschema import FormatChecker
    from jsonschema.protocols import Validator

# jsonschema (slow to import) loads when a call is first validated against a registered
# schema: a replay without --tools never needs it

name: Final = "schema"

DATE_RE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_SHOWN: Final = 200  # characters of one violation message


def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True  # formats only constrain strings
    if not DATE_RE.match(value):
        return False
    dt.date.fromisoformat(value)  # ValueError on 2024-02-30
    return True


def format_checker() -> FormatChecker:
    """All jsonschema formats, with the strict `date` of the middleware."""
    from jsonschema import FormatChecker

    fc = FormatChecker()
    fc.checks("date", raises=ValueError)(_is_date)
    return fc


@lru_cache(maxsize=512)
def _validator(schema_text: str) -> Validator:
    from jsonschema import Draft7Validator, Draft202012Validator

    from toolcall_cli.model.schema_re2 import re2_class, unsafe_pattern

    schema = loads(schema_text)
    draft = str(schema.get("$schema", "")) if isinstance(schema, dict) else ""
    cls = Draft7Validator if re.search(r"draft-0[467]", draft) else Draft202012Validator
    unsafe = unsafe_pattern(schema)
    if unsafe is not None:  # refused before any call is validated: RE2 cannot run it
        raise unsafe
    return re2_class(cls)(schema, format_checker=format_checker())


def check(call: ToolCall, ctx: ReplayContext) -> Verdict:
    """Validate the parsed arguments against the registered schema; list every violation."""
    tool = ctx.registry.get(call.tool or "") if ctx.registry is not None else None
    if tool is None:
        return skipped(
            name, "no-registry", "no registered schema for this tool; arguments not validated"
        )
    if not call.args_recorded:
        return skipped(name, "no-arguments", "the arguments were not recorded; not validated")
    if call.free_text:
        return skipped(name, "free-text", f"{call.free_text}: no JSON object to validate")
    import jsonschema
    import referencing.exceptions

    args = call.arguments()
    try:
        errors = sorted(_validator(canonical(tool.schema)).iter_errors(args), key=_error_key)
    except PatternError as e:
        code = "invalid-schema" if e.invalid else "unchecked-pattern"
        return skipped(name, code, f"the registered schema of {tool.name!r}: {e}"[:300])
    except (
        jsonschema.exceptions.SchemaError,
        jsonschema.exceptions.UnknownType,
        referencing.exceptions.Unresolvable,
        re.error,
        TypeError,
    ) as e:
        return skipped(
            name, "invalid-schema", f"the registered schema of {tool.name!r} is invalid: {e}"[:300]
        )
    lines = [f"{e.json_path}: {shorten(e.message, MAX_SHOWN)}" for e in errors]
    notes: list[str] = []
    rules = list(_business_violations(tool.schema, args, "$", call.now, notes))
    if lines:
        return failed(name, "schema-violation", _summary(lines), detail=_detail(lines + rules))
    if rules:
        return failed(name, "business-rule", _summary(rules), detail=_detail(rules))
    return passed(name, "; ".join(notes) if notes else "ok")


def _error_key(e: jsonschema.ValidationError) -> tuple[str, str]:
    return (e.json_path, e.message)


def _detail(lines: list[str]) -> str:
    """Every violation, one per line — only when the reason (the first) does not say it all."""
    return "\n".join(lines) if len(lines) > 1 else ""


def _summary(lines: list[str]) -> str:
    head = lines[0]
    more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
    n = len(lines)
    return f"{n} violation{'s' if n != 1 else ''}: {head}{more}"


def _business_violations(
    schema: Any, value: Any, path: str, now: Any, notes: list[str]
) -> Iterator[str]:
    """Walk properties/items; apply `x-business-rules` to the date strings found."""
    if not isinstance(schema, dict):
        return
    rules = schema.get("x-business-rules")
    if isinstance(rules, dict) and isinstance(value, str):
        yield from _apply_rules(rules, value, path, now, notes)
    props = schema.get("properties")
    if isinstance(props, dict) and isinstance(value, dict):
        for key, sub in props.items():
            if key in value:
                yield from _business_violations(sub, value[key], f"{path}.{key}", now, notes)
    items = schema.get("items")
    if isinstance(items, dict) and isinstance(value, list):
        for i, item in enumerate(value):
            yield from _business_violations(items, item, f"{path}[{i}]", now, notes)


def _apply_rules(
    rules: dict[str, Any], value: str, path: str, now: Any, notes: list[str]
) -> Iterator[str]:
    try:
        day = dt.date.fromisoformat(value[:10])
    except ValueError:
        return  # not a date: the format check reports it
    today = now.date() if now is not None else None
    min_date = rules.get("min_date")
    if isinstance(min_date, str):
        if min_date == "today" and today is None:
            notes.append(f"{path}: min_date 'today' not checked (no event time)")
        else:
            try:
                floor = today if min_date == "today" else dt.date.fromisoformat(min_date)
            except ValueError:
                floor = None
            if floor is not None and day < floor:
                yield f"{path}: {value} is before min_date {min_date} ({floor.isoformat()})"
    days = rules.get("max_days_from_now")
    if isinstance(days, int | float) and not isinstance(days, bool):
        if today is None:
            notes.append(f"{path}: max_days_from_now not checked (no event time)")
        elif day > today + dt.timedelta(days=days):
            yield (
                f"{path}: {value} is more than {plural(float(days), 'day')} after {today} "
                "(max_days_from_now)"
            )
