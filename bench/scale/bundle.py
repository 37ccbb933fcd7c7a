"""A seeded fleet-day bundle for `make bench-scale`: the four classic sources, ~10 M events.

Calls are numbered `call_<n>`, 85 ms apart, four to a trace (`trace_<n // 4>`), as in
fixtures/gen/bench_inputs.py; a session holds ten traces 340 s apart (1,000 sessions are open at
a time, `session_of`) and sticks to one middleware instance, so a healthy call raises nothing.
Every source describes the same calls and a store joins them:

- middleware: four JSON lines per call (received, request, response, injected), one file per
  instance;
- nginx: two combined lines per call (the chat POST and the tool POST) with trailing keys,
  split in two files;
- pcap: the first `PCAP_EXCHANGES` calls' tool-service exchanges (written by
  fixtures/gen/pcapwriter.py, read back through tshark like any capture);
- messages: one conversation per line (JSON lines) for one session in `MESSAGE_EVERY`, holding
  the first call of each of its traces.

Planted incidents, at places the bench checks (`planted()` lists them):

- flooding: every call with `n % FLOOD_EVERY == FLOOD_AT` is cancelled by the middleware as
  flooding after it was received (no request, response or injection follows), with nothing
  else to explain it: FL006 flood-unexplained;
- model loop: every conversation of a session with `s % LOOP_EVERY == LOOP_AT` repeats one
  tool call with the same arguments for all ten of its calls: FL001 model-loop;
- the incident bundles of fixtures/incidents/, copied whole under `incidents/<scenario>/`
  with their `expected.json`.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

T0 = datetime(2025, 3, 1, 0, 0, 0, tzinfo=UTC)
TOOLS = ("get_weather", "search_flights", "book_flight", "send_email", "lookup_order")
STEPS = ("tool_call.received", "tool_call.request", "tool_call.response", "tool_call.injected")
MESSAGES = ("tool call received", "POST /tools/{tool}", "Received response from {tool}",
            "tool result injected")  # fmt: skip
INSTANCES = 3
CALLS_PER_SESSION = 40  # ten traces of four calls
OPEN_SESSIONS = 1_000  # sessions interleaved at a time (see session_of)
MESSAGE_EVERY = 10
PCAP_EXCHANGES = 20_000
FLOOD_EVERY, FLOOD_AT = 997, 0
LOOP_EVERY, LOOP_AT = 97, 13
#: Middleware 4, nginx 1 (+ a chat line per trace of four calls), messages 22 per
#: conversation of one session in MESSAGE_EVERY.
EVENTS_PER_CALL = 4 + 1 + 1 / 4 + 22 / (CALLS_PER_SESSION * MESSAGE_EVERY)


@dataclass(frozen=True, slots=True)
class Planted:
    """One planted incident: the code it must raise and the ids a finding must name."""

    code: str
    tool_call_id: str | None = None
    session_id: str | None = None
    scenario: str | None = None


def calls_for(events: int) -> int:
    """How many calls make about *events* events."""
    return max(CALLS_PER_SESSION * MESSAGE_EVERY, int(events / EVENTS_PER_CALL))


def session_of(n: int) -> int:
    """The session of call *n*: trace t goes to session t % 1000 of its block of 10,000 traces."""
    t = n // 4
    per_block = OPEN_SESSIONS * CALLS_PER_SESSION // 4
    return t % OPEN_SESSIONS + OPEN_SESSIONS * (t // per_block)


def session_calls(s: int) -> list[int]:
    """The first call of each of session *s*'s ten traces."""
    block, i = divmod(s, OPEN_SESSIONS)
    first = block * OPEN_SESSIONS * CALLS_PER_SESSION // 4 + i
    return [4 * (first + OPEN_SESSIONS * k) for k in range(CALLS_PER_SESSION // 4)]


def _ts(n: int) -> datetime:
    return T0 + timedelta(milliseconds=n * 85)


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def flooded(n: int) -> bool:
    """Whether call *n* is planted as flooding."""
    return n % FLOOD_EVERY == FLOOD_AT


def looping(session: int) -> bool:
    """Whether session *session*'s conversation is planted as a model loop."""
    return session % MESSAGE_EVERY == 0 and session % LOOP_EVERY == LOOP_AT


def middleware(root: Path, calls: int, *, seed: int = 11) -> list[Path]:
    """Four JSON lines per call, one file per instance; planted floods stop after receipt."""
    rnd = random.Random(seed)
    paths = [root / f"middleware-{i}.log" for i in range(INSTANCES)]
    files = [p.open("w", encoding="utf-8") for p in paths]
    try:
        for n in range(calls):
            tool = TOOLS[n % len(TOOLS)]
            session = session_of(n)
            f = files[session % INSTANCES]
            base: dict[str, object] = {
                "level": "info", "trace_id": f"trace_{n // 4}", "session_id": f"sess_{session}",
                "tool_call_id": f"call_{n}", "tool": tool, "instance": f"mw-{session % INSTANCES}",
            }  # fmt: skip
            for step, event in enumerate(STEPS):
                t = _ts(n) + timedelta(milliseconds=(0, 20, 200, 210)[step] + rnd.randint(0, 9))
                rec: dict[str, object] = {"ts": _iso(t), "event": event, **base}
                rec["msg"] = MESSAGES[step].format(tool=tool)
                if step == 1 and flooded(n):
                    rec["event"] = "tool_call.flooded"
                    rec["msg"] = "tool call cancelled because tool-call flooding was detected"
                    f.write(json.dumps(rec) + "\n")
                    break
                if step == 2:
                    rec["status"] = "success"
                    rec["duration_ms"] = rnd.randint(20, 170)
                f.write(json.dumps(rec) + "\n")
    finally:
        for f in files:
            f.close()
    return paths


def nginx(path: Path, first: int, last: int, *, seed: int = 7) -> Path:
    """Two access lines per call in [first, last): the chat POST and the tool POST."""
    rnd = random.Random(seed + first)
    with path.open("w", encoding="utf-8") as f:
        for n in range(first, last):
            keys = f"trace_id=trace_{n // 4} session_id=sess_{session_of(n)}"
            for i, (req, tail) in enumerate(
                (
                    ("POST /v1/chat/completions HTTP/1.1", f"{keys} request_id=req_{n}"),
                    (
                        f"POST /tools/{TOOLS[n % len(TOOLS)]} HTTP/1.1",
                        f"{keys} tool_call_id=call_{n}",
                    ),
                )
            ):
                if (i == 0 and n % 4) or (i == 1 and flooded(n)):
                    continue  # one chat request per trace; a flooded call never reached the tool
                t = _ts(n) + timedelta(milliseconds=rnd.randint(0, 40) + 200 * i)
                f.write(
                    f"10.{n % 250}.{n % 249}.{rnd.randint(1, 250)} - - "
                    f'[{t.strftime("%d/%b/%Y:%H:%M:%S +0000")}] "{req}" 200 '
                    f'{rnd.randint(80, 9000)} "-" "agent/1.{n % 9}" {tail} '
                    f"rt={rnd.randint(5, 170) / 1000:.3f}\n"
                )
    return path


def messages(path: Path, calls: int) -> Path:
    """One conversation per line for every MESSAGE_EVERY-th session (OpenAI message shape)."""
    with path.open("w", encoding="utf-8") as f:
        for s in range(0, calls // CALLS_PER_SESSION, MESSAGE_EVERY):
            msgs: list[dict[str, object]] = [{"role": "user", "content": f"request {s}"}]
            for n in session_calls(s):  # the first call of each of its traces
                if flooded(n) or n >= calls:
                    continue
                tool = TOOLS[n % len(TOOLS)]
                args = {"q": "same"} if looping(s) else {"q": f"item-{n}"}
                tool = TOOLS[0] if looping(s) else tool
                msgs.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{n}", "type": "function",
                     "function": {"name": tool, "arguments": json.dumps(args)}}]})  # fmt: skip
                msgs.append({"role": "tool", "tool_call_id": f"call_{n}",
                             "content": json.dumps({"ok": True, "n": n})})  # fmt: skip
            msgs.append({"role": "assistant", "content": "done"})
            f.write(json.dumps({"session_id": f"sess_{s}", "messages": msgs}) + "\n")
    return path


def pcap(path: Path, exchanges: int) -> Path:
    """The tool-service exchanges of the first *exchanges* calls, one TCP connection each."""
    from fixtures.gen.pcapwriter import PcapWriter, http_exchange

    rnd = random.Random(13)
    w = PcapWriter(path)
    for n in range(exchanges):
        if flooded(n):
            continue
        tool = TOOLS[n % len(TOOLS)]
        t = _ts(n).timestamp() + 0.021
        conv = w.tcp(client=(f"10.1.{(n >> 8) & 255}.{n & 255 or 1}", 20000 + n % 40000),
                     server=("10.0.0.9", 8080))  # fmt: skip
        conv.open(t - 0.001)
        http_exchange(conv, t, t + rnd.randint(20, 170) / 1000, "POST", f"/tools/{tool}",
                      {"Content-Type": "application/json", "X-Tool-Call-ID": f"call_{n}",
                       "X-Trace-ID": f"trace_{n // 4}",
                       "X-Session-ID": f"sess_{session_of(n)}"},
                      {"function": tool, "arguments": {"q": f"item-{n}"}}, 200,
                      {"Content-Type": "application/json"},
                      {"status": "success", "n": n})  # fmt: skip
        conv.close(t + 0.5)
    w.close()
    return path


def write_bundle(root: Path, events: int, *, incidents: Path) -> list[Planted]:
    """Write the bundle of about *events* events under *root*; return what was planted."""
    root.mkdir(parents=True, exist_ok=True)
    calls = calls_for(events)
    middleware(root, calls)
    half = calls // 2
    nginx(root / "access-0.log", 0, half)
    nginx(root / "access-1.log", half, calls)
    messages(root / "conversations.jsonl", calls)
    pcap(root / "tools.pcap", min(PCAP_EXCHANGES, calls))
    planted = planted_in(calls)
    for bundle in sorted(p for p in incidents.iterdir() if (p / "expected.json").is_file()):
        shutil.copytree(bundle, root / "incidents" / bundle.name)
        for code in json.loads((bundle / "expected.json").read_text())["expected_codes"]:
            planted.append(Planted(code=code, scenario=bundle.name))
    return planted


def planted_in(calls: int) -> list[Planted]:
    """The planted floods and loops of a bundle of *calls* calls."""
    floods = range(FLOOD_AT, calls, FLOOD_EVERY)
    out = [Planted(code="FL006", tool_call_id=f"call_{n}") for n in floods]
    sessions = range(0, calls // CALLS_PER_SESSION, MESSAGE_EVERY)
    out += [Planted(code="FL001", session_id=f"sess_{s}") for s in sessions if looping(s)]
    return out
