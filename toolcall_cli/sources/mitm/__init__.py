"""mitm adapter: mitmproxy flow files (``mitmdump -w``, mitmweb's "Save"), read with mitmproxy's
own reader, as the same wire exchanges a HAR entry or a capture gives.

mitmproxy is an optional extra (``pip install 'toolcall[mitm]'``): the flow format is
mitmproxy's serialisation of its objects, versioned and migrated by its reader, so toolcall
reads it through `mitmproxy.io.FlowReader` rather than a copy of the format. Without it a
``.mitm`` input is a missing dependency (exit 4) with that hint; detection needs no mitmproxy
(the file is a tnetstring of a flow's state, recognised by its first bytes).

Each HTTP flow becomes a HAR entry (:mod:`.flows`) and goes through the HAR builder, so keys,
bodies (still encoded as sent, inflated under the usual caps), LLM API calls and WebSocket
frames read exactly as they do for a HAR or a pcap; origins point at the flow's position in the
file, ``path#/flows/3/request``. A TCP/UDP/DNS flow is counted as an `unparsed` record (not an
HTTP exchange); a file that stops being readable keeps the flows before the break and one
`unparsed` row saying where it stopped.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import pandas as pd

from toolcall_cli.errors import InputError, MissingDependencyError
from toolcall_cli.model.events import concat_frames, validate_frame
from toolcall_cli.sources._shared.files import require_regular
from toolcall_cli.sources.base import ParseOptions

if TYPE_CHECKING:  # the HAR builder loads when flows parse, not when inputs are sniffed
    from toolcall_cli.sources.har.entries import Batch

SOURCE: Final = "mitm"
#: Origins: ``path#/flows/N/request`` (N = the flow's 0-based position in the file).
FLOWS: Final = "/flows"
BATCH_FLOWS: Final = 2048
HINT: Final = "pip install 'toolcall[mitm]'" + (
    "" if sys.version_info >= (3, 12) else " (mitmproxy 12 needs Python 3.12; on 3.11: make mitm)"
)

#: A flow file is a tnetstring dict (``LEN:...}``) of a flow's state: "type" and "version"
#: are among its first keys.
_TNET = re.compile(rb"^(\d{1,10}):")
_KEYS: Final = (b"4:type;", b"7:version;")


class MitmAdapter:
    """HTTP flows (and their WebSocket messages) saved by mitmproxy."""

    name = SOURCE
    samples: tuple[str, ...] = (
        "fixtures/mitm/reverse_healthy.mitm",
        "fixtures/mitm/reverse_double_submit.mitm",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """97 for a tnetstring dict holding a flow's "type" and "version", 0 otherwise."""
        m = _TNET.match(head)
        if not m:
            return 0
        end = m.end() + int(m[1])
        if end < len(head) and head[end : end + 1] != b"}":
            return 0  # the first value is not a dict
        return 97 if all(k in head for k in _KEYS) else 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Read the flows with mitmproxy's reader and build wire events, a batch at a time."""
        from toolcall_cli.sources.har.entries import Batch
        from toolcall_cli.sources.har.events import unparsed
        from toolcall_cli.sources.pcap.http import BODY_CAP

        require_regular(path)
        try:
            import mitmproxy.io as mitm_io
            from mitmproxy.exceptions import FlowReadException
        except ImportError:
            raise MissingDependencyError(
                f"reading mitmproxy flows ({path.name}) needs mitmproxy", hint=HINT
            ) from None
        origin, cap = str(path), min(opts.max_decompressed, BODY_CAP)
        total = path.stat().st_size
        frames: list[pd.DataFrame] = []
        seen: set[str] = set()
        batch, first, count = Batch(), 0, 0
        odd: list[tuple[str, str, str]] = []
        try:
            with path.open("rb") as f:
                try:
                    for flow in mitm_io.FlowReader(f).stream():
                        _add(batch, count, flow, odd)
                        count += 1
                        if count - first >= BATCH_FLOWS:
                            frames.append(self._flush(batch, origin, cap, seen))
                            batch, first = Batch(), count
                            if opts.progress:
                                opts.progress(min(f.tell(), total), total)
                except (FlowReadException, ValueError, TypeError, KeyError) as e:
                    where = f"after {count} flows" if count else "before any flow"
                    odd.append((f"#{FLOWS}/{count}", str(e), f"not a readable flow file {where}"))
        except PermissionError as e:
            raise InputError(f"cannot read {path}: {e.strerror or e}") from None
        frames.append(self._flush(batch, origin, cap, seen))
        if odd:
            frames.append(unparsed(origin, odd, order=True, source=SOURCE))
        if opts.progress:
            opts.progress(total, total)
        out = concat_frames(frames)
        out = out.sort_values("seq", kind="stable").reset_index(drop=True)
        out["seq"] = np.arange(len(out), dtype=np.int64)
        return validate_frame(out)

    @staticmethod
    def _flush(batch: Batch, origin: str, cap: int, seen: set[str]) -> pd.DataFrame:
        from toolcall_cli.sources.har.events import batch_events

        return batch_events(batch, origin, cap=cap, seen=seen, source=SOURCE, entries=FLOWS)


ADAPTER = MitmAdapter()


def _add(batch: Batch, index: int, flow: Any, odd: list[tuple[str, str, str]]) -> None:
    """Flow *index* into *batch* when it is HTTP; any other flow is noted in *odd*."""
    from toolcall_cli.sources.har.entries import add_entry
    from toolcall_cli.sources.mitm.flows import http_entry, started_ns

    kind = getattr(flow, "type", type(flow).__name__)
    if kind != "http":
        why = f"a {kind} flow, not an HTTP exchange"
        odd.append((f"#{FLOWS}/{index}", why, why))
        return
    add_entry(batch, index, http_entry(flow), started_ns(flow))
