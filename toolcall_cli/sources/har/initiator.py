"""Chrome's `_initiator`: who started a request, kept as frames and as one readable line.

DevTools writes ``{"type": "script", "stack": {"callFrames": [{"functionName", "url",
"lineNumber", "columnNumber"}...], "parent": {"description": "Promise.then", "callFrames":
...}}}`` for requests a script made, ``{"type": "parser", "url", "lineNumber"}`` for markup.
Line numbers are CDP's (0-based) in the frames; the text shows them 1-based, as DevTools does,
so a finding can quote "sendChat @ http://127.0.0.1:8000/:41" and the engineer opens that line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

#: Frames kept per initiator (async parents included); deeper stacks are cut.
MAX_FRAMES: Final = 16


def initiator_attrs(raw: Any) -> dict[str, Any]:
    """``initiator`` (type, url, line, stack frames) and ``initiator_text`` for the attrs."""
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, Any] = {"type": raw.get("type")}
    if isinstance(raw.get("url"), str):
        out["url"] = raw["url"]
    if isinstance(raw.get("lineNumber"), int):
        out["line"] = raw["lineNumber"]
    frames = _frames(raw.get("stack"))
    if frames:
        out["stack"] = frames
    init = {k: v for k, v in out.items() if v is not None}
    return {"initiator": init, "initiator_text": _text(init)} if init else {}


def _frames(stack: Any) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    depth = 0
    while isinstance(stack, Mapping) and len(frames) < MAX_FRAMES and depth < MAX_FRAMES:
        depth += 1
        calls = stack.get("callFrames")
        for k, f in enumerate(calls if isinstance(calls, list) else ()):
            if not isinstance(f, Mapping) or len(frames) >= MAX_FRAMES:
                continue
            frame: dict[str, Any] = {
                "function": f.get("functionName") or "(anonymous)",
                "url": f.get("url") if isinstance(f.get("url"), str) else None,
                "line": f.get("lineNumber") if isinstance(f.get("lineNumber"), int) else None,
            }
            if k == 0 and isinstance(stack.get("description"), str) and depth > 1:
                frame["async"] = stack["description"]  # the await / then this frame resumed from
            frames.append({k2: v for k2, v in frame.items() if v is not None})
        stack = stack.get("parent")
    return frames


def _text(init: Mapping[str, Any]) -> str:
    """``script: sendChat @ http://h/app.js:41 ← (Promise.then) onclick @ http://h/:12``."""
    parts = []
    for f in init.get("stack", ()):
        where = f"{f['url']}:{f['line'] + 1}" if "url" in f and "line" in f else f.get("url", "")
        hop = f"({f['async']}) " if "async" in f else ""
        parts.append(f"{hop}{f['function']}" + (f" @ {where}" if where else ""))
    if not parts and "url" in init:
        line = f":{init['line'] + 1}" if "line" in init else ""
        parts.append(f"{init['url']}{line}")
    return f"{init.get('type', 'other')}: " + " ← ".join(parts) if parts else str(init.get("type"))
