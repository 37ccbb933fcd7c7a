"""pcap adapter: HTTP/1.1 exchanges of pcap / pcapng captures (optionally gzip-compressed).

Recognised by magic bytes. tshark (located through pyshark, see :mod:`.tshark`) reads
the capture in one streaming fields pass; :mod:`.http` turns its rows into a message
table (bodies decoded); :mod:`.events` pairs them per TCP stream and builds the events.
A capture whose tail is damaged keeps what tshark could read plus one ``unparsed`` row
saying so; a capture tshark cannot read at all is an InputError.
"""

from __future__ import annotations

import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import numpy as np
import orjson
import pandas as pd

from toolcall_cli.core.events import concat_frames, validate_frame
from toolcall_cli.core.words import plural
from toolcall_cli.errors import InputError
from toolcall_cli.sources._shared.files import GZIP_MAGIC, is_gzip
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.pcap import events as pcap_events
from toolcall_cli.sources.pcap import http
from toolcall_cli.sources.pcap import tshark as tsh

#: Magic numbers: classic pcap (µs/ns, both byte orders, Kuznetzov's modified) and pcapng.
MAGICS: Final = (
    b"\xd4\xc3\xb2\xa1",
    b"\xa1\xb2\xc3\xd4",
    b"\x4d\x3c\xb2\xa1",
    b"\xa1\xb2\x3c\x4d",
    b"\x34\xcd\xb2\xa1",
    b"\xa1\xb2\xcd\x34",
)
PCAPNG_MAGIC: Final = b"\x0a\x0d\x0d\x0a"  # section header block type ...
PCAPNG_BOM: Final = (b"\x4d\x3c\x2b\x1a", b"\x1a\x2b\x3c\x4d")  # ... and its byte-order magic


def is_capture(head: bytes) -> bool:
    """True when *head* starts like a classic pcap or a pcapng file."""
    return head[:4] in MAGICS or (head[:4] == PCAPNG_MAGIC and head[8:12] in PCAPNG_BOM)


class PcapAdapter:
    """HTTP request/response events out of packet captures."""

    name = "pcap"
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
            return 100 if is_capture(_gzip_head(path, 12)) else 0
        return 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Run tshark over the capture and build http_request/http_response (and LLM) events."""
        binary = tsh.locate()
        total = path.stat().st_size
        if opts.progress:
            opts.progress(0, total)
        with _materialise(path, opts) as capture:
            frame = _read(binary, capture, str(path), cap=min(opts.max_decompressed, http.BODY_CAP))
        if opts.progress:
            opts.progress(total, total)
        return validate_frame(frame)


ADAPTER = PcapAdapter()


def _gunzip(chunks: Iterator[bytes], limit: int) -> Iterator[bytes]:
    """Inflate gzip members as far as the data goes (a truncated tail simply ends the output)."""
    d = zlib.decompressobj(47)
    total = 0
    for chunk in chunks:
        while chunk:
            try:
                out = d.decompress(chunk, 1 << 20)
            except zlib.error:
                return
            total += len(out)
            if total > limit:
                raise _TooBig
            yield out
            chunk = d.unconsumed_tail
            if d.eof and d.unused_data:  # next gzip member
                chunk, d = d.unused_data, zlib.decompressobj(47)


class _TooBig(Exception):
    pass


def _file_chunks(path: Path, *, stop: int | None = None) -> Iterator[bytes]:
    with path.open("rb") as f:
        read = 0
        while (chunk := f.read(1 << 20)) and (stop is None or read < stop):
            read += len(chunk)
            yield chunk


def _gzip_head(path: Path, n: int) -> bytes:
    """The first *n* inflated bytes of a (possibly truncated) gzip file."""
    out = b""
    try:
        for piece in _gunzip(_file_chunks(path, stop=n), n + (1 << 20)):
            out += piece
            if len(out) >= n:
                break
    except (_TooBig, OSError):
        pass
    return out[:n]


@contextmanager
def _materialise(path: Path, opts: ParseOptions) -> Iterator[Path]:
    """The capture as a plain file; gzip is inflated to a temp file (capped: max_decompressed)."""
    if not is_gzip(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="toolcall-pcap-") as tmp:
        out = Path(tmp) / (path.name.removesuffix(".gz") or "capture.pcap")
        try:
            with out.open("wb") as dst:
                for piece in _gunzip(_file_chunks(path), opts.max_decompressed):
                    dst.write(piece)
        except _TooBig:
            raise InputError(
                f"{path}: decompressed size exceeds {plural(opts.max_decompressed, 'byte')}; "
                "refusing (decompression bomb?)"
            ) from None
        except OSError as e:
            raise InputError(f"cannot read {path}: {e.strerror or e}") from None
        if out.stat().st_size == 0:
            raise InputError(f"{path}: corrupt or empty gzip stream")
        yield out


def _read(binary: tsh.Tshark, capture: Path, origin_path: str, *, cap: int) -> pd.DataFrame:
    """One streaming fields pass; frames with several HTTP messages are re-read as JSON layers."""
    raw, result = tsh.read_fields(tsh.command(binary, capture))
    tsh.check_readable(result, capture, rows=len(raw))
    bad: list[tuple[str, str]] = []
    if result.returncode != 0 or result.problems:
        text = "; ".join(result.notes) or f"tshark exited with {result.returncode}"
        bad.append((text, "capture damaged; events before the damage were kept"))
    multi = http.is_multi(raw)
    msgs = http.normalise(raw[~multi].reset_index(drop=True))
    if multi.any():
        infos = [
            {str(k): v for k, v in r.items()}
            for r in http.normalise(raw[multi].reset_index(drop=True)).to_dict("records")
        ]
        extra = _split_multi(binary, capture, infos)
        if extra:
            msgs = pd.concat(
                [msgs, pd.DataFrame(extra, columns=list(http.MESSAGE_COLUMNS))], ignore_index=True
            )
            msgs = msgs.sort_values("frame", kind="stable").reset_index(drop=True)
    frame = pcap_events.events(msgs, origin_path, cap=cap)
    if bad:
        frame = concat_frames([frame, pcap_events.unparsed_frame(origin_path, bad)])
        frame["seq"] = np.arange(len(frame), dtype=np.int64)
    return frame


def _split_multi(
    binary: tsh.Tshark, capture: Path, infos: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Second pass for frames that hold several messages: per-layer JSON keeps them apart."""
    data, _ = tsh.run_all(tsh.command(binary, capture, frames=[int(i["frame"]) for i in infos]))
    try:
        packets = orjson.loads(data) if data.strip() else []
    except orjson.JSONDecodeError:
        packets = []
    by_frame = {int(i["frame"]): i for i in infos}
    out: list[dict[str, Any]] = []
    for pkt in packets if isinstance(packets, list) else []:
        layers = pkt.get("_source", {}).get("layers", {}) if isinstance(pkt, dict) else {}
        info = by_frame.get(_frame_number(layers) or -1)
        if info is None:
            continue
        layer = layers.get("http", [])
        layer = layer if isinstance(layer, list) else [layer]
        base = {k: info[k] for k in ("frame", "ts_ns", "stream", "src", "dst")}
        out.extend(http.from_json_layers(base, [h for h in layer if isinstance(h, dict)]))
    return out


def _frame_number(layers: dict[str, Any]) -> int | None:
    frame = layers.get("frame")
    if isinstance(frame, dict):
        try:
            return int(frame.get("frame.number", ""))
        except ValueError:
            return None
    return None
