"""Calls whose turn the user aborted (see `align.aborted`: the timeline calls them `cancelled`
from the same rule), by row label of the diagnose context's event table."""

from __future__ import annotations

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import attr, has_key
from toolcall_cli.diagnose.rules.orphans.pairing import conversation_rows


def aborted_calls(ctx: DiagnoseContext) -> dict[int, int]:
    """Call row → the row of the abort marker that ended its turn (computed once)."""

    def build() -> dict[int, int]:
        from toolcall_cli.align.aborted import MARKER, aborted_turn_calls  # pandas: on use

        conv = conversation_rows(ctx)
        if not len(conv):
            return {}
        return aborted_turn_calls(conv, has_key(conv, MARKER), attr(conv, "turn"))

    return ctx.memo("aborted_calls", build)
