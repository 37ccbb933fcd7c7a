"""Every message body read once: its JSON, whether it is an LLM round trip, and what a
tool-service request or answer says, in the one Python pass over the messages the events need.

Parsing each body is Python's work (orjson); so are the few fields taken out of the object it
gives. Doing all of it in a single loop, rather than one comprehension per question, keeps
the interpreter's per-message overhead to one visit.

Despite the name, this is no JSON tokenizer: each body is parsed whole by orjson.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.sources.pcap.body import (
    RequestFields,
    ResponseFields,
    request_fields,
    response_fields,
    sse_completion,
)

_JSON_START: Final = (b"{", b"[")


@dataclass(frozen=True, slots=True)
class BodyScan:
    """What the bodies of a message table hold (rows are message indices, ascending)."""

    objs: list[Any]  # each body's JSON (a streamed completion folded into one), None: not JSON
    is_dict: np.ndarray  # the JSON is an object
    llm: np.ndarray  # an LLM API body (by its path, or by its messages/choices)
    asks: np.ndarray  # tool-service requests: object bodies of requests that are not LLM calls
    sent: list[RequestFields | None]  # what each of them asks
    answers: np.ndarray  # responses whose object body is a tool-service answer
    facts: list[ResponseFields]  # what each of them says


def scan(
    bodies: Sequence[bytes],
    *,
    json_type: Sequence[bool],
    event_stream: Sequence[bool],
    is_request: Sequence[bool],
    llm_path: Sequence[bool],
) -> BodyScan:
    """Read every body: JSON when it starts like JSON or its content type says so; a response
    of type ``text/event-stream`` is a streamed completion (*event_stream*: per message)."""
    n = len(bodies)
    objs: list[Any] = [None] * n
    dicts: list[int] = []
    llm: list[int] = []
    asks: list[int] = []
    sent: list[RequestFields | None] = []  # (None only for a body that is no object)
    answers: list[int] = []
    facts: list[ResponseFields] = []
    for i, b in enumerate(bodies):
        req = is_request[i]
        if b and event_stream[i] and not req:
            o = sse_completion(b)
        elif b[:64].lstrip()[:1] in _JSON_START or (b and json_type[i]):
            o = try_loads(b)
        else:
            continue
        objs[i] = o
        if type(o) is not dict:
            continue
        dicts.append(i)
        if llm_path[i] or type(o.get("messages")) is list or type(o.get("choices")) is list:
            llm.append(i)
            if req:
                continue
        elif req:
            asks.append(i)
            sent.append(request_fields(o))
            continue
        said = response_fields(o)
        if said is not None:
            answers.append(i)
            facts.append(said)
    return BodyScan(
        objs=objs,
        is_dict=_mask(n, dicts),
        llm=_mask(n, llm),
        asks=np.array(asks, np.int64),
        sent=sent,
        answers=np.array(answers, np.int64),
        facts=facts,
    )


def _mask(n: int, rows: list[int]) -> np.ndarray:
    out = np.zeros(n, bool)
    out[rows] = True
    return out
