"""Reading a capture: tshark's fields pass, the HTTP message table, the events (pandas).

A gzip capture is inflated to a temporary file first (capped by max_decompressed), since
tshark needs a file it can seek; frames holding several HTTP messages are read a second
time as JSON layers (:func:`_split_multi`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import concat_frames, validate_frame
from toolcall_cli.model.gcpause import no_gc
from toolcall_cli.model.words import plural
from toolcall_cli.sources._shared.files import is_gzip
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.pcap import early, fields_messages, http
from toolcall_cli.sources.pcap import events as pcap_events
from toolcall_cli.sources.pcap import tshark as tsh
from toolcall_cli.sources.pcap.capture_file import TooBig, file_chunks, gunzip


def read_capture(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """The validated event table of the capture at *path* (progress in bytes of the file)."""
    binary = tsh.locate()
    total = path.stat().st_size
    if opts.progress:
        opts.progress(0, total)
    # tens of thousands of bodies become JSON objects (no cycles): no collections meanwhile
    with _materialise(path, opts) as capture, no_gc():
        frame = _read(binary, capture, str(path), cap=min(opts.max_decompressed, http.BODY_CAP))
    if opts.progress:
        opts.progress(total, total)
    return validate_frame(frame)


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
                for piece in gunzip(file_chunks(path), opts.max_decompressed):
                    dst.write(piece)
        except TooBig:
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
    cmd = tsh.command(binary, capture)
    raw, result = tsh.read_fields(cmd, started=early.take(cmd, capture))
    tsh.check_readable(result, capture, rows=len(raw))
    bad: list[tuple[str, str]] = []
    if result.returncode != 0 or result.problems:
        text = "; ".join(result.notes) or f"tshark exited with {result.returncode}"
        bad.append((text, "capture damaged; events before the damage were kept"))
    multi = fields_messages.is_multi(raw)
    several = bool(multi.any())
    msgs = fields_messages.normalise(raw[~multi].reset_index(drop=True) if several else raw)
    infos = (
        [
            {str(k): v for k, v in r.items()}
            for r in fields_messages.normalise(raw[multi].reset_index(drop=True)).to_dict("records")
        ]
        if several
        else []
    )
    del raw  # tshark's rows: the events below reuse their memory (fewer fresh pages)
    if infos:
        extra = _split_multi(binary, capture, infos)
        if extra:
            msgs = pd.concat(
                [msgs, pd.DataFrame(extra, columns=list(http.MESSAGE_COLUMNS))], ignore_index=True
            )
            msgs = msgs.sort_values("frame", kind="stable").reset_index(drop=True)
    if not len(msgs) and not bad:  # no HTTP/1.x at all: say what the capture did hold
        streams = _payload_streams(binary, capture)
        if streams:
            bad.append(
                (
                    f"{plural(streams, 'TCP stream')} carrying data that tshark did not "
                    "dissect as HTTP/1.x",
                    "not HTTP/1.x (HTTP/0.9, TLS or another protocol)",
                )
            )
    frame = pcap_events.events(msgs, origin_path, cap=cap)
    if bad:
        frame = concat_frames([frame, pcap_events.unparsed_frame(origin_path, bad)])
        frame["seq"] = np.arange(len(frame), dtype=np.int64)
    return frame


def _payload_streams(binary: tsh.Tshark, capture: Path) -> int:
    """TCP streams of *capture* that carry data (a second pass, run only when the fields pass
    found no HTTP message): such a capture was read, and it is not empty of evidence."""
    flt = ["-Y", "tcp.len > 0", "-T", "fields", "-e", "tcp.stream"]
    data, _ = tsh.run_all([binary.path, "-n", "-r", str(capture), *tsh.PREFS, *flt])
    return len({line for line in data.decode("ascii", "replace").split() if line})


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
