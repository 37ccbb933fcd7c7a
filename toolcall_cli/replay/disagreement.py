"""When most calls disagree, the settings are off, not the evidence: say which setting.

A replay that disagrees with half or more of the calls it judged measures its own settings
(the built-in 60 s identical-call dedupe where production has none; 5 calls per 60 s on a
synthetic clock that puts one assistant turn 1 s after the last). Each disagreeing call points
at the setting that would have to change for it to agree; the warning names the one most
calls point at, in words, with the key to look at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from toolcall_cli.model.config import Config
from toolcall_cli.model.words import plural
from toolcall_cli.replay import ratelimit
from toolcall_cli.replay.observe import was_dispatched

if TYPE_CHECKING:
    from toolcall_cli.replay import CallReplay

#: Suspect → what it means (format fields: the flooding settings and the tool).
_WORDS: Final = {
    "dedupe": "identical calls the {window} s identical-call dedupe cancels were dispatched in "
    "production: [flooding] dedupe (does production dedupe at all?)",
    "per_tool": "calls over the per-tool limit of {tool!r} were dispatched in production: "
    "[flooding] per_tool",
    "max_calls": "calls over {max_calls} per {window} s were dispatched in production: "
    "[flooding] max_calls and window_s",
    "stricter": "production cancelled calls these limits admit: [flooding] max_calls, "
    "window_s or per_tool are looser than production's",
    "tools": "the tool definitions differ from production's: the registry (tools, --tools)",
}


def _suspect(c: CallReplay) -> str | None:
    """The setting a disagreeing call points at (None: the evidence, not a setting)."""
    rate = next((v for v in c.stages if v.stage == ratelimit.name), None)
    if c.observed == "dispatched" and rate is not None and rate.failed:
        return {"duplicate-call": "dedupe", "tool-limit": "per_tool"}.get(rate.code, "max_calls")
    if c.observed == "flooded":
        return "stricter" if rate is not None and not rate.failed else None
    if c.observed in ("dispatched", "rejected") and (
        was_dispatched(c.replayed) != (c.observed == "dispatched")
    ):
        return "tools"
    return None


def settings_warning(calls: Sequence[CallReplay], cfg: Config) -> str | None:
    """A warning when half or more of *calls* disagree, naming the likely setting; else None."""
    wrong = [c for c in calls if not c.agrees]
    if not wrong or 2 * len(wrong) < len(calls):
        return None
    suspects = Counter(s for s in map(_suspect, wrong) if s is not None)
    head = (
        f"{len(wrong)} of {plural(len(calls), 'call')} "
        f"{'disagrees' if len(wrong) == 1 else 'disagree'} with the evidence, so these settings "
        "probably do not model this production"
    )
    tail = "; give production's settings with --baseline FILE or fit them with --calibrate"
    if not suspects:
        return head + tail
    top, n = suspects.most_common(1)[0]
    tool = next((c.tool for c in wrong if _suspect(c) == top), None)
    fl = cfg.flooding
    why = _WORDS[top].format(window=f"{fl.window_s:g}", max_calls=fl.max_calls, tool=tool)
    clock = ""
    limited = [c for c in wrong if _suspect(c) in ("max_calls", "per_tool", "stricter")]
    if top != "tools" and limited and all(c.clock_kind == "synthetic" for c in limited):
        clock = (
            "; these calls carry no event time, so their clock is synthetic (one assistant "
            "turn = 1 s) and the window counts them closer together than they were"
        )
    return f"{head}: {n} of them: {why}{clock}{tail}"
