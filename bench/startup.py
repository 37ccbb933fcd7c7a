"""The start-up section of `make bench`: short commands timed against `python -c pass`.

A command that reads one small file is dominated by imports, so each figure is the median wall
time of N fresh processes next to the median of N `python -c pass` runs (alternating, same
interpreter, same machine): the difference is what toolcall's imports and work cost. Targets
are that difference, in seconds (`toolcall --help` should cost what typer costs). Beside it,
the median CPU seconds (user + system, tshark included) of the toolcall runs: on a shared,
loaded machine the wall figure grows with the load, the CPU figure much less.

    python bench/run_bench.py --only startup [--startup-runs N]
"""

from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
Row = dict[str, Any]
START, END = "<!-- bench-startup:start -->", "<!-- bench-startup:end -->"

#: (figure, toolcall argv, target: seconds over `python -c pass`)
CASES: tuple[tuple[str, tuple[str, ...], float], ...] = (
    ("toolcall --help", ("--help",), 0.15),
    ("toolcall rules FL001", ("rules", "FL001"), 0.2),
    ("toolcall lint, one small file", ("lint", "fixtures/schemas/openai_tools.json"), 0.4),
    (
        "toolcall diagnose, demo bundle",
        ("diagnose", "fixtures/incidents/flooding-model-loop"),
        0.6,
    ),
)


def _wall(argv: list[str]) -> float:
    return _run(argv)[0]


def _run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and the children it waited for)."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode()[:300]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def startup_rows(runs: int = 7) -> list[Row]:
    """One row per case: medians of *runs* alternating (python -c pass, toolcall …) processes."""
    toolcall = str(Path(sys.executable).with_name("toolcall"))
    ref_argv = [sys.executable, "-c", "pass"]
    rows: list[Row] = []
    for name, args, target in CASES:
        argv = [toolcall, *args]
        _wall(ref_argv), _wall(argv)  # warm the page cache and .pyc files
        ref, ours, cpu = [], [], []
        for _ in range(runs):
            ref.append(_wall(ref_argv))
            wall, used = _run(argv)
            ours.append(wall)
            cpu.append(used)
        r, o = statistics.median(ref), statistics.median(ours)
        rows.append(
            {
                "figure": name,
                "ref_s": r,
                "toolcall_s": o,
                "cpu_s": statistics.median(cpu),
                "load": os.getloadavg()[0],  # the 1-minute load average when the row ended
                "over_s": o - r,
                "target": f"≤ +{target} s",
                "ok": o - r <= target,
            }
        )
        print(
            f"start-up {name:<32} python -c pass {r:.3f}s  toolcall {o:.3f}s  "
            f"(+{o - r:.3f}s; target ≤ +{target}s; CPU {rows[-1]['cpu_s']:.3f}s)",
            file=sys.stderr,
            flush=True,
        )
    return rows


def render_startup(rows: list[Row], *, runs: int) -> str:
    """bench/README.md's start-up block: when, where, and one line per command."""
    loads = [float(r["load"]) for r in rows] or [os.getloadavg()[0]]
    low, high = min(loads), max(loads)
    load = f"{low:.1f}" if high - low < 0.05 else f"{low:.1f}–{high:.1f}"
    head = (
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, "
        f"{os.cpu_count() or 0} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, load average {load}. Medians of {runs} "
        "alternating runs; `python -c pass` is the reference. Rerun with "
        "`python bench/run_bench.py --only startup`.\n\n"
    )
    lines = [
        "| start-up | python -c pass | toolcall | over python | target | met | toolcall CPU |",
        "|---|---:|---:|---:|---|---|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['figure']} | {r['ref_s']:.3f} s | {r['toolcall_s']:.3f} s "
            f"| +{r['over_s']:.3f} s | {r['target']} | {'yes' if r['ok'] else '**no**'} "
            f"| {r['cpu_s']:.3f} s |"
        )
    return head + "\n".join(lines) + "\n"


def update_readme_startup(block: str) -> None:
    """Replace bench/README.md's start-up block (between its markers) with *block*."""
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text(encoding="utf-8")
    if START in text and END in text:
        before, rest = text.split(START, 1)
        _, after = rest.split(END, 1)
        readme.write_text(f"{before}{START}\n{block}{END}{after}", encoding="utf-8")
