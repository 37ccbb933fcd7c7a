"""The exit-3 hint for JSON nobody claims: what it looks like, and the closest known shapes.

A file of JSON that no adapter reads is usually one of the known shapes with a field
missing or renamed; naming the keys seen and the shapes they resemble (with what each
needs) tells the user what to fix or which `--source` to try.
"""

from __future__ import annotations

from pathlib import Path

from toolcall_cli.sources.transcripts.base import Head, TranscriptFormat

#: Shapes other than the transcript formats: (label, keys, what it needs).
OTHER_SHAPES: tuple[tuple[str, frozenset[str], str], ...] = (
    ("OpenAI chat conversation", frozenset({"messages", "model", "tools"}), "needs `messages`"),
    (
        "chat completion response",
        frozenset({"id", "object", "choices", "created", "model", "usage"}),
        "needs `choices[].message`",
    ),
    (
        "BFCL question file",
        frozenset({"id", "question", "function", "involved_classes"}),
        "not a conversation: pass it with --tools beside a BFCL result file",
    ),
    (
        "BFCL possible-answer file",
        frozenset({"id", "ground_truth"}),
        "not a conversation: the expected calls, not the model's",
    ),
)


#: Shapes one key decides, named alone when it is present: a saved JSON-RPC message or a tool
#: definition shares `id` and `result` with a BFCL result file, which it is not.
DECISIVE_SHAPES: tuple[tuple[str, frozenset[str], str], ...] = (
    (
        "one MCP JSON-RPC message",
        frozenset({"jsonrpc"}),
        "no session: an MCP transcript holds a session's messages, one per line; a tools/list "
        "answer holds tool definitions: check them with `toolcall lint`, or pass them with --tools",
    ),
    (
        "a tool definition",
        frozenset({"inputSchema", "input_schema"}),
        "not evidence: check it with `toolcall lint`, or pass it with --tools",
    ),
)


def _keys(head: Head) -> tuple[str, list[str]] | None:
    doc = head.document
    if isinstance(doc, dict):
        return "a JSON object", list(doc)
    if isinstance(doc, list):
        first = next((x for x in doc if isinstance(x, dict)), None)
        return ("a JSON list of objects", list(first)) if first is not None else None
    if head.objects:
        return "JSON lines", list(head.objects[0])
    return None


def closest_shapes(head: bytes, path: Path, formats: list[TranscriptFormat]) -> str | None:
    """'looks like … with keys …; closest: …' for an unclaimed JSON file, or None."""
    seen = _keys(Head(head, path))
    if seen is None:
        return None
    what, keys = seen
    have = set(keys)
    shapes: list[tuple[str, frozenset[str], str]] = [
        *((f.label, f.keys, f"needs {f.needs}") for f in formats if f.keys),
        *OTHER_SHAPES,
    ]
    ranked = sorted(
        ((len(have & k) / len(k), label, needs) for label, k, needs in shapes if have & k),
        key=lambda r: -r[0],
    )
    decided = [(1.0, label, needs) for label, k, needs in DECISIVE_SHAPES if have & k]
    shown = ", ".join(keys[:8]) + (", …" if len(keys) > 8 else "")
    near = "; ".join(f"{label} ({needs})" for _, label, needs in (decided or ranked)[:2])
    return f"looks like {what} with keys {shown} — not a known shape" + (
        f"; closest: {near}" if near else ""
    )
