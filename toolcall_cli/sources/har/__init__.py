"""har adapter: HAR 1.2 files (browser devtools, Playwright, mitmproxy, Charles) as wire events.

A HAR entry is one HTTP exchange observed at the client, so it becomes what a capture's
exchange becomes: an ``http_request`` and (when an answer came) an ``http_response``, built by
pcap's own builder so keys, tool-service bodies and LLM API bodies (chat completions,
Anthropic messages, streamed SSE) read identically — align and diagnose (FL002's chat POSTs,
OR001's breakpoints) need nothing new. The request's time is `startedDateTime`; the response
is `time` ms later and carries it as `duration_ms`; `timings`, `_initiator` (frames and a
readable `initiator_text`), `_resourceType`, `pageref` and sizes stay in attrs. Bodies come
from `postData.text` and `response.content.text` (base64 undone); an export without content
keeps the sizes it states. `_webSocketMessages` frames are `ws_message` events.

The file is streamed (:mod:`.stream`): entries are read and turned into events a batch at a
time, so a HAR of 100,000 entries never exists as one Python tree. A cut or broken document
keeps the entries before the break plus one ``unparsed`` row saying where it stopped.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final, cast

import numpy as np
import pandas as pd
import pyarrow as pa

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import concat_frames, validate_frame
from toolcall_cli.model.words import plural
from toolcall_cli.sources._shared.files import is_gzip, require_regular
from toolcall_cli.sources._shared.logtime import check_tz, parse_times
from toolcall_cli.sources.base import ParseOptions

# The entry readers load when a HAR parses: every input's format is detected by asking each
# adapter for a score, and the score needs only the patterns below.

#: Entries per batch, and body bytes after which a batch is closed early.
BATCH_ENTRIES: Final = 2048
BATCH_BODY_BYTES: Final = 64 << 20

_LOG = re.compile(rb'^\s*\{\s*"log"\s*:\s*\{')
_MEMBERS = (b'"entries"', b'"version"')


class HarAdapter:
    """HTTP exchanges (and WebSocket frames) recorded in HAR files."""

    name = "har"
    samples: tuple[str, ...] = (
        "fixtures/har/playwright_double_submit.har",
        "fixtures/har/playwright_healthy.har",
        "fixtures/har/chrome_initiator.har",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """98 for ``{"log": {`` with "entries" and "version" in the head, 0 otherwise."""
        text = head.lstrip(b"\xef\xbb\xbf")
        if not _LOG.match(text):
            return 0
        found = sum(m in text for m in _MEMBERS)
        # "entries" may sit beyond the head when `pages` is long: the creator says HAR too
        if found == 2 or (found == 1 and b'"creator"' in text):
            return 98
        return 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Stream the entries into events, a batch at a time."""
        from toolcall_cli.sources.har.events import unparsed
        from toolcall_cli.sources.har.stream import HarCut, iter_entries
        from toolcall_cli.sources.pcap.http import BODY_CAP

        tz = check_tz(opts.tz)
        origin = str(path)
        cap = min(opts.max_decompressed, BODY_CAP)
        total = path.stat().st_size
        frames: list[pd.DataFrame] = []
        seen: set[str] = set()
        meta: dict[str, Any] = {}
        pending: list[Any] = []
        pending_bytes = done = 0
        with _open(path) as raw:
            entries = iter_entries(raw, meta, limit=opts.max_decompressed)
            try:
                for entry in entries:
                    pending.append(entry)
                    pending_bytes += _rough_size(entry)
                    if len(pending) >= BATCH_ENTRIES or pending_bytes >= BATCH_BODY_BYTES:
                        frames.append(_flush(pending, done, origin, tz, cap, seen))
                        done += len(pending)
                        pending, pending_bytes = [], 0
                        if opts.progress:
                            opts.progress(min(raw.tell(), total), total)
            except HarCut as cut:
                if pending:
                    frames.append(_flush(pending, done, origin, tz, cap, seen))
                    pending = []
                where = (
                    f"after {plural(cut.entries, 'entry')}" if cut.entries else "before any entry"
                )
                frames.append(unparsed(origin, [("", cut.reason, f"not a readable HAR {where}")]))
            if pending:
                frames.append(_flush(pending, done, origin, tz, cap, seen))
        if not meta.get("entries") and not any(len(f) for f in frames):
            frames.append(unparsed(origin, [("", "no log.entries", "not a HAR: no log.entries")]))
        if opts.progress:
            opts.progress(total, total)
        out = concat_frames(frames)
        out["seq"] = np.arange(len(out), dtype=np.int64)
        return validate_frame(out)


ADAPTER = HarAdapter()


def _flush(
    entries: list[Any], first: int, origin: str, tz: str, cap: int, seen: set[str]
) -> pd.DataFrame:
    from toolcall_cli.sources.har.entries import Batch, add_entry
    from toolcall_cli.sources.har.events import batch_events

    starts = [e.get("startedDateTime") if isinstance(e, dict) else None for e in entries]
    text = pa.array([s if isinstance(s, str) else None for s in starts], type=pa.string())
    ts = parse_times(text, tz)
    ns = ts.to_numpy(dtype="datetime64[ns]").astype(np.int64)
    ok = ts.notna().to_numpy()
    batch = Batch()
    for k, entry in enumerate(entries):
        add_entry(batch, first + k, entry, int(ns[k]) if ok[k] else None)
    return batch_events(batch, origin, cap=cap, seen=seen)


def _rough_size(entry: Any) -> int:
    """Body characters of an entry (what makes a batch heavy)."""
    if not isinstance(entry, dict):
        return 0
    size = 0
    for side, key in (("request", "postData"), ("response", "content")):
        part = entry.get(side)
        holder = part.get(key) if isinstance(part, dict) else None
        if isinstance(holder, dict) and isinstance(holder.get("text"), str):
            size += len(holder["text"])
    return size


@contextmanager
def _open(path: Path) -> Iterator[IO[bytes]]:
    require_regular(path)
    try:
        if is_gzip(path):
            with gzip.open(path, "rb") as g:
                yield cast(IO[bytes], g)
        else:
            with path.open("rb") as f:
                yield f
    except PermissionError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
