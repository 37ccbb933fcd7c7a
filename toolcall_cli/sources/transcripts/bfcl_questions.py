"""BFCL question files, read for their declared tools and questions, by entry id.

A question line is `{"id", "question": [[message, ...], ...], "function": [...]}`; multi-turn
and agentic entries name `involved_classes` instead, whose tool docs live in
`multi_turn_func_doc/` beside the question file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.transcripts.base import json_lines

#: BFCL's API classes → their doc file under multi_turn_func_doc/.
CLASS_DOCS = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json",
    "MemoryAPI": "memory_kv.json",
    "MemoryAPI_kv": "memory_kv.json",
    "MemoryAPI_vector": "memory_vector.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}


@dataclass(frozen=True, slots=True)
class Question:
    """One question entry: where it is, its tools and its user turns."""

    origin: str
    functions: list[Any]
    turns: list[list[Any]]
    #: tool name → its parameter names in declared order (positional arguments map onto them)
    param_order: dict[str, list[str]] = field(default_factory=dict)


def is_question_file(path: Path) -> bool:
    """True when the first line of *path* is a BFCL question entry."""
    try:
        head = read_head(path, 1 << 16)
    except OSError:
        return False
    first = try_loads(head.split(b"\n", 1)[0])
    return isinstance(first, dict) and "id" in first and "question" in first


def load_questions(paths: Iterable[Path]) -> dict[str, Question]:
    """Every question entry of the BFCL question files among *paths*, by id."""
    out: dict[str, Question] = {}
    docs: dict[Path, list[Any]] = {}
    for path in paths:
        if not is_question_file(path):
            continue
        for n, obj, err in json_lines(path):
            if err is not None or not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
                continue
            funcs = obj.get("function")
            if not isinstance(funcs, list):
                funcs = _class_docs(path.parent, obj.get("involved_classes"), docs)
            turns = obj.get("question")
            out[obj["id"]] = Question(
                origin=f"{path}:{n}#",
                functions=funcs,
                turns=[t if isinstance(t, list) else [t] for t in turns]
                if isinstance(turns, list)
                else [],
                param_order=_param_order(funcs),
            )
    return out


def _class_docs(folder: Path, classes: Any, cache: dict[Path, list[Any]]) -> list[Any]:
    funcs: list[Any] = []
    for cls in classes if isinstance(classes, list) else []:
        name = CLASS_DOCS.get(str(cls))
        doc = folder / "multi_turn_func_doc" / name if name else None
        if doc is None or not doc.is_file():
            continue
        if doc not in cache:
            cache[doc] = [o for _, o, e in json_lines(doc) if e is None and isinstance(o, dict)]
        funcs.extend(cache[doc])
    return funcs


def _param_order(funcs: list[Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in funcs:
        params = f.get("parameters") if isinstance(f, dict) else None
        props = params.get("properties") if isinstance(params, dict) else None
        if isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(props, dict):
            out[f["name"]] = list(props)
    return out
