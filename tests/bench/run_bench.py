"""`make bench`: ingest, diagnose and timeline figures as ratios against reference programs.

Each figure is the median of N alternating pairs (reference, toolcall) timed in this process on
this machine, so the ratio is comparable across machines. Peak memory is measured in a fresh
child process per size (ru_maxrss). Inputs are generated from fixed seeds and cached in .bench/.

    python tests/bench/run_bench.py [--quick] [--pairs N] [--no-readme]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fixtures.gen import bench_inputs  # noqa: E402

CACHE = ROOT / ".bench"
TSHARK_FIELDS = [
    "frame.number", "frame.time_epoch", "tcp.stream", "ip.src", "tcp.srcport", "http.request.method",
    "http.request.uri", "http.response.code", "http.request_in", "http.request.line", "http.response.line",
    "http.file_data",
]


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def pairs(ref: Callable[[], object], ours: Callable[[], object], n: int) -> tuple[float, float]:
    """Median seconds of *n* alternating runs of the reference and of toolcall."""
    r, o = [], []
    for _ in range(n):
        r.append(timed(ref))
        o.append(timed(ours))
    return statistics.median(r), statistics.median(o)


def inputs(quick: bool) -> dict[str, Path]:
    CACHE.mkdir(exist_ok=True)
    size = {"nginx": 100_000, "mw": 100_000, "pcap": 2_000} if quick else {"nginx": 1_000_000, "mw": 1_000_000, "pcap": 20_000}
    out = {}
    for name, gen, n, suffix in (
        ("nginx", bench_inputs.nginx, size["nginx"], "log"),
        ("mw", bench_inputs.middleware, size["mw"], "jsonl"),
        ("pcap", bench_inputs.pcap, size["pcap"], "pcap"),
    ):
        path = CACHE / f"{name}-{n}.{suffix}"
        if not path.exists():
            print(f"generating {path.name} …", file=sys.stderr)
            tmp = path.with_suffix(".tmp")
            gen(tmp, n)
            tmp.replace(path)
        out[name] = path
    return out


def ref_tshark(path: Path) -> None:
    cmd = ["tshark", "-r", str(path), "-n", "-Y", "http", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def ref_awk(path: Path) -> None:
    subprocess.run(["awk", "{print $1, $4, $6, $7, $9, $10}", str(path)], stdout=subprocess.DEVNULL, check=True)


def ref_orjson(path: Path) -> None:
    with path.open("rb") as f:
        for line in f:
            orjson.loads(line)


def peak_rss_child(code: str) -> int:
    """Peak RSS in bytes of a child Python running *code*."""
    child = subprocess.run(
        [sys.executable, "-c", code + "\nimport resource;print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    return int(child.stdout.strip().splitlines()[-1]) * 1024


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10× smaller inputs (smoke run)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--no-readme", action="store_true")
    a = ap.parse_args()
    if not shutil.which("tshark"):
        print("bench: tshark is required (make setup installs it)", file=sys.stderr)
        return 4

    from toolcall_cli.align import align
    from toolcall_cli.core.events import concat_frames
    from toolcall_cli.core.store import load_events, write_files
    from toolcall_cli.diagnose import diagnose_events
    from toolcall_cli.sources import parse_file

    files = inputs(a.quick)
    rows: list[dict[str, object]] = []

    def figure(name: str, ref_name: str, ref: Callable[[], object], ours: Callable[[], object], target: float) -> float:
        r, o = pairs(ref, ours, a.pairs)
        ratio = o / r
        rows.append({"figure": name, "reference": ref_name, "ref_s": r, "toolcall_s": o, "ratio": ratio,
                     "target": f"≤ {target}×", "ok": ratio <= target})
        print(f"{name:<34} ref {r:7.2f}s  toolcall {o:7.2f}s  ratio {ratio:5.2f}× (target ≤ {target}×)", file=sys.stderr)
        return o

    frames = {}
    t_pcap = figure("pcap ingest", "tshark -T fields", lambda: ref_tshark(files["pcap"]),
                    lambda: frames.__setitem__("pcap", parse_file(files["pcap"], source="pcap")), 1.5)
    t_ngx = figure("nginx ingest", "awk field split", lambda: ref_awk(files["nginx"]),
                   lambda: frames.__setitem__("nginx", parse_file(files["nginx"], source="nginx")), 4.0)
    t_mw = figure("middleware ingest", "orjson loads loop", lambda: ref_orjson(files["mw"]),
                  lambda: frames.__setitem__("mw", parse_file(files["mw"], source="middleware")), 2.0)

    # A store of ~1 M events built from the three inputs (half the nginx and middleware lines).
    half = {k: v.iloc[: len(v) // 2] if k != "pcap" else v for k, v in frames.items()}
    store = CACHE / "store"
    shutil.rmtree(store, ignore_errors=True)
    write_files(store, [(files[k], {"mw": "middleware"}.get(k, k), f) for k, f in half.items()])
    n_events = sum(len(f) for f in half.values())
    t_ingest = t_pcap + (t_ngx + t_mw) / 2
    events = load_events(store)
    t_diag = timed(lambda: diagnose_events(events))
    ratio = t_diag / t_ingest
    rows.append({"figure": f"diagnose over {n_events:,} events", "reference": "ingest of the same", "ref_s": t_ingest,
                 "toolcall_s": t_diag, "ratio": ratio, "target": "≤ 1.5×", "ok": ratio <= 1.5})
    print(f"diagnose {n_events} events: {t_diag:.2f}s vs ingest {t_ingest:.2f}s = {ratio:.2f}×", file=sys.stderr)

    def one_trace() -> None:
        ev = load_events(store, filters=[("trace_id", "==", "trace_42")])
        align(concat_frames([ev]))

    t_tl = statistics.median(timed(one_trace) for _ in range(a.pairs))
    rows.append({"figure": "timeline of one trace (store)", "reference": "absolute", "ref_s": None,
                 "toolcall_s": t_tl, "ratio": None, "target": "< 1 s", "ok": t_tl < 1.0})
    print(f"timeline one trace: {t_tl:.3f}s", file=sys.stderr)

    mem = {}
    for label, frac in (("100k", 10), ("1M", 1)):
        code = (
            "import sys; sys.path.insert(0, '.')\n"
            "from toolcall_cli.sources import parse_file\n"
            f"df = parse_file(__import__('pathlib').Path({str(files['mw'])!r}), source='middleware')\n"
            f"df = df.iloc[: len(df) // {frac}].copy()\n"
        )
        mem[label] = peak_rss_child(code)
    rows.append({"figure": "peak memory, 1 M middleware events", "reference": "absolute", "ref_s": None,
                 "toolcall_s": mem["1M"] / 2**20, "ratio": None, "target": "≤ 1024 MiB", "ok": mem["1M"] <= 2**30})
    print(f"peak RSS: 100k-run {mem['100k'] / 2**20:.0f} MiB, 1M {mem['1M'] / 2**20:.0f} MiB", file=sys.stderr)

    table = render(rows, quick=a.quick)
    print(table)
    (CACHE / "results.json").write_text(json.dumps(rows, indent=2, default=str))
    if not a.no_readme and not a.quick:
        update_readme(table)
    return 0 if all(r["ok"] for r in rows) else 1


def render(rows: list[dict[str, object]], *, quick: bool) -> str:
    head = (f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.machine()} · {platform.python_implementation()} "
            f"{platform.python_version()} · {_cpus()} cores{' (quick run)' if quick else ''}; rerun with `make bench`.\n\n")
    lines = ["| figure | reference | reference s | toolcall s | ratio | target | ok |", "|---|---|---:|---:|---:|---|---|"]
    for r in rows:
        ref_s = f"{r['ref_s']:.2f}" if r["ref_s"] is not None else "–"
        ratio = f"{r['ratio']:.2f}×" if r["ratio"] is not None else "–"
        unit = " MiB" if "memory" in str(r["figure"]) else ""
        lines.append(f"| {r['figure']} | {r['reference']} | {ref_s} | {r['toolcall_s']:.2f}{unit} | {ratio} | "
                     f"{r['target']} | {'yes' if r['ok'] else 'NO'} |")
    return head + "\n".join(lines) + "\n"


def _cpus() -> int:
    import os

    return os.cpu_count() or 0


def update_readme(table: str) -> None:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        readme.write_text(f"{before}{start}\n{table}{end}{after}", encoding="utf-8")


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
