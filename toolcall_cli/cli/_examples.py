"""EXAMPLES per command: a command line and what it does (help epilogs and man pages).

The paths are the repository's own fixtures, so every example runs from a checkout
(`tests/cli/test_help.py` runs each one and checks it does not fail as a usage error).
"""

from __future__ import annotations

DEMO = "fixtures/incidents/flooding-model-loop"
BOOKING = "fixtures/replay/booking"

EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "ingest": (
        (f"toolcall ingest {DEMO}", "parse every file of an incident bundle into ./.toolcall/"),
        (f"toolcall ingest {DEMO}/middleware.log --no-store -f jsonl",
         "print the events of one log, one JSON object per line, without storing them"),
    ),
    "timeline": (
        (f"toolcall timeline {DEMO}", "the aligned timeline of each trace with phase latencies"),
        (f"toolcall timeline {DEMO} --trace-id trace-loop -f html -o timeline.html",
         "one trace as a self-contained HTML page"),
    ),
    "diagnose": (
        (f"toolcall diagnose {DEMO}", "root causes with the evidence lines that prove them"),
        (f"toolcall diagnose {DEMO} --select FL --fail-on warning -f sarif -o findings.sarif",
         "only flooding findings, as SARIF for code scanning; exit 1 at warning or above"),
        ("toolcall diagnose --session-id sess-loop", "one session, from the store"),
    ),
    "replay": (
        (f"toolcall replay {DEMO} --session-id sess-loop",
         "replay a session under the effective settings, printed first"),
        (f"toolcall replay {DEMO} --session-id sess-loop --calibrate",
         "fit window, limits and dedupe to what production did; print the toolcall.toml"),
        (f"toolcall replay {BOOKING}/messages.json {BOOKING}/middleware.log --trace-id trace-book "
         f"--baseline {BOOKING}/toolcall.toml --what-if {BOOKING}/looser.toml",
         "production's settings against a change: which verdicts change, and why"),
    ),
    "lint": (
        ("toolcall lint fixtures/schemas/openai_tools.json --profile openai-strict",
         "lint tool definitions for OpenAI strict mode"),
        ("toolcall lint fixtures/schemas/ -f sarif -o lint.sarif", "every file of a directory, "
         "as SARIF"),
    ),
    "rules": (
        ("toolcall rules", "the catalogue of finding codes"),
        ("toolcall rules FL001", "what FL001 does, why it matters, an example and the fix"),
    ),
    "config": (
        ("toolcall config show", "every key's effective value and where it came from"),
        ("toolcall --config prod.toml config show -f json", "the same for a named file, as JSON"),
        ("toolcall config init", "write a commented toolcall.toml with every key and default"),
    ),
    "query": (
        ("toolcall query \"SELECT instance, detail, count(*) AS n FROM events WHERE kind = "
         "'mw_flooded' GROUP BY ALL ORDER BY n DESC\"", "flooding causes per middleware instance"),
        ("toolcall query \"SELECT tool, quantile_cont(service_ms, 0.95) AS p95_ms FROM calls "
         "GROUP BY tool\"", "p95 tool-service latency per tool"),
        ("toolcall query -f csv \"SELECT DISTINCT session_id FROM findings WHERE code = 'FL002' "
         "AND run_at > now() - INTERVAL 1 HOUR\"", "sessions with FL002 found in the last hour"),
    ),
}  # fmt: skip
