"""Write one middleware JSON-lines log of N one-line traces (issue 20: "10,000 traces in one
log ≤ 10 s", the bench/README.md Scale row), seeded.

Each trace is one line of its own trace, session and call: mostly a call received and then
nothing (TR001's silent drop, the per-trace replay that made the figure), and some calls
rejected, cancelled for flooding, timed out or sent on to the tool service, as a middleware
fleet's log over an hour shows them.

    .venv/bin/python bench/many_traces.py /tmp/manytraces/mw10k.jsonl --traces 10000
    /usr/bin/time -v .venv/bin/toolcall diagnose /tmp/manytraces/mw10k.jsonl -f json \
        --fail-on never > /dev/null

`--tools FILE` also writes the fleet's tool registry: `diagnose --tools FILE` then validates
every replayed call's arguments against it (the schema stage).
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

#: (tool, arguments) the fleet sees; some arguments break the schema a registry would hold.
_CALLS = (
    ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ("get_weather", {"city": "Oslo"}),
    ("search_flights", {"from": "CDG", "to": "JFK", "date": "2025-03-14"}),
    ("book_flight", {"flight": "AF006", "date": "2025-13-01"}),
    ("send_email", {"to": "ops@example.com", "subject": "incident", "body": "see ticket"}),
    ("lookup_order", {"order_id": "A-10293"}),
)

#: (weight, event, level, message) of a trace's one line; `{tool}` is the call's tool.
_LINES = (
    (80, "tool_call.received", "info", "tool call received: {tool}"),
    (6, "tool_call.rejected", "warn", "missing required field date"),
    (5, "tool_call.flooded", "warn", "tool call cancelled because tool-call flooding was detected"),
    (4, "tool_call.timeout", "warn", "tool call timeout after 5000 ms"),
    (5, "tool_call.request", "info", "POST /tools/{tool}"),
)


def _tool(name: str, props: dict[str, dict[str, str]], required: list[str]) -> dict[str, object]:
    schema = {"type": "object", "properties": props, "required": required}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


#: The fleet's tool registry (`--tools`): with it the replay validates every call's arguments.
TOOLS = [
    _tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}, ["city"]),
    _tool(
        "search_flights",
        {"from": {"type": "string"}, "to": {"type": "string"}, "date": {"format": "date"}},
        ["from", "to", "date"],
    ),
    _tool("book_flight", {"flight": {"type": "string"}, "date": {"format": "date"}}, ["flight"]),
    _tool("send_email", {"to": {"type": "string", "format": "email"}}, ["to", "subject"]),
    _tool("lookup_order", {"order_id": {"type": "string", "pattern": "^[A-Z]-\\d+$"}}, []),
]


def lines(n: int, *, seed: int = 20) -> list[str]:
    """*n* JSON lines, one trace each, in time order over about an hour."""
    rng = random.Random(seed)
    start = datetime(2025, 3, 1, 12, tzinfo=UTC)
    weights = [w for w, *_ in _LINES]
    out = []
    for i in range(n):
        tool, args = rng.choice(_CALLS)
        _, event, level, msg = rng.choices(_LINES, weights=weights)[0]
        ts = start + timedelta(milliseconds=i * 3600_000 // max(n, 1) + rng.randrange(300))
        record = {
            "ts": ts.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": level,
            "event": event,
            "msg": msg.format(tool=tool),
            "trace_id": f"trace-{i:06d}",
            "session_id": f"sess-{i:06d}",
            "tool_call_id": f"call_{rng.getrandbits(48):012x}",
            "tool": tool,
            "instance": f"mw-{rng.randrange(1, 5)}",
            "arguments": json.dumps(args),
        }
        out.append(json.dumps(record))
    return out


def main() -> None:
    """Write the log named on the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--traces", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--tools", type=Path, help="also write the registry (pass it as --tools)")
    a = ap.parse_args()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("\n".join(lines(a.traces, seed=a.seed)) + "\n")
    if a.tools:
        a.tools.write_text(json.dumps(TOOLS, indent=2) + "\n")


if __name__ == "__main__":
    main()
