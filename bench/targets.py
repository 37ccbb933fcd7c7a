"""Figures with a target, each on one input of a size the unit tests do not use:

- store: a store of 10,000 one-event middleware files (ten writes of 1,000, then compacted) is
  diagnosed by `toolcall diagnose` in under 30 CPU seconds (the command's own, as `make bench`
  judges its figures: wall time on a shared machine measures the other load);
- align: 50,000 middleware events (10,000 calls, 1,000 traces) are aligned in under 20 s;
- lint: BFCL v4's `live_multiple` file (4,178 tools, ../shared/corpus) is linted under the
  openai profile in under 30 s;
- store-vs-path: `toolcall diagnose --store` of a small store (the tau-bench files of
  ../shared/corpus, 19 and 134 conversations, each ingested alone) costs under 1.5x the
  command's CPU seconds of `toolcall diagnose FILE` on the same file (the worse of the two).

What each case checks functionally is a fast unit test on a smaller input (tests/model/
test_store_compaction.py, tests/align/test_align_keys.py, tests/lint/test_lint_corpus.py).
Prints one line per figure and exits 1 when a figure misses its target.

    python bench/targets.py [--only store,align,lint,store-vs-path]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
CORPUS = (ROOT.parent / "shared" / "corpus").resolve()
BFCL_BIG = "bfcl/gorilla_v4_data/BFCL_v4_live_multiple.json"


def middleware_inputs(root: Path, n: int) -> list[Path]:
    """*n* one-event middleware logs, 97 traces among them (tests/store/test_store_compaction.py
    builds its stores of them too)."""
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        line = {
            "ts": f"2025-03-01T12:{i // 60 % 60:02d}:{i % 60:02d}Z",
            "event": "tool_call.received",
            "trace_id": f"t{i % 97}",
            "tool_call_id": f"c{i}",
            "tool": "lookup",
            "msg": "tool call received",
        }
        path = root / f"mw{i:05d}.log"
        path.write_text(json.dumps(line) + "\n")
        paths.append(path)
    return paths


def frames_like_parsed(paths: list[Path]) -> list[pd.DataFrame]:
    """The events of `middleware_inputs` files, built from one parsed file by putting each
    file's own time, ids and origin in (parsing 10,000 files costs minutes and is not what is
    timed); checked against real parses of a spread of them."""
    from toolcall_cli.sources import parse_file

    template = parse_file(paths[0], source="middleware")
    frames = []
    for i, path in enumerate(paths):
        df = template.copy()
        values = {
            "ts": pd.Timestamp(f"2025-03-01T12:{i // 60 % 60:02d}:{i % 60:02d}Z"),
            "trace_id": f"t{i % 97}",
            "tool_call_id": f"c{i}",
            "origin": f"{path}:1",
        }
        for col, value in values.items():
            df[col] = pd.Series([value]).astype(template[col].dtype)
        frames.append(df)
    for i in (0, 1, 61, len(paths) // 2, len(paths) - 1):
        pd.testing.assert_frame_equal(frames[i], parse_file(paths[i], source="middleware"))
    return frames


def store_case(files: int = 10_000) -> tuple[float, str]:
    """CPU seconds of `toolcall diagnose` over a compacted store of *files* inputs."""
    from toolcall_cli.store import compact as store_compact
    from toolcall_cli.store.manifest import read_manifest
    from toolcall_cli.store.write import write_files

    with tempfile.TemporaryDirectory(prefix="toolcall-bench-") as tmp:
        paths = middleware_inputs(Path(tmp) / "in", files)
        frames = frames_like_parsed(paths)
        store = Path(tmp) / "store"
        step = files // 10
        for lo in range(0, files, step):  # ten ingests
            chunk = enumerate(paths[lo : lo + step], lo)
            write_files(store, ((p, "middleware", frames[i]) for i, p in chunk))
        store_compact.compact(store)
        assert len(read_manifest(store)["files"]) == files
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        done = subprocess.run(
            [TOOLCALL, "-q", "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp,
        )
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"diagnose failed: {done.stderr}")
    json.loads(done.stdout)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, f"{files:,} files, {wall:.1f} s wall"


def align_case(rows: int = 50_000) -> tuple[float, str]:
    """Wall seconds of `align` over *rows* middleware events."""
    from toolcall_cli.align import align
    from toolcall_cli.model.events import build_frame

    t0 = pd.Timestamp("2025-03-01T12:00:00Z")
    cols: dict[str, list[object]] = {
        "source": ["middleware"] * rows,
        "kind": ["mw_request"] * rows,
        "ts": [t0 + pd.Timedelta(milliseconds=i) for i in range(rows)],
        "seq": list(range(rows)),
        "origin": [f"mw.log:{i}" for i in range(rows)],
        "tool_call_id": [f"c{i // 5}" for i in range(rows)],
        "trace_id": [f"t{i // 50}" for i in range(rows)],
    }
    ev = build_frame(cols)
    start = time.perf_counter()
    tl = align(ev)
    took = time.perf_counter() - start
    assert tl.events["trace"].nunique() == rows // 50
    return took, f"{rows:,} events"


def lint_case() -> tuple[float, str]:
    """Wall seconds of linting BFCL v4's live_multiple file under the openai profile."""
    from toolcall_cli.lint import LintOptions, lint_paths

    path = CORPUS / BFCL_BIG
    if not path.exists():
        raise SystemExit(f"{path} is missing (../shared/corpus)")
    start = time.perf_counter()
    report = lint_paths([path], options=LintOptions(profile="openai", root=CORPUS))
    took = time.perf_counter() - start
    return took, f"{report.summary['tools']:,} tools"


TAU_BENCH = (
    "conversations/tau-bench/few_shot_data__MockAirlineDomainEnv-few_shot.jsonl",
    "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json",
)


def _cpu_of(args: list[str], cwd: str) -> float:
    """The CPU seconds of one `toolcall` process (its stdout must be JSON)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([TOOLCALL, "-q", *args], capture_output=True, text=True, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"toolcall {' '.join(args)} failed: {done.stderr}")
    json.loads(done.stdout)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def store_vs_path_case(runs: int = 3) -> tuple[float, str]:
    """The worse ratio, over the tau-bench files, of the best-of-*runs* CPU seconds of a
    diagnose of the file's store to those of a diagnose of the file."""
    worst, parts = 0.0, []
    for rel in TAU_BENCH:
        path = CORPUS / rel
        if not path.exists():
            raise SystemExit(f"{path} is missing (../shared/corpus)")
        with tempfile.TemporaryDirectory(prefix="toolcall-bench-") as tmp:
            subprocess.run(
                [TOOLCALL, "-q", "ingest", str(path), "--store", "s"], cwd=tmp, check=True
            )
            diagnose = ["diagnose", "-f", "json", "--fail-on", "never"]
            from_path = min(_cpu_of([*diagnose, str(path)], tmp) for _ in range(runs))
            from_store = min(_cpu_of([*diagnose, "--store", "s"], tmp) for _ in range(runs))
        worst = max(worst, from_store / from_path)
        parts.append(f"{path.name}: {from_store:.2f} / {from_path:.2f} CPU s")
    return worst, "; ".join(parts)


CASES: dict[str, tuple[Callable[[], tuple[float, str]], float, str]] = {
    "store": (store_case, 30.0, "CPU s"),
    "align": (align_case, 20.0, "s"),
    "lint": (lint_case, 30.0, "s"),
    "store-vs-path": (store_vs_path_case, 1.5, "x"),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    args = ap.parse_args()
    missed = 0
    for name in args.only.split(","):
        run, target, unit = CASES[name]
        figure, what = run()
        ok = figure < target
        missed += not ok
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"{name}: {figure:.1f} {unit} (target < {target:g}; {what}; load {load})"
            + ("" if ok else "  MISSED"),
            flush=True,
        )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
