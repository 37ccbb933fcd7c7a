"""Shared fuzz plumbing: what "a documented error" is, and running one adapter on bytes.

Used by the hypothesis properties (test_fuzz_properties.py) and the atheris targets
(atheris_targets.py). The contract (issue 8 §5): parsing any bytes either returns a valid
event table or raises a toolcall error with a user exit code (InputError, UsageError,
MissingDependencyError) — never InternalError, never anything else.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd

from toolcall_cli.errors import InternalError, ToolcallError
from toolcall_cli.model.events import validate_frame
from toolcall_cli.model.redact import Redactor
from toolcall_cli.sources import parse_file
from toolcall_cli.sources.base import ParseOptions

#: Small cap so a fuzzed gzip member cannot balloon; redaction is not under test here (it is
#: column-wise regex replacement) and costs more than the parse on tiny inputs.
FUZZ_OPTS = ParseOptions(max_decompressed=8 << 20, redactor=Redactor(enabled=False))
SUFFIX = {"messages": ".json", "middleware": ".log", "nginx": ".log", "pcap": ".pcap"}


def documented(exc: BaseException) -> bool:
    """True for the errors toolcall promises (exit 2/3/4), False for bugs."""
    return isinstance(exc, ToolcallError) and not isinstance(exc, InternalError)


def parse_bytes(source: str, data: bytes, *, workdir: str | None = None) -> pd.DataFrame | None:
    """Parse *data* as *source*; None when it raised a documented error; bugs propagate."""
    fd, name = tempfile.mkstemp(suffix=SUFFIX[source], dir=workdir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            frame = parse_file(Path(name), source=source, opts=FUZZ_OPTS)
        except ToolcallError as e:
            if documented(e):
                return None
            raise
        validate_frame(frame)
        return frame
    finally:
        os.unlink(name)
