"""`make bench`: ingest, diagnose and timeline figures as ratios against reference programs.

Each ratio is the median of N alternating pairs (reference, toolcall) timed in this process on
this machine, so it carries across machines and survives a loaded box better than seconds do.
Inputs are generated from fixed seeds and cached in .bench/ (gitignored):

- pcap: `toolcall`'s pcap adapter vs the bare `tshark -T fields` pass over the same fields,
  preferences and display filter (written to /dev/null) on a 20,000-exchange capture;
- nginx: 1 M combined+trailing-keys lines vs `awk` splitting the combined fields;
- middleware: 1 M JSON lines vs an orjson `loads` loop;
- otel: 1 M spans of OTLP/JSON lines (collector file exporter shape) vs an orjson loop, in this
  process (CPU ratio) and as `toolcall ingest` against a `python -c` loop (CPU, peak memory);
- diagnose: a store of ~1 M events (nginx 500 k + middleware 500 k lines + the capture) read
  and diagnosed, vs ingesting (parsing + writing) those same files into the store;
- timeline: one trace from that store (`load_selected` + `align` + `select_traces`, as the command
  does); the figure is CPU seconds of work (wall seconds are printed beside it);
- memory: peak RSS of a fresh child that ingests ~100 k and ~1 M events (each from its own
  input of that size) into a throwaway store, minus an imports-only child; linear growth
  means the 1 M run costs ~10× the 100 k run, not ~100×;
- startup: `toolcall --help`, `rules FL001`, `lint` of one file and `diagnose` of a demo
  bundle against `python -c pass` (bench/startup.py; its own README block).

    python bench/run_bench.py [--quick] [--pairs N] [--no-readme] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.startup import render_startup, startup_rows, update_readme_startup  # noqa: E402
from fixtures.gen import bench_inputs  # noqa: E402
from fixtures.gen.otel import bench as otel_bench  # noqa: E402

CACHE = ROOT / ".bench"
TRACE = "trace_42"
Row = dict[str, Any]


def _cpu() -> float:
    """CPU seconds of this process (all threads) plus its waited-for children."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    t, c = time.perf_counter(), _cpu()
    fn()
    return time.perf_counter() - t, _cpu() - c


@dataclass(frozen=True, slots=True)
class Pair:
    """Medians over alternating (reference, toolcall) runs."""

    ref_s: float
    ours_s: float
    ratio: float  # median of the per-pair wall ratios
    cpu_ratio: float  # median of the per-pair CPU ratios


def pairs(ref: Callable[[], object], ours: Callable[[], object], n: int) -> Pair:
    """*n* alternating runs of the reference and of toolcall."""
    r, o = [], []
    for _ in range(n):
        r.append(timed(ref))
        o.append(timed(ours))
    return Pair(
        statistics.median(w for w, _ in r),
        statistics.median(w for w, _ in o),
        statistics.median(b[0] / a[0] for a, b in zip(r, o, strict=True)),
        statistics.median(b[1] / a[1] for a, b in zip(r, o, strict=True)),
    )


# ---------------------------------------------------------------- inputs


def _cached(name: str, make: Callable[[Path], object]) -> Path:
    CACHE.mkdir(exist_ok=True)
    path = CACHE / name
    if not path.exists():
        print(f"bench: generating {path.name} …", file=sys.stderr, flush=True)
        tmp = path.with_name(path.name + ".tmp")
        make(tmp)
        tmp.replace(path)
    return path


def _head(src: Path, lines: int) -> Callable[[Path], object]:
    """The first *lines* lines of *src* (the line generators are prefix-stable per seed)."""

    def make(dst: Path) -> None:
        with src.open("rb") as f, dst.open("wb") as out:
            for i, line in enumerate(f):
                if i >= lines:
                    break
                out.write(line)

    return make


def inputs(n: int) -> dict[str, Path]:
    """Files for scale *n*: nginx/middleware of *n* lines, halves of them, a capture of n/50."""
    nginx = _cached(f"nginx-{n}.log", lambda p: bench_inputs.nginx(p, n))
    mw = _cached(f"mw-{n}.jsonl", lambda p: bench_inputs.middleware(p, n))
    return {
        "nginx": nginx,
        "mw": mw,
        "pcap": _cached(f"pcap-{n // 50}.pcap", lambda p: bench_inputs.pcap(p, n // 50)),
        "nginx_half": _cached(f"nginx-{n // 2}.log", _head(nginx, n // 2)),
        "mw_half": _cached(f"mw-{n // 2}.jsonl", _head(mw, n // 2)),
    }


def store_inputs(files: dict[str, Path]) -> list[tuple[Path, str]]:
    """The ~n-event mix a store (and the memory child) is built from."""
    return [
        (files["nginx_half"], "nginx"),
        (files["mw_half"], "middleware"),
        (files["pcap"], "pcap"),
    ]


# ---------------------------------------------------------------- references


def ref_tshark(path: Path) -> None:
    """The adapter's own tshark pass (same fields, prefs, filter), output discarded."""
    subprocess.run(
        ref_tshark_cmd(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
    )


def ref_tshark_cmd(path: Path) -> list[str]:
    """The adapter's own tshark command line (same fields, prefs, filter)."""
    from toolcall_cli.sources.pcap.tshark import AGGREGATOR, DISPLAY_FILTER, FIELDS, PREFS

    cmd = [
        "tshark",
        "-r",
        str(path),
        "-n",
        *PREFS,
        "-Y",
        DISPLAY_FILTER,
        "-T",
        "fields",
        "-E",
        "separator=/t",
        "-E",
        "occurrence=a",
        "-E",
        f"aggregator={AGGREGATOR}",
    ]
    for f in FIELDS:
        cmd += ["-e", f]
    return cmd


def ref_awk(path: Path) -> None:
    """Split the combined part: client, time, method, path, status, bytes."""
    subprocess.run(
        ["awk", "{print $1, $4, $6, $7, $9, $10}", str(path)], stdout=subprocess.DEVNULL, check=True
    )


def ref_orjson(path: Path) -> None:
    with path.open("rb") as f:
        for line in f:
            orjson.loads(line)


# ---------------------------------------------------------------- toolcall side


def ingest(parts: list[tuple[Path, str]], store: Path | None) -> int:
    """Parse *parts* (and write them to *store*), as `toolcall ingest` does — one file at a
    time, each written before the next is parsed; the event count."""
    from toolcall_cli.sources import parse_file
    from toolcall_cli.store.write import write_files

    n = 0

    def parsed() -> Iterator[tuple[Path, str, Any]]:
        nonlocal n
        for p, s in parts:
            df = parse_file(p, source=s)
            n += len(df)
            yield p, s, df
            del df  # not alive while the next file is parsed

    if store is None:
        for _ in parsed():
            pass
    else:
        shutil.rmtree(store, ignore_errors=True)
        write_files(store, parsed())
    return n


def diagnose_store(store: Path, *, timeout: float) -> None:
    """`toolcall diagnose` over *store* in a fresh child (imports included, as a user pays them);
    a TimeoutError when it runs past *timeout* seconds."""
    cmd = [
        str(Path(sys.executable).with_name("toolcall")),
        "diagnose",
        "--store",
        str(store),
        "--format",
        "json",
        "--fail-on",
        "never",
        "-o",
        os.devnull,
    ]
    try:
        subprocess.run(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            cwd=ROOT,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError from None


def timeline_one(store: Path, trace: str) -> int:
    from toolcall_cli.align import align
    from toolcall_cli.align.select import select_traces
    from toolcall_cli.store.read_selection import load_selected

    events = load_selected(store, trace_id=trace)
    report = select_traces(
        align(events),
        trace_id=trace,
        session_id=None,
        tool_call_id=None,
        since=None,
        until=None,
        limit=10,
    )
    return len(events) if report.traces else 0


_CHILD = """
import sys
sys.path.insert(0, {root!r})
sys.path.insert(0, {here!r})
import run_bench
from pathlib import Path
parts = {parts!r}
n = run_bench.ingest([(Path(p), s) for p, s in parts], Path({store!r})) if parts else 0
# VmHWM, not ru_maxrss: the latter keeps the parent's high-water mark across fork + exec
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(n, int(hwm) * 1024)
"""


def peak_rss_child(parts: list[tuple[Path, str]]) -> tuple[int, int]:
    """(events, peak RSS bytes) of a fresh child ingesting *parts* into a throwaway store."""
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        code = _CHILD.format(
            root=str(ROOT),
            here=str(Path(__file__).parent),
            store=str(Path(tmp) / "store"),
            parts=[(str(p), s) for p, s in parts],
        )
        child = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
        )
    n, rss = child.stdout.split()[-2:]
    return int(n), int(rss)


# ---------------------------------------------------------------- main


def compile_package() -> None:
    """Byte-compile toolcall_cli, as `pip install` does for an installed package.

    An editable checkout run with PYTHONDONTWRITEBYTECODE set (as this machine's shell is)
    never writes its .pyc files, so every `toolcall` the bench starts would recompile each
    module changed since the last compile (~0.15 CPU s per run): a cost no installed copy pays.
    """
    import compileall

    compileall.compile_dir(str(ROOT / "toolcall_cli"), quiet=1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10× smaller inputs (smoke run)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--no-readme", action="store_true")
    ap.add_argument(
        "--diagnose-pairs", type=int, default=None, help="pairs for the diagnose figure"
    )
    ap.add_argument(
        "--diagnose-timeout",
        type=float,
        default=900.0,
        help="give up on one diagnose run after S s",
    )
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated: pcap,nginx,mw,otel,diagnose,timeline,memory,cli,startup",
    )
    ap.add_argument("--startup-runs", type=int, default=7, help="runs per start-up figure")
    a = ap.parse_args()
    compile_package()
    only = set(filter(None, a.only.split(",")))
    want = lambda k: not only or k in only  # noqa: E731
    heavy = not only or bool(only - {"startup"})  # anything but start-up needs the big inputs
    shared = not only or bool(only - {"startup", "otel"})  # the otel rows bring their own file
    if shared and not shutil.which("tshark"):
        print("bench: tshark is required (make setup installs it)", file=sys.stderr)
        return 4
    n = 100_000 if a.quick else 1_000_000
    files = inputs(n) if shared else {}
    small = inputs(n // 10) if want("memory") else {}
    rows: list[Row] = []

    def figure(
        name: str,
        ref_name: str,
        ref: Callable[[], object],
        ours: Callable[[], object],
        target: float,
        *,
        n_pairs: int | None = None,
    ) -> None:
        p = pairs(ref, ours, n_pairs or a.pairs)
        rows.append(
            {
                "figure": name,
                "reference": ref_name,
                "ref_s": p.ref_s,
                "toolcall_s": p.ours_s,
                "ratio": p.ratio,
                "cpu_ratio": p.cpu_ratio,
                "target": f"≤ {target}×",
                "ok": p.ratio <= target,
            }
        )
        print(
            f"{name:<34} ref {p.ref_s:7.2f}s  toolcall {p.ours_s:7.2f}s  ratio {p.ratio:5.2f}× "
            f"(CPU {p.cpu_ratio:5.2f}×; target ≤ {target}×)",
            file=sys.stderr,
            flush=True,
        )

    k = f"{n // 50:,}"
    if want("pcap"):
        figure(
            f"pcap ingest, {k} exchanges",
            "tshark -T fields (same fields)",
            lambda: ref_tshark(files["pcap"]),
            lambda: ingest([(files["pcap"], "pcap")], None),
            1.5,
        )
    if want("nginx"):
        figure(
            f"nginx ingest, {n:,} lines",
            "awk field split",
            lambda: ref_awk(files["nginx"]),
            lambda: ingest([(files["nginx"], "nginx")], None),
            4.0,
        )
    if want("mw"):
        figure(
            f"middleware ingest, {n:,} lines",
            "orjson loads loop",
            lambda: ref_orjson(files["mw"]),
            lambda: ingest([(files["mw"], "middleware")], None),
            2.0,
        )
    if want("otel"):  # issue 17: ≤ 3× an orjson loop in CPU, the command within 1 GiB
        from bench.cli_bench import otel_cli_row

        spans = n
        otlp = _cached(f"otel-{spans}.jsonl", lambda p: otel_bench.spans(p, spans))
        figure(
            f"otel ingest, {spans:,} spans",
            "orjson loads loop",
            lambda: ref_orjson(otlp),
            lambda: ingest([(otlp, "otel")], None),
            3.0,
        )
        rows[-1].update(target="≤ 3.0× CPU", ok=rows[-1]["cpu_ratio"] <= 3.0)
        rows.append(otel_cli_row(otlp, spans, a.pairs))

    store = CACHE / f"store-{n}"
    parts = store_inputs(files) if files else []
    if want("diagnose") or want("timeline"):
        n_events = ingest(parts, store)
    if want("diagnose"):
        name = f"diagnose, store of {n_events:,} events"
        try:
            figure(
                name,
                "ingest of the same",
                lambda: ingest(parts, store),
                lambda: diagnose_store(store, timeout=a.diagnose_timeout),
                1.5,
                n_pairs=a.diagnose_pairs,
            )
        except TimeoutError:
            ref, _ = timed(lambda: ingest(parts, store))
            rows.append(
                {
                    "figure": name,
                    "reference": "ingest of the same",
                    "ref_s": ref,
                    "toolcall_s": a.diagnose_timeout,
                    "ratio": a.diagnose_timeout / ref,
                    "over": True,
                    "target": "≤ 1.5×",
                    "ok": False,
                }
            )
            print(
                f"{name}: still running after {a.diagnose_timeout:.0f}s (ingest {ref:.1f}s): "
                f"> {a.diagnose_timeout / ref:.1f}×",
                file=sys.stderr,
                flush=True,
            )
    if want("timeline"):
        cpu, wall = [], []
        for _ in range(max(a.pairs, 3)):
            c0, w0 = time.process_time(), time.perf_counter()
            got = timeline_one(store, TRACE)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        t = statistics.median(cpu)
        rows.append(
            {
                "figure": f"timeline of one trace ({got} events)",
                "reference": "CPU s of work",
                "ref_s": None,
                "toolcall_s": t,
                "ratio": None,
                "target": "< 1 s",
                "ok": t < 1.0 and got > 0,
            }
        )
        print(
            f"timeline one trace: {t:.3f} CPU s "
            f"({statistics.median(wall):.3f} wall s), {got} events",
            file=sys.stderr,
            flush=True,
        )
    if want("memory"):
        _, base = peak_rss_child([])
        n_small, rss_small = peak_rss_child(store_inputs(small))
        n_big, rss_big = peak_rss_child(parts)
        growth = (rss_big - base) / max(rss_small - base, 1)
        scale = n_big / n_small
        mib = 2**20
        rows.append(
            {
                "figure": f"peak memory, ingest of {n_big:,} events",
                "reference": f"imports only {base / mib:.0f} MiB",
                "ref_s": None,
                "toolcall_s": rss_big / mib,
                "ratio": None,
                "target": "≤ 1024 MiB",
                "ok": rss_big <= 2**30,
                "unit": "MiB",
            }
        )
        rows.append(
            {
                "figure": f"memory growth, {n_small:,} → {n_big:,} events",
                "reference": f"{scale:.1f}× the events",
                "ref_s": None,
                "toolcall_s": growth,
                "ratio": None,
                "target": f"≤ {scale * 1.5:.0f}× (linear)",
                "ok": growth <= scale * 1.5,
                "unit": "×",
            }
        )
        print(
            f"peak RSS: imports {base / mib:.0f} MiB, {n_small} events {rss_small / mib:.0f} MiB, "
            f"{n_big} events {rss_big / mib:.0f} MiB; "
            f"growth {growth:.1f}× for {scale:.1f}× the events",
            file=sys.stderr,
            flush=True,
        )

    if want("cli"):  # the command as users run it, beside the in-process figures above
        from bench.cli_bench import cli_rows

        rows += cli_rows(files, _cached, parts, CACHE / f"cli-store-{n}", a.pairs)
    started: list[Row] = []
    if want("startup"):
        started = startup_rows(a.startup_runs)
        block = render_startup(started, runs=a.startup_runs)
        print(block)
        if not a.no_readme:
            update_readme_startup(block)
    if heavy:
        table = render(rows, quick=a.quick, pairs_n=a.pairs)
        print(table)
        CACHE.mkdir(exist_ok=True)
        (CACHE / ("results-quick.json" if a.quick else "results.json")).write_text(
            json.dumps(rows + started, indent=2, default=str)
        )
        if not a.no_readme and not a.quick and not only:
            update_readme(table)
    return 0 if all(r["ok"] for r in rows + started) else 1


def render(rows: list[Row], *, quick: bool, pairs_n: int) -> str:
    load = os.getloadavg()[0]
    head = (
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, "
        f"{_cpus()} cores, "
        f"{platform.python_implementation()} {platform.python_version()}, load average {load:.1f}"
        f"{' (quick run)' if quick else ''}. Ratios are the median of {pairs_n} alternating "
        "(reference, toolcall) pairs. Rerun with `make bench` (`--quick` for a smoke run).\n\n"
    )
    lines = [
        "| figure | reference | reference s | toolcall | ratio (wall) | ratio (CPU) "
        "| floor (CPU) | target | met |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        ref_s = f"{r['ref_s']:.2f}" if r["ref_s"] is not None else "–"
        ratio = (
            f"{'> ' if r.get('over') else ''}{r['ratio']:.2f}×" if r["ratio"] is not None else "–"
        )
        cpu = f"{r['cpu_ratio']:.2f}×" if r.get("cpu_ratio") is not None else "–"
        floor = f"{r['floor_cpu_ratio']:.2f}×" if r.get("floor_cpu_ratio") is not None else "–"
        unit = r.get("unit", "s")
        val = (
            f"{r['toolcall_s']:.0f} MiB"
            if unit == "MiB"
            else f"{r['toolcall_s']:.1f}×"
            if unit == "×"
            else f"{'> ' if r.get('over') else ''}{r['toolcall_s']:.2f} s"
        )
        if r.get("peak_mib") is not None:  # whole-process figures: the child's peak memory
            val += f", peak {r['peak_mib']:.0f} MiB"
        lines.append(
            f"| {r['figure']} | {r['reference']} | {ref_s} | {val} | {ratio} | {cpu} "
            f"| {floor} | {r['target']} | "
            f"{'yes' if r['ok'] else '**no**'} |"
        )
    return head + "\n".join(lines) + "\n"


def _cpus() -> int:
    return os.cpu_count() or 0


def update_readme(table: str) -> None:
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text(encoding="utf-8")
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        readme.write_text(f"{before}{start}\n{table}{end}{after}", encoding="utf-8")


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
