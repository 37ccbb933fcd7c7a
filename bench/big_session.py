"""Issue 19's memory figure: a ~500 MB Claude Code session ingested into a store, whole CLI.

Writes the session (the fixture `claude_code_session.jsonl` repeated with its uuids and ids
made unique per copy, as bench/README.md's figure's file was made), then runs `toolcall ingest`
on it
under `/usr/bin/time -v` and prints peak RSS, wall and CPU seconds and the load average.

    python bench/big_session.py [--mb 500] [--dir .bench/session] [--keep]

Not part of `make test`: the ingest of 1 M events takes about a minute of CPU.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "transcripts" / "claude_code_session.jsonl"
_ID = re.compile(r'"((?:u|s)-\d+|toolu_\w+|msg_\w+)"')
_TIME = {
    "Maximum resident set size (kbytes)": "peak_kb",
    "Elapsed (wall clock) time (h:mm:ss or m:ss)": "wall",
    "User time (seconds)": "user_s",
    "System time (seconds)": "sys_s",
}


def write_session(path: Path, megabytes: int) -> int:
    """The fixture repeated until *path* holds *megabytes* MB; the number of lines."""
    lines = [ln for ln in FIXTURE.read_text().splitlines() if ln.strip()]
    compact = [
        json.dumps(json.loads(ln), separators=(",", ":"), ensure_ascii=False) for ln in lines
    ]
    target, size, n, k = megabytes * 1_000_000, 0, 0, 0
    with path.open("w") as out:
        while size < target:
            suffix = f"-{k}"
            for ln in compact:
                text = _ID.sub(rf'"\1{suffix}"', ln) + "\n"
                out.write(text)
                size, n = size + len(text), n + 1
            k += 1
    return n


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=500)
    ap.add_argument("--dir", type=Path, default=ROOT / ".bench" / "session")
    ap.add_argument("--keep", action="store_true", help="keep the session and the store")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    session, store = args.dir / "session.jsonl", args.dir / "store"
    shutil.rmtree(store, ignore_errors=True)
    lines = write_session(session, args.mb)
    toolcall = Path(sys.executable).with_name("toolcall")
    before = load()
    run = subprocess.run(
        ["/usr/bin/time", "-v", str(toolcall), "ingest", str(session), "--store", str(store)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = {
        _TIME[k.strip()]: v.strip()
        for k, _, v in (ln.partition(": ") for ln in run.stderr.splitlines())
        if k.strip() in _TIME
    }
    cpu = float(got["user_s"]) + float(got["sys_s"])
    print(
        f"ingest of {session.stat().st_size / 1e6:.0f} MB ({lines:,} lines): "
        f"peak {int(got['peak_kb']) / 1024:.0f} MiB, wall {got['wall']}, CPU {cpu:.1f} s, "
        f"load {before} → {load()}"
    )
    if not args.keep:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
