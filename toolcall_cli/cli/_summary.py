"""The run's own lines on stderr — its summary, the files a walk skipped — unless --quiet."""

from __future__ import annotations

from collections.abc import Sequence

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say

#: Skipped files listed one per line on stderr before "… and N more".
SKIPPED_LISTED = 20


def say_skipped(skipped: Sequence[tuple[object, str]]) -> None:
    """One stderr line per file a directory walk skipped, with the reason (unless --quiet).

    Apart from ingest's input handling, so `lint` can say it without loading pandas
    (cli/_inputs imports the event summary).
    """
    if _settings.current().quiet:
        return
    for path, why in skipped[:SKIPPED_LISTED]:
        say(f"toolcall: skipped {path}: {why}")
    if len(skipped) > SKIPPED_LISTED:
        say(f"toolcall: … and {len(skipped) - SKIPPED_LISTED} more skipped files")


def say_summary(text: str) -> None:
    """The run's summary line, `toolcall: TEXT`, on stderr (unless --quiet)."""
    if not _settings.current().quiet:
        say(f"toolcall: {text}")
