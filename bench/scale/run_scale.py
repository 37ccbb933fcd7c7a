"""`make bench-scale`: a seeded ~10 M-event bundle ingested, diagnosed and queried within a budget.

Each step runs the CLI as users run it, in a child process whose whole process tree is
watched: peak RSS is sampled every 0.2 s and the step is killed the moment it passes the
budget (4 GiB by default), so an over-budget run says so instead of swapping the machine.
Then every planted incident (bench/scale/bundle.py) must be among the findings, a
group-by over the events is timed through `toolcall query`, and so are the timeline and the
replay of one trace (a planted flood cancellation's). The bundle is cached in
`.bench/scale-<events>/` (gitignored); figures go to bench/README.md between the
`bench-scale` markers.

Diagnose runs as users run it (one process, bucket by bucket: diagnose/run_store.py), then
with `--workers W` (default 2: the machine's cores; a process pool over the same buckets),
whose findings must be the one-process run's. The scaling figure diagnoses a smaller store
(`--scaling-events`, or a copy of an existing store: `--scaling-store DIR`) on a Dask
`LocalCluster` of one worker, then two, through `--engine dask`, and checks that both give the
findings of a one-process run. Each step reports wall and CPU (user + sys of its process tree;
for the cluster runs also the workers' own, read from each worker) seconds and the load average
when it ended. `--scaling-only` runs the scaling figure alone and rewrites only its paragraph of
bench/README.md (between the `bench-scale-scaling` markers).

    python bench/scale/run_scale.py [--events N] [--workers W] [--budget-gib G]
        [--scaling-events N] [--scaling-store DIR] [--scaling-only] [--no-readme]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.scale.bundle import Planted, write_bundle  # noqa: E402

TOOLCALL = ROOT / ".venv" / "bin" / "toolcall"
GROUP_BY = "SELECT instance, kind, count(*) AS n FROM events GROUP BY ALL ORDER BY ALL"
P95 = (
    "SELECT tool, count(*) AS calls, quantile_cont(service_ms, 0.95) AS p95_ms FROM calls "
    "WHERE service_ms IS NOT NULL GROUP BY tool ORDER BY tool"
)
BEGIN, END = "<!-- bench-scale:begin -->", "<!-- bench-scale:end -->"
SCALING_BEGIN = "<!-- bench-scale-scaling:begin -->"
SCALING_END = "<!-- bench-scale-scaling:end -->"


@dataclass(frozen=True, slots=True)
class Step:
    """One timed child: wall seconds, peak RSS of its process tree, how it ended."""

    name: str
    seconds: float
    peak_bytes: int
    exit_code: int
    over_budget: bool
    cpu_seconds: float = 0.0
    load: float = 0.0


def _tree_rss(pid: int) -> int:
    """Resident bytes of *pid* and its descendants (from /proc)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def run_step(name: str, argv: list[str], *, budget: int, log: Path) -> Step:
    """Run *argv*, sampling its tree's RSS; kill it when it passes *budget* bytes."""
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with log.open("w") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        peak, over = 0, False
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            if peak > budget:
                over = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.2)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the tree, as its processes end
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return Step(name, time.perf_counter() - start, peak, proc.returncode, over, cpu,
                os.getloadavg()[0])  # fmt: skip


def missing_incidents(findings: list[dict[str, Any]], planted: list[Planted]) -> list[Planted]:
    """The planted incidents no finding accounts for."""
    missing = []
    for p in planted:
        hits = [f for f in findings if f.get("code") == p.code]
        if p.tool_call_id:
            hits = [f for f in hits if p.tool_call_id in (f.get("tool_call_ids") or ())]
        if p.session_id:
            hits = [f for f in hits if f.get("session_id") == p.session_id]
        if p.scenario:
            where = f"/incidents/{p.scenario}/"
            hits = [f for f in hits if where in json.dumps(f.get("evidence"))]
        if not hits:
            missing.append(p)
    return missing


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--budget-gib", type=float, default=4.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scaling-events", type=int, default=1_000_000)
    ap.add_argument("--no-readme", action="store_true")
    ap.add_argument("--reuse-store", action="store_true", help="diagnose the store as it is")
    ap.add_argument("--scaling-store", type=Path, help="copy this store for the scaling figure")
    ap.add_argument("--scaling-only", action="store_true", help="the scaling figure alone")
    args = ap.parse_args()
    budget = int(args.budget_gib * 2**30)
    if args.scaling_only:
        scaling = scaling_rows(args.scaling_events, budget=budget, store_from=args.scaling_store)
        print("\n".join(scaling))
        if not args.no_readme:
            update_readme("\n".join(scaling), begin=SCALING_BEGIN, end=SCALING_END)
        return 0 if all("| identical |" in r for r in scaling if r.startswith("| dask")) else 1
    work, bundle, store, planted = _bundle(args.events, keep_store=args.reuse_store)
    tc = [str(TOOLCALL), "-q"]
    steps = []
    if not args.reuse_store:
        steps.append(run_step("ingest", [*tc, "ingest", str(bundle), "--store", str(store)],
                              budget=budget, log=work / "ingest.log"))  # fmt: skip
        print(steps[-1], file=sys.stderr)
    findings_path = work / "findings.json"
    diag = [*tc, "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never", "-o"]
    steps.append(run_step("diagnose, one process", [*diag, str(findings_path)], budget=budget,
                          log=work / "diagnose.log"))  # fmt: skip
    print(steps[-1], file=sys.stderr)
    pooled = work / f"findings-workers{args.workers}.json"
    steps.append(run_step(f"diagnose --workers {args.workers}",
                          [*diag, str(pooled), "--workers", str(args.workers)],
                          budget=budget, log=work / "diagnose-workers.log"))  # fmt: skip
    print(steps[-1], file=sys.stderr)
    pool_diff = _differences(findings_path, pooled)
    for name, sql in (("query group-by", GROUP_BY), ("query p95", P95)):
        log = work / f"{name.replace(' ', '-')}.log"
        argv = [*tc, "query", sql, "--store", str(store), "-f", "csv"]
        steps.append(run_step(name, argv, budget=budget, log=log))
        print(steps[-1], file=sys.stderr)
    trace = _planted_trace(store, planted)
    for command in ("timeline", "replay"):
        if trace is None:
            break
        argv = [*tc, command, "--store", str(store), "--trace-id", trace]
        log = work / f"{command}-one-trace.log"
        steps.append(run_step(f"{command} of one trace", argv, budget=budget, log=log))
        print(steps[-1], file=sys.stderr)
    events = _count_events(store)
    missing: list[Planted] | None = None
    diagnosed = next(s for s in steps if s.name.startswith("diagnose"))
    if diagnosed.exit_code == 0 and findings_path.exists():
        findings = json.loads(findings_path.read_text())["findings"]
        missing = missing_incidents(findings, planted)
    scaling = (
        scaling_rows(args.scaling_events, budget=budget, store_from=args.scaling_store)
        if args.scaling_events or args.scaling_store
        else []
    )
    table = render(steps, events=events, planted=planted, missing=missing, budget=budget)
    same = pool_diff or "the same findings as one process"
    table = table.replace(END, f"`--workers {args.workers}`: {same}.\n{END}")
    print(table)
    print("\n".join(scaling))
    if not args.no_readme:
        update_readme(table)
        if scaling:
            update_readme("\n".join(scaling), begin=SCALING_BEGIN, end=SCALING_END)
    ok = all(s.exit_code == 0 and not s.over_budget for s in steps) and missing == []
    ok = ok and not pool_diff
    return 0 if ok else 1


def _planted_trace(store: Path, planted: list[Planted]) -> str | None:
    """The trace of the middle planted flood cancellation (the fleet's own traffic: a trace
    as an on-call engineer opens it), found through `toolcall query`."""
    calls = [p.tool_call_id for p in planted if p.code == "FL006" and p.tool_call_id]
    if not calls:
        return None
    call = calls[len(calls) // 2].replace("'", "''")
    sql = f"SELECT min(trace_id) AS t FROM events WHERE tool_call_id = '{call}'"
    argv = [str(TOOLCALL), "-q", "query", sql, "--store", str(store), "-f", "csv"]
    out = subprocess.run(argv, capture_output=True, text=True, check=False).stdout.split()
    return out[1] if len(out) == 2 else None


def _bundle(events: int, *, keep_store: bool = False) -> tuple[Path, Path, Path, list[Planted]]:
    """The cached bundle of about *events* events (written once), and a fresh store path."""
    work = ROOT / ".bench" / f"scale-{events}"
    bundle, store, stamp = work / "bundle", work / "store", work / "planted.json"
    t0 = time.perf_counter()
    if not stamp.exists():
        shutil.rmtree(work, ignore_errors=True)
        planted = write_bundle(bundle, events, incidents=ROOT / "fixtures" / "incidents")
        stamp.write_text(json.dumps([asdict(p) for p in planted]))
    print(f"bundle: {work} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    if not keep_store:
        shutil.rmtree(store, ignore_errors=True)
    return work, bundle, store, [Planted(**d) for d in json.loads(stamp.read_text())]


def scaling_rows(events: int, *, budget: int, store_from: Path | None = None) -> list[str]:
    """The README paragraph (between its markers) of a diagnose of a store of about *events*
    events (or of a copy of *store_from*): one process, then a Dask LocalCluster of one and of
    two workers (`--engine dask`); the findings must agree."""
    if store_from is not None:  # never written into: diagnose records its findings
        work = ROOT / ".bench" / "scaling-store"
        store = work / "store"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(store_from, store)
    else:
        work, bundle, store, _ = _bundle(events)
        run_step("ingest", [str(TOOLCALL), "-q", "ingest", str(bundle), "--store", str(store)],
                 budget=budget, log=work / "ingest.log")  # fmt: skip
    out = work / "findings-1p.json"
    diag = [str(TOOLCALL), "-q", "diagnose", "--store", str(store), "-f", "json",
            "--fail-on", "never", "-o"]  # fmt: skip
    alone = run_step("one process", [*diag, str(out)], budget=budget, log=work / "d.log")
    rows: list[tuple[Step, ClusterUse | None, str]] = [(alone, None, "—")]
    for n in (1, 2):
        got = work / f"findings-dask{n}.json"
        step, use = _on_cluster(n, [*diag, str(got)], budget, log=work / f"dask{n}.log")
        rows.append((step, use, _differences(out, got)))
    return scaling_paragraph(rows, events=_count_events(store), source=store_from)


def _worker_usage() -> tuple[float, int]:
    """(user + sys CPU seconds, peak RSS bytes) of the worker process it runs in."""
    import resource as res

    r = res.getrusage(res.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_maxrss * 1024


@dataclass(frozen=True, slots=True)
class ClusterUse:
    """What the workers did over a cluster step: CPU seconds, the largest peak RSS, and from
    the scheduler's task stream each worker's busy seconds and the span the tasks took."""

    cpu_seconds: float
    peak_bytes: int
    busy: tuple[float, ...]
    span: float


def _on_cluster(n: int, argv: list[str], budget: int, *, log: Path) -> tuple[Step, ClusterUse]:
    """*argv* run with `--engine dask` on a fresh LocalCluster of *n* one-thread worker
    processes, and what its workers did meanwhile."""
    from distributed import Client, LocalCluster, get_task_stream

    loopback = {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, **loopback) as cluster, \
            Client(cluster) as client:  # fmt: skip
        before = client.run(_worker_usage)
        name = f"dask, {n} worker{'s' if n > 1 else ''}"
        with get_task_stream(client) as stream:  # the scheduler records every client's tasks
            step = run_step(name, [*argv, "--engine", "dask", "--scheduler",
                                   cluster.scheduler_address], budget=budget, log=log)  # fmt: skip
        after = client.run(_worker_usage)
    busy: dict[str, float] = {}
    edges: list[float] = []
    for task in stream.data:
        for ss in task.get("startstops", ()):
            if ss.get("action") == "compute":
                busy[task["worker"]] = busy.get(task["worker"], 0.0) + ss["stop"] - ss["start"]
                edges += [ss["start"], ss["stop"]]
    cpu = sum(after[w][0] - before[w][0] for w in after if w in before)
    peak = max((u[1] for u in after.values()), default=0)
    span = max(edges) - min(edges) if edges else 0.0
    return step, ClusterUse(cpu, peak, tuple(sorted(busy.values(), reverse=True)), span)


def scaling_paragraph(
    rows: list[tuple[Step, ClusterUse | None, str]], *, events: int, source: Path | None
) -> list[str]:
    """The scaling rows as bench/README.md shows them, between the scaling markers."""
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    store = f"a copy of `{source}`" if source else "the scaling bundle's store"
    lines = [SCALING_BEGIN,
             f"Dask scaling ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
             f"load {' '.join(load)} at the end): diagnose of {events:,} events ({store}) in "
             "one process, then `--engine dask` on a LocalCluster of one and of two "
             "one-thread worker processes. Client CPU is the toolcall process; worker CPU is "
             "read from each worker (user+sys over the run); busy is each worker's time in "
             "tasks (the scheduler's task stream) and the span from the first task to the last.",
             "", "| run | wall | CPU client | CPU workers | busy / span | load | peak client "
             "| peak worker | findings as one process |",
             "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for step, use, diff in rows:
        wcpu, wpeak, busy = "—", "—", "—"
        if use:
            wcpu, wpeak = f"{use.cpu_seconds:.1f} s", _gib(use.peak_bytes)
            busy = " + ".join(f"{b:.0f}" for b in use.busy) + f" s / {use.span:.0f} s"
        lines.append(f"| {step.name} | {step.seconds:.1f} s | {step.cpu_seconds:.1f} s | {wcpu} "
                     f"| {busy} | {step.load:.1f} | {_gib(step.peak_bytes)} | {wpeak} "
                     f"| {diff or 'identical'} |")  # fmt: skip
    one, two = rows[1][0].seconds, rows[2][0].seconds
    if one and two:
        lines += ["", f"1 → 2 workers: {one / two:.2f}× the speed (wall)."]
    shares = [f"{u.cpu_seconds / sum(u.busy):.2f}" for _, u, _ in rows[1:] if u and sum(u.busy)]
    if len(shares) == 2:
        lines[-1] += (f" Worker CPU seconds per busy second: {shares[0]} with one worker, "
                      f"{shares[1]} with two (1.00 would be a core each; the rest of its time in "
                      "tasks a worker waited for a core).")  # fmt: skip
    return [*lines, SCALING_END]


def _differences(want: Path, got: Path) -> str:
    """'' when *got* holds the findings of *want*, else which codes' findings differ."""
    if not (want.exists() and got.exists()):
        return "did not finish"
    a, b = (json.loads(p.read_text())["findings"] for p in (want, got))
    if a == b:
        return ""
    key = lambda f: json.dumps(f, sort_keys=True)  # noqa: E731
    only = {key(f): f["code"] for f in a}.keys() ^ {key(f) for f in b}
    codes = sorted({json.loads(k)["code"] for k in only})
    return f"differs in {len(only)} findings ({', '.join(codes)})"


def _count_events(store: Path) -> int:
    manifest = json.loads((store / "manifest.json").read_text()) if store.exists() else {}
    return sum(int(e.get("events", 0)) for e in manifest.get("files", {}).values())


def render(
    steps: list[Step], *, events: int, planted: list[Planted], missing: list[Planted] | None,
    budget: int,
) -> str:  # fmt: skip
    """The README block: one row per step, then the planted-incident check."""
    load = os.getloadavg()[0]
    lines = [
        BEGIN,
        f"`make bench-scale`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load {load:.1f} at the end; {events:,} events stored; "
        f"budget {_gib(budget)} peak RSS per step (a step over it is killed).",
        "",
        "| step | wall | CPU (user+sys) | load | peak RSS | result |",
        "|---|---|---|---|---|---|",
    ]
    for s in steps:
        result = (
            f"killed over budget after {s.seconds:.0f} s" if s.over_budget
            else "ok" if s.exit_code == 0 else f"exit {s.exit_code}"
        )  # fmt: skip
        lines.append(f"| {s.name} | {s.seconds:.1f} s | {s.cpu_seconds:.1f} s | {s.load:.1f} | "
                     f"{_gib(s.peak_bytes)} | {result} |")  # fmt: skip
    if missing is None:
        check = f"planted incidents: not checked ({len(planted)} planted; diagnose did not finish)"
    elif missing:
        names = ", ".join(
            f"{m.code} {m.tool_call_id or m.session_id or m.scenario}" for m in missing
        )
        found = len(planted) - len(missing)
        check = f"planted incidents: {found}/{len(planted)} found; missing {names}"
    else:
        check = f"planted incidents: all {len(planted)} found"
    lines += ["", check, END]
    return "\n".join(lines)


def update_readme(block: str, *, begin: str = BEGIN, end: str = END) -> None:
    """Replace bench/README.md's block between *begin* and *end* (*block* carries both markers;
    added before the Rules section when absent): the whole bench-scale block, or its scaling
    paragraph alone, so one run never rewrites the other's rows."""
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text(encoding="utf-8")
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.replace("\n## Rules\n", f"\n{block}\n\n## Rules\n", 1)
    readme.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
