"""Tool results that report a failure, and whether the words they carry are ones a model can act
on (PR011; FL001 reads the outcomes to tell a retry after remediation from a loop).

A result reports failure when its event says so (`status: error`, MCP `isError: true`, an
`is_error` block, an `error.type`) or its content does: a JSON or Python-literal object with
`isError: true`, a `status` of error/failed, an `error` member, or `success`/`ok` false; or
text that starts with `Error`, `Exception`, `Traceback` or `Failed`.

**Actionable** — the model can act on a failure when the content it was given names, in
words, what went wrong with *this* call: after removing exception class names
(`KeyError`), codes and numbers, stack frames, JSON punctuation and the vocabulary every
failure shares ("error", "failed", "internal", "server", "unknown", "occurred",
"something went wrong", "please try again", "not", …), at least two words are left
(`Error: flight HAT030 not available` → flight, hat030, available). Not actionable: no
content at all, a bare code or type (`500`, `{"error": {"type": "InternalError"}}`), a
generic phrase (`An error occurred`, `Internal Server Error`, `Request failed with status
code 500`), or a stack trace whose exception says nothing more (`KeyError: 'city'`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import objects, of_kind
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import RESULT_KINDS
from toolcall_cli.model.jsonio import try_loads

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

_ERROR_TEXT = re.compile(r"\A\s*(?:error|exception|traceback|failed|failure)\b", re.I)
_FAILED_STATUS = frozenset({"error", "failed", "failure", "fail"})
_FRAME = re.compile(r'^\s*File "[^"]*", line \d+.*$|^\s{2,}\S.*$', re.M)
_CLASS_NAME = re.compile(r"\b[\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'_-]+")
#: A code, not a word: capitals with a digit or an underscore (`E_INTERNAL`, `HTTP500`).
_CODE = re.compile(r"(?=[A-Z0-9_-]*[0-9_])[A-Z][A-Z0-9_-]*")
#: Words every failure message shares: they say that it failed, not what to change.
_GENERIC_WORDS = """error errors exception exceptions failed failure fail fails internal server
    unknown
    unexpected occurred occur an the a an of to in for with while this that it its tool tools
    execution executing execute call calling request requests status code something went wrong
    please try again later was is has been not could can cannot unable sorry traceback most
    recent last call invalid input bad response returned result null none undefined true false
    service unavailable timeout message"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
#: Content that may report a failure (a cheap column-wise prefilter of `result_failure`).
_MAYBE_FAILED = r"(?i)error|fail|exception|traceback"
#: What TM001 reads (a timeout reported as a bare error is its finding, not PR011's).
_TIMEOUT = re.compile(r"time[ d-]?out|timed out|deadline exceeded", re.I)


@dataclass(frozen=True, slots=True)
class Failure:
    """How a result says it failed, and the words the model was given about it."""

    signal: str  # "status: error", "isError: true", "error.type X", "an error member", "error text"
    message: str  # the failure's own words ("" when there are none)


def result_failure(status: Any, attrs: dict[str, Any], detail: Any) -> Failure | None:
    """The failure a tool result reports, or None when it does not report one."""
    body = text(detail) or ""
    doc = _object(body)
    inner = _from_object(doc) if doc is not None else None
    if inner is not None:
        return inner
    if attrs.get("is_error") is True:
        return Failure("isError: true", body.strip())
    if text(status) == "error":
        return Failure("status: error", body.strip())
    if attrs.get("error_type"):
        return Failure(f"error.type {attrs['error_type']}", body.strip())
    if doc is None and _ERROR_TEXT.match(body):
        return Failure("error text", body.strip())
    return None


def _object(body: str) -> dict[str, Any] | None:
    s = body.strip()
    if not s.startswith("{"):
        return None
    doc = try_loads(s)
    if doc is None and "'" in s:  # a Python dict repr (BFCL's executed results)
        try:
            doc = ast.literal_eval(s)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            doc = None
    return doc if isinstance(doc, dict) else None


def _from_object(doc: dict[str, Any]) -> Failure | None:
    """The failure an object reports in its own members; its words are the object's string
    values (member names are structure, not words the model was told)."""
    if doc.get("isError") is True:
        return Failure("isError: true", _values_text(doc.get("content")))
    status = doc.get("status")
    if isinstance(status, str) and status.lower() in _FAILED_STATUS:
        return Failure(f"status: {status}", _values_text(doc))
    err = doc.get("error")
    if err not in (None, "", {}, [], False):
        return Failure("an error member", _values_text(doc))
    for key in ("success", "ok"):
        if doc.get(key) is False:
            return Failure(f"{key}: false", _values_text(doc))
    return None


def _values_text(value: Any, depth: int = 0) -> str:
    """The string values of a JSON value, in order; a string that itself holds an object (a
    JSON text or a Python repr, as ToolBench nests them) is read for its values too."""
    if depth > 8:
        return ""
    if isinstance(value, str):
        inner = _object(value) if value.lstrip().startswith("{") else None
        return _values_text(inner, depth + 1) if inner is not None else value
    if isinstance(value, dict):
        parts = [_values_text(v, depth + 1) for v in value.values()]
    elif isinstance(value, list):
        parts = [_values_text(v, depth + 1) for v in value]
    else:
        return ""
    return " ".join(p for p in parts if p)


def content_words(message: str) -> list[str]:
    """The words of a failure message that say something about this call (see the module doc)."""
    body = _FRAME.sub(" ", message)
    body = _CLASS_NAME.sub(" ", body)
    return [
        w
        for w in _WORD.findall(body)
        if w.lower().strip("'_-") not in _GENERIC and not _CODE.fullmatch(w)
    ]


def actionable(message: str) -> bool:
    """The model can act on the message: at least two words that say what went wrong."""
    return len(content_words(message)) >= 2


def is_timeout(message: str) -> bool:
    """A timeout report (TM001's finding)."""
    return bool(_TIMEOUT.search(message))


def result_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """Tool results as the model received them, with parsed attrs."""
    return of_kind(
        ctx,
        *RESULT_KINDS,
        columns=["tool_call_id", "tool", "status", "detail", "session_id", "attrs"],
    )


def may_report_failure(rows: pd.DataFrame) -> np.ndarray:
    """Mask of the result rows that can report a failure at all (column-wise, before the
    per-row reading): an error status, an error attr, or error words in the content."""
    import numpy as np

    if not len(rows):
        return np.zeros(0, dtype=bool)
    status = (rows["status"] == "error").fillna(False).to_numpy(dtype=bool)
    attrs = rows["attrs"].str.contains("is_error|error_type", regex=True)
    words = rows["detail"].str.contains(_MAYBE_FAILED, regex=True)
    return (
        status | attrs.fillna(False).to_numpy(dtype=bool) | words.fillna(False).to_numpy(dtype=bool)
    )


def call_outcomes(ctx: DiagnoseContext) -> dict[str, bool]:
    """tool_call_id → True when the call's result reported a failure, False when it came back
    without one (calls without a result are absent)."""

    def build() -> dict[str, bool]:
        rows = result_rows(ctx)
        out: dict[str, bool] = {text(c) or "": False for c in objects(rows, "tool_call_id")}
        rows = rows[may_report_failure(rows)]
        for cid, status, a, detail in zip(
            objects(rows, "tool_call_id"),
            objects(rows, "status"),
            rows["_attrs"].tolist(),
            objects(rows, "detail"),
            strict=True,
        ):
            key = text(cid)
            if key:
                out[key] = out.get(key, False) or result_failure(status, a, detail) is not None
        out.pop("", None)
        return out

    return ctx.memo("tool_failures:outcomes", build)
