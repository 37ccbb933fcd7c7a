"""The floor under a whole-process ingest figure: what any `toolcall ingest` of the file pays
before it builds a single event, run as one process the bench times beside the reference.

    python bench/floor.py middleware|nginx FILE

1. Start-up: the CLI itself ingesting the file's first line, in this process (the imports the
   event table's contract brings, pandas and pyarrow among them, then options, detection and
   rendering), as `toolcall ingest --no-store --source S` does.
2. The reader: Arrow's reader over the whole file in the adapter's blocks, one thread, with
   nothing made of its columns: its JSON reader for middleware (types inferred, the adapter's
   pinned text types left out), its CSV reader for combined nginx lines with cut()'s options.

A figure whose target is under its floor cannot be met by work on the adapter: it needs a
faster reader than Arrow's, or fewer imports than the event table's contract brings.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def start_up(source: str, path: Path) -> None:
    """The CLI ingesting *path*'s first line."""
    from toolcall_cli.cli.app import app

    with path.open("rb") as f:
        first = f.readline()
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / path.name
        one.write_bytes(first)
        args = ["-q", "ingest", "--no-store", "--source", source, "-f", "json"]
        try:
            app([*args, "-o", os.devnull, str(one)])
        except SystemExit as e:
            if e.code:
                raise


def read_json(path: Path) -> int:
    import pyarrow.json as pj

    from toolcall_cli.sources.middleware.blocks import MAX_BLOCK  # the adapter's largest block

    opts = pj.ReadOptions(use_threads=False, block_size=MAX_BLOCK)
    return pj.read_json(path, read_options=opts).num_rows


def read_combined(path: Path) -> int:
    import pyarrow.csv as csv

    from toolcall_cli.sources.nginx.blocks import BLOCK_BYTES  # the adapter's block
    from toolcall_cli.sources.nginx.csv_columns import column_count, reader_options

    with path.open("rb") as f:
        sample = [f.readline().decode() for _ in range(2000)]
    m = column_count([s.rstrip("\n") for s in sample if s])
    if m is None:
        raise SystemExit(f"floor: {path} is not combined lines")
    read, parse, convert = reader_options(m, BLOCK_BYTES, lambda _row: "skip")
    return csv.read_csv(
        path, read_options=read, parse_options=parse, convert_options=convert
    ).num_rows


READERS = {"middleware": read_json, "nginx": read_combined}


def main(argv: list[str]) -> int:
    source, path = argv[0], Path(argv[1])
    start_up(source, path)
    print(f"floor: {READERS[source](path)} rows read")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the `toolcall` script sets it
    sys.exit(main(sys.argv[1:]))
