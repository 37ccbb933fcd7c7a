"""Whole-process figures for `make bench`: the `toolcall` command as users run it (start-up,
detection, rendering and all), against reference programs run as processes in the same run,
on two line shapes each, with the peak memory of every toolcall run.

- middleware: `toolcall ingest --no-store` vs a `python -c` orjson `loads` loop over the file;
- nginx: vs `awk` splitting the combined fields, and vs GoAccess (`make bench` installs it);
- pcap: vs the adapter's own `tshark -T fields` pass;
- diagnose: `toolcall diagnose` of a store vs `toolcall ingest` of the same files.

The middleware and nginx-vs-awk figures also time their floor (floor.py: start-up and Arrow's
bare reader over the file) against the same reference, in the same pairs.

Shapes: *compact* is the generator's line; *wide* adds what production lines carry (long user
agents and trailing keys in nginx; arguments, headers and a long message in middleware JSON).
Peak memory is the child's own high-water mark (`wait4` rusage), not this process's.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

_UA = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Safari/537.36 agent-sdk/4.2.1 (python 3.12; linux; x86_64)"
)
_NGINX_TAIL = (
    " upstream_addr=10.0.3.4:8080 upstream_status=200 request_length=2048 "
    "ssl_protocol=TLSv1.3 cache=MISS region=eu-west-1 pod=gw-7f9c6d-abcde"
)
_AGENT = re.compile(rb'"agent/[^"]*"')  # the generator's user agent (agent/1.0 … agent/1.8)
Row = dict[str, Any]


def wide_nginx(src: Path, dst: Path) -> None:
    """*src*'s lines with a long user agent and seven more trailing keys."""
    with src.open("rb") as f, dst.open("wb") as out:
        for line in f:
            text = _AGENT.sub(f'"{_UA}"'.encode(), line.rstrip(b"\n"), count=1)
            out.write(text + _NGINX_TAIL.encode() + b"\n")


def wide_middleware(src: Path, dst: Path) -> None:
    """*src*'s JSON lines with arguments, request headers and a longer message."""
    with src.open("rb") as f, dst.open("wb") as out:
        for i, line in enumerate(f):
            rec = orjson.loads(line)
            rec["arguments"] = orjson.dumps(
                {"city": f"city-{i % 500}", "days": i % 7, "units": "metric", "lang": "en"}
            ).decode()
            rec["headers"] = {"user-agent": _UA, "x-request-id": f"r-{i}", "accept": "*/*"}
            rec["msg"] = f"{rec.get('msg', '')} (upstream pool tools-v2, attempt 1 of 3)"
            rec["latency_ms"] = i % 900
            out.write(orjson.dumps(rec) + b"\n")


def run(cmd: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS bytes) of one process run to completion, output discarded."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def toolcall(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("toolcall")), "-q", *args]


def ingest_cmd(path: Path, source: str) -> list[str]:
    return toolcall(
        "ingest", "--no-store", "--source", source, "-f", "json", "-o", os.devnull, str(path)
    )


def orjson_cmd(path: Path) -> list[str]:
    code = "import orjson,sys\nfor l in open(sys.argv[1],'rb'): orjson.loads(l)"
    return [sys.executable, "-c", code, str(path)]


def awk_cmd(path: Path) -> list[str]:
    return ["awk", "{print $1, $4, $6, $7, $9, $10}", str(path)]


def goaccess_cmd(path: Path, out: Path) -> list[str] | None:
    exe = shutil.which("goaccess")
    if exe is None:
        return None
    return [exe, str(path), "--log-format=COMBINED", "--no-global-config", "-o", str(out)]


def floor_cmd(path: Path, source: str) -> list[str]:
    """start-up and Arrow's bare reader over *path* (bench/floor.py)."""
    return [sys.executable, str(Path(__file__).with_name("floor.py")), source, str(path)]


def figure(
    name: str,
    ref_name: str,
    ref: list[str],
    ours: list[str],
    target: float,
    n: int,
    floor: list[str] | None = None,
) -> Row:
    """Median of *n* alternating (reference, toolcall) process runs. Met is judged on CPU
    seconds: the bench machine is shared, and wall ratios there say more about the neighbours
    than about toolcall (both ratios are reported). A *floor* command (floor.py) runs between
    the two in each pair: its CPU ratio is what toolcall cannot go under with its readers."""
    pairs, floors = [], []
    for _ in range(n):
        first = run(ref)
        if floor is not None:
            floors.append(run(floor)[1] / first[1])
        pairs.append((first, run(ours)))
    cpu_ratio = statistics.median(b[1] / a[1] for a, b in pairs)
    row: Row = {
        "figure": name,
        "reference": ref_name,
        "ref_s": statistics.median(a[0] for a, _ in pairs),
        "toolcall_s": statistics.median(b[0] for _, b in pairs),
        "ratio": statistics.median(b[0] / a[0] for a, b in pairs),
        "cpu_ratio": cpu_ratio,
        "ref_cpu_s": statistics.median(a[1] for a, _ in pairs),
        "toolcall_cpu_s": statistics.median(b[1] for _, b in pairs),
        "peak_mib": max(b[2] for _, b in pairs) / 2**20,
        "load": os.getloadavg()[0],
        "target": f"≤ {target}×",
        "ok": cpu_ratio <= target,
        "floor_cpu_ratio": statistics.median(floors) if floors else None,
    }
    below = ""
    if floors:
        below = f", floor {row['floor_cpu_ratio']:.2f}× CPU"
        if row["floor_cpu_ratio"] > target:
            below += " (the target is under it)"
    print(
        f"{name} vs {ref_name}: {row['ref_s']:.2f} s / {row['toolcall_s']:.2f} s wall, "
        f"{row['ref_cpu_s']:.2f} / {row['toolcall_cpu_s']:.2f} CPU s: {row['ratio']:.2f}× wall, "
        f"{row['cpu_ratio']:.2f}× CPU, peak {row['peak_mib']:.0f} MiB, load {row['load']:.1f}"
        f"{below}",
        file=sys.stderr,
        flush=True,
    )
    return row


def otel_cli_row(path: Path, spans: int, n: int) -> Row:
    """`toolcall ingest` of *spans* OTLP/JSON spans against a `python -c` orjson loop (issue
    17: within 3× in CPU seconds and 1 GiB of peak memory)."""
    row = figure(
        f"CLI otel ingest, {spans:,} spans",
        "python orjson loop",
        orjson_cmd(path),
        ingest_cmd(path, "otel"),
        3.0,
        n,
    )
    ok = row["cpu_ratio"] <= 3.0 and row["peak_mib"] <= 1024
    return {**row, "target": "≤ 3.0× CPU, ≤ 1024 MiB", "ok": ok}


def _missing(name: str, ref: str, target: float) -> Row:
    return {
        "figure": name,
        "reference": ref,
        "ref_s": None,
        "toolcall_s": float("nan"),
        "ratio": None,
        "target": f"≤ {target}×",
        "ok": False,
    }


def cli_rows(
    files: dict[str, Path],
    cached: Callable[[str, Callable[[Path], object]], Path],
    store_parts: list[tuple[Path, str]],
    store: Path,
    n: int,
) -> list[Row]:
    """Every whole-process figure (see the module docstring)."""
    wide = {
        "mw": cached(f"{files['mw'].stem}-wide.jsonl", lambda p: wide_middleware(files["mw"], p)),
        "nginx": cached(f"{files['nginx'].stem}-wide.log", lambda p: wide_nginx(files["nginx"], p)),
    }
    rows: list[Row] = []
    for shape, mw, ng in (
        ("compact", files["mw"], files["nginx"]),
        ("wide", wide["mw"], wide["nginx"]),
    ):
        lines = f"{sum(1 for _ in mw.open('rb')):,}"
        rows.append(
            figure(
                f"CLI middleware ingest, {lines} {shape} lines",
                "python orjson loop",
                orjson_cmd(mw),
                ingest_cmd(mw, "middleware"),
                2.0,
                n,
                floor_cmd(mw, "middleware"),
            )
        )
        rows.append(
            figure(
                f"CLI nginx ingest, {lines} {shape} lines",
                "awk field split",
                awk_cmd(ng),
                ingest_cmd(ng, "nginx"),
                3.0,
                n,
                floor_cmd(ng, "nginx"),
            )
        )
        goaccess = goaccess_cmd(ng, store.parent / "goaccess.json")
        if goaccess is None:
            rows.append(_missing(f"CLI nginx ingest, {shape}", "GoAccess (not installed)", 0.15))
        else:
            rows.append(
                figure(
                    f"CLI nginx ingest, {lines} {shape} lines",
                    "GoAccess",
                    goaccess,
                    ingest_cmd(ng, "nginx"),
                    0.15,
                    n,
                )
            )
    pcap = files["pcap"]
    from bench.run_bench import ref_tshark_cmd  # the adapter's own fields and filter

    rows.append(
        figure(
            "CLI pcap ingest, compact exchanges",
            "tshark -T fields",
            ref_tshark_cmd(pcap),
            ingest_cmd(pcap, "pcap"),
            1.3,
            n,
        )
    )
    ref_store = f"{store}.ref"
    args = " ".join(f"'{p}'" for p, _ in store_parts)
    ingest = [
        "sh",
        "-c",
        f"rm -rf '{ref_store}' && exec {' '.join(toolcall())} ingest --store '{ref_store}' {args}",
    ]
    run(toolcall("ingest", "--store", str(store), *(str(p) for p, _ in store_parts)))
    diagnose = toolcall(
        "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never", "-o", os.devnull
    )
    rows.append(
        figure(
            "CLI diagnose of the store", "CLI ingest of the same files", ingest, diagnose, 1.5, n
        )
    )
    return rows
