"""pcap adapter: HTTP/1.1 exchanges of pcap / pcapng captures (optionally gzip-compressed).

Recognised by magic bytes. tshark (located as pyshark locates it, see :mod:`.tshark`) reads
the capture in one streaming fields pass; :mod:`.http` turns its rows into a message
table (bodies decoded); :mod:`.events` pairs them per TCP stream and builds the events.
A capture whose tail is damaged keeps what tshark could read plus one ``unparsed`` row
saying so; a capture tshark cannot read at all is an InputError. This module only
recognises captures; :mod:`.read` reads them (pandas loads there), and :mod:`.early` may
start tshark on a named capture before that.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.sources._shared.files import GZIP_MAGIC, is_gzip
from toolcall_cli.sources.pcap.capture_file import SOURCE, gzip_head, is_capture

if TYPE_CHECKING:  # the reading side (pandas, numpy) loads with the first capture read
    import pandas as pd

    from toolcall_cli.sources.base import ParseOptions


class PcapAdapter:
    """HTTP request/response events out of packet captures."""

    name = SOURCE
    samples: tuple[str, ...] = (
        "fixtures/pcap/tool_calls.pcap",
        "fixtures/pcap/tool_calls.pcapng",
        "fixtures/pcap/tool_calls.pcap.gz",
        "fixtures/pcap/chunked_gzip.pcap",
        "fixtures/pcap/pipelined.pcap",
        "fixtures/pcap/llm_api.pcap",
        "fixtures/pcap/llm_sse.pcap",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """100 for pcap/pcapng magic (also inside gzip, even a truncated one), else 0."""
        if is_capture(head):
            return 100
        if (not head or head[:2] == GZIP_MAGIC) and is_gzip(path):
            return 100 if is_capture(gzip_head(path, 12)) else 0
        return 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Run tshark over the capture and build http_request/http_response (and LLM) events."""
        from toolcall_cli.sources.pcap.read import read_capture

        return read_capture(path, opts)


ADAPTER = PcapAdapter()
