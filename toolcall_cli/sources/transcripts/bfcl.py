"""BFCL result files (v1–v4) → one session per test entry, joined with its question entry.

A result line is `{"id", "result", ...}`. `result` is, by harness mode and version: a list
of `{name: arguments}` objects (arguments an object or a JSON string), that list as a JSON
string, raw text in prompt mode (`[get_weather(city="Paris")]`, Python call syntax), an
error text, or for multi-turn entries a list of turns, each a list of steps, each one of
the above. Latency and input token counts stay out of the events; a step's output token
count is kept on its calls (`output_tokens`).

A multi-turn result's `inference_log` (what the BFCL harness logged while it ran the entry)
holds, per turn, a `{"begin_of_turn_query", "step_0", "step_1", …}` object — each step the
model's response (`role: assistant`), the harness's decoding (`role: handler_log`) and one
`role: tool` entry per executed call, in call order — between `state_info` lists. Those
executed results become `tool_result` events right after their step's calls; the calls and
results then share an id made from the entry, turn, step and call index
(`multi_turn_base_0#t1s0c2`), since BFCL records none.

Given the BFCL question files with `--tools` (ParseOptions.tools), each entry gets its
question's `function` list as declared tools (a `system` event with attrs `tools`, as a
chat request's `tools` would give) and its `question` turns as `user` messages; multi-turn
entries take their tools from `multi_turn_func_doc/` beside the question file. BFCL ids are
the join key, so one question file serves many result files.

An eval record ends where the model answered: without an `inference_log` the harness
executed the calls outside the file. Every row carries attrs `eval: true`, and each call
whose result is not in the file `ends_on_call: true`, so that OR001 does not report those
calls as lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.sources._shared.pycalls import parse_python_calls
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import openai
from toolcall_cli.sources.messages.rows import Conv, Sink, as_id, safe_dump
from toolcall_cli.sources.transcripts.base import (
    Head,
    TranscriptFormat,
    records,
    share,
    tag_rows,
)
from toolcall_cli.sources.transcripts.bfcl_questions import Question, load_questions
from toolcall_cli.sources.transcripts.chunks import ChunkSink

EVAL = {"eval": True}


def sniff(head: Head) -> int:
    """97 when most entries are `{id, result}` objects whose result is a list or text."""
    objs = head.objects
    if not objs and isinstance(head.document, list):
        objs = [x for x in head.document if isinstance(x, dict)]
    return (
        97
        if share(objs, lambda o: "id" in o and isinstance(o.get("result"), list | str)) >= 0.5
        else 0
    )


def parse(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """One session per result entry, as one event table."""
    return assemble_chunks(parse_chunks(path, opts))


def parse_chunks(path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
    """One session per result entry, handed on in chunks."""
    questions = load_questions(opts.tools)
    out = ChunkSink(path, tz=opts.tz)
    sink = out.sink
    for origin, obj, err in records(path, opts):
        if err is not None or not isinstance(obj, dict) or "result" not in obj:
            sink.unparsed(None, origin, obj, err or "not a BFCL result entry ({id, result})")
            continue
        sid = as_id(obj.get("id")) or origin
        conv = sink.conv(session_id=sid)
        start = len(sink.rows)
        _emit_entry(sink, conv, obj, f"{origin}#", questions.get(sid))
        tag_rows(sink, start, EVAL)
        yield from out.ready()
    yield from out.finish()


def _turns(entry: dict[str, Any]) -> tuple[list[list[Any]], bool]:
    """The result as turns of steps, and whether the entry is multi-turn (a single-turn
    result is one turn of one step)."""
    result = entry["result"]
    multi = isinstance(result, list) and (
        str(entry.get("id", "")).startswith("multi_turn")
        or (bool(result) and all(isinstance(t, list) for t in result))
    )
    if multi:
        return [t if isinstance(t, list) else [t] for t in result], True
    return [[result]], False


def _emit_entry(
    sink: Sink, conv: Conv, entry: dict[str, Any], origin: str, q: Question | None
) -> None:
    if q is not None:
        openai.emit_tools(sink, conv, q.functions, q.origin)
    turns, multi = _turns(entry)
    log = executed_results(entry) if multi else {}
    tokens = entry.get("output_token_count")
    for t, steps in enumerate(turns):
        if q is not None and t < len(q.turns):
            for m, msg in enumerate(q.turns[t]):
                openai.emit_message(sink, conv, msg, f"{q.origin}/question/{t}/{m}", m)
        for s, step in enumerate(steps):
            where = f"{origin}/result/{t}/{s}" if multi else f"{origin}/result"
            ran = log.get((t, s))
            step_log = (
                Executed(f"{origin}/inference_log/{ran.where}", ran.results, f"{conv.session_id}#")
                if ran is not None
                else None
            )
            _emit_step(
                sink,
                conv,
                step,
                where,
                q,
                turn=t,
                step=s,
                ran=step_log,
                tokens=_at(tokens, t, s) if multi else tokens,
            )
    unanswered = q.turns[len(turns) :] if q is not None else []
    for t, msgs in enumerate(unanswered, start=len(turns)):  # turns the model never answered
        for m, msg in enumerate(msgs):
            openai.emit_message(sink, conv, msg, f"{q.origin if q else origin}/question/{t}/{m}", m)


def _emit_step(
    sink: Sink,
    conv: Conv,
    value: Any,
    origin: str,
    q: Question | None,
    *,
    turn: int,
    step: int,
    ran: Executed | None = None,
    tokens: Any = None,
) -> None:
    """One model answer: calls, text, or an error the harness recorded; then the results the
    harness got running the calls, when its log has them."""
    calls, how = _calls_of(value, q)
    conv.turn += 1
    base: dict[str, Any] = {"turn": conv.turn, "bfcl_turn": turn, "bfcl_step": step}
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        base["output_tokens"] = tokens
    if calls is None:
        text = value if isinstance(value, str) else safe_dump(value)
        if isinstance(value, str) and value.startswith(("Error during inference", "Error:")):
            sink.add(conv, "system", origin, status="error", detail=text, attrs={**base})
        else:
            sink.add(conv, "assistant_text", origin, detail=text, attrs={**base, "protocol": how})
        conv.close_block()
        return
    names: list[str | None] = []
    results = ran.results if ran is not None else []
    ids: list[str | None] = []
    for k, (name, args, extra) in enumerate(calls):
        cid = f"{ran.id_prefix}t{turn}s{step}c{k}" if ran is not None and k < len(results) else None
        sink.add(
            conv,
            "tool_call",
            origin,
            tool=name,
            args=args,
            tool_call_id=cid,
            attrs={**base, **extra, "call_index": k, "protocol": how, "ends_on_call": cid is None},
        )
        names.append(name)
        ids.append(cid)
    if not calls:
        sink.add(conv, "assistant_text", origin, detail="", attrs={**base, "empty": True})
    conv.open_block(ids, names) if names else conv.close_block()
    for k, (where, body) in enumerate(results[: len(calls)]):
        sink.add(
            conv,
            "tool_result",
            f"{ran.where}/{where}" if ran is not None else origin,
            tool=names[k],
            tool_call_id=ids[k],
            detail=body,
            size=len(body),
            attrs={**base, "follows_call": True, "protocol": "bfcl-execution"},
        )


Call = tuple[str | None, str | None, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Executed:
    """The results the harness logged for one step: (pointer, text) per executed call."""

    where: str
    results: list[tuple[int, str]]
    id_prefix: str = ""


def executed_results(entry: dict[str, Any]) -> dict[tuple[int, int], Executed]:
    """(turn, step) → the `role: tool` results of that step in `inference_log`."""
    log = entry.get("inference_log")
    if not isinstance(log, list):
        return {}
    out: dict[tuple[int, int], Executed] = {}
    turn = -1
    for i, item in enumerate(log):
        if not isinstance(item, dict) or "begin_of_turn_query" not in item:
            continue  # state_info lists between the turns
        turn += 1
        for key, entries in item.items():
            step = _step_number(key)
            if step is None or not isinstance(entries, list):
                continue
            got = [
                (
                    j,
                    e["content"]
                    if isinstance(e.get("content"), str)
                    else safe_dump(e.get("content")) or "",
                )
                for j, e in enumerate(entries)
                if isinstance(e, dict) and e.get("role") == "tool"
            ]
            if got:
                out[(turn, step)] = Executed(f"{i}/{key}", got)
    return out


def _step_number(key: str) -> int | None:
    head, _, num = key.partition("_")
    return int(num) if head == "step" and num.isdigit() else None


def _at(table: Any, t: int, s: int) -> Any:
    """`table[t][s]` of a per-turn, per-step list (None when absent)."""
    row = table[t] if isinstance(table, list) and t < len(table) else None
    return row[s] if isinstance(row, list) and s < len(row) else None


def _calls_of(value: Any, q: Question | None) -> tuple[list[Call] | None, str]:
    """The calls in one answer, or None when it is text; and how they were written."""
    if isinstance(value, str):
        doc = try_loads(value)
        if isinstance(doc, list | dict):
            calls, _ = _calls_of(doc, q)
            return calls, "bfcl-json-text"
        found = parse_python_calls(value, q.param_order if q else {})
        return (found, "bfcl-python") if found is not None else (None, "text")
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None, "text"
    out: list[Call] = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and len(item) <= 3:
            args = item.get("arguments", item.get("parameters"))
            out.append((item["name"], _args(args), {}))
        elif isinstance(item, dict) and len(item) == 1:
            name, args = next(iter(item.items()))
            out.append((str(name), _args(args), {}))
        elif isinstance(item, str):
            sub, _ = _calls_of(item, q)
            out.extend(sub or [(None, item, {"not_a_call": True})])
        else:
            out.append((None, safe_dump(item), {"not_a_call": True}))
    return out, "bfcl"


def _args(value: Any) -> str | None:
    """Arguments as text: a JSON string verbatim, an object as the harness decoded it."""
    return value if isinstance(value, str) else safe_dump(value)


FORMAT = TranscriptFormat(
    name="bfcl-result",
    label="BFCL result file",
    samples=(
        "fixtures/transcripts/bfcl_result_simple.json",
        "fixtures/transcripts/bfcl_result_multi_turn.json",
    ),
    sniff=sniff,
    parse=parse,
    parse_chunks=parse_chunks,
    keys=frozenset({"id", "result"}),
    needs="`id` and a list or text `result` per entry; questions by id with --tools",
)
