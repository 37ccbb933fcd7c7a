"""Finding, configuring and running tshark for the pcap adapter.

tshark is located the way pyshark locates it (`pyshark.tshark.tshark.get_process_path`:
the ``tshark_path`` of pyshark's ``config.ini`` in the working directory or pyshark's own
directory, then ``$PATH``), read without importing pyshark, whose import costs more than
the search (`tests/sources/test_pcap_tshark.py` checks both agree); pyshark itself reads
tshark's version when it is not remembered (:mod:`.version_cache`). The environment
variable ``TOOLCALL_TSHARK`` overrides the search: when set, it must name the tshark binary,
and a path that does not exist means "tshark is missing" (tests use
``TOOLCALL_TSHARK=/nonexistent``). The capture is read by one streaming
``tshark -T fields -e FIELD...`` pass (tab-separated, occurrences joined by U+001F) whose
output Arrow's CSV reader parses (:mod:`.fields_table`).

Bodies come out lossless because the JSON and line-based-text dissectors are disabled:
tshark then hands the (de-chunked, decompressed) body to the ``media`` or ``data``
dissector, whose ``media.type`` / ``data.data`` fields are hex bytes. ``http.file_data``
(a string field that tshark 4.0 turns into U+FFFD for non-ASCII bytes) is the fallback.
"""

from __future__ import annotations

import configparser
import functools
import importlib.util
import mmap
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Final

from toolcall_cli.errors import InputError, MissingDependencyError
from toolcall_cli.sources.pcap import version_cache

if TYPE_CHECKING:  # pandas loads when the fields are read, so tshark can start before it
    import pandas as pd

    from toolcall_cli.sources.pcap.early import Started

ENV_VAR: Final = "TOOLCALL_TSHARK"
HINT: Final = "install Wireshark's tshark (apt-get install tshark)"
MIN_VERSION: Final = (3, 0)

#: Fields of the single tshark pass (EK output names them with "_" for ".").
FIELDS: Final = (
    "frame.number",
    "frame.time_epoch",
    "tcp.stream",
    "ip.src",
    "ipv6.src",
    "tcp.srcport",
    "ip.dst",
    "ipv6.dst",
    "tcp.dstport",
    "http.request",
    "http.response",
    "http.request.method",
    "http.request.uri",
    "http.request.version",
    "http.response.version",
    "http.response.code",
    "http.response.phrase",
    "http.request_in",
    "http.request.line",
    "http.response.line",
    "http.file_data",
    "media.type",
    "data.data",
    "http.te_and_length",
    "http.decompression_failed",
    "http.bad_header_name",
)

_PREFS: Final = {
    "tcp.desegment_tcp_streams": "TRUE",
    "http.desegment_headers": "TRUE",
    "http.desegment_body": "TRUE",
    "http.dechunk_body": "TRUE",
    # tshark inflates without any size cap (a small gzip bomb costs it gigabytes): we get the
    # encoded bytes and inflate them ourselves with a cap (decode_body in pcap/http.py).
    "http.decompress_body": "FALSE",
    "tcp.check_checksum": "FALSE",
}
PREFS: Final = (
    *(x for k, v in _PREFS.items() for x in ("-o", f"{k}:{v}")),
    *("--disable-protocol", "json", "--disable-protocol", "data-text-lines"),
)

DISPLAY_FILTER: Final = "http.request || http.response"

#: Joins several occurrences of one field (a header line never contains it).
AGGREGATOR: Final = "\x1f"

#: stderr lines that mean "a damaged tail", not "unreadable": what came before is kept.
_TOLERATED = re.compile(
    r"cut short in the middle of a packet|appears to be damaged or corrupt|"
    r"packet (?:length|size).*(?:bigger|larger)",
    re.IGNORECASE,
)
#: stderr lines that say nothing about the capture.
_NOISE = re.compile(r"running as user|could be dangerous", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Tshark:
    """A located tshark binary."""

    path: str
    version: tuple[int, ...]


@dataclass(slots=True)
class RunResult:
    """How a tshark run ended."""

    returncode: int = 0
    stderr: str = ""
    problems: list[str] = field(default_factory=list)  # stderr lines that mean real trouble
    notes: list[str] = field(default_factory=list)  # every stderr line that is not noise


def locate() -> Tshark:
    """Find tshark: ``TOOLCALL_TSHARK``, else pyshark's search (config file, ``$PATH``).

    Raises MissingDependencyError (exit 4) when it is absent.
    """
    override = os.environ.get(ENV_VAR)
    if override:
        if not (os.path.isfile(override) and os.access(override, os.X_OK)):
            raise MissingDependencyError(f"tshark not found at {ENV_VAR}={override}", hint=HINT)
        return _probe(override)
    path = search()
    if path is None:
        raise MissingDependencyError("tshark is not installed (not found on PATH)", hint=HINT)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise MissingDependencyError(f"tshark at {path} is not executable", hint=HINT)
    return _probe(path)


@functools.lru_cache(maxsize=8)
def _probe(path: str) -> Tshark:
    """Read the version once per binary (pyshark runs ``tshark -v``; remembered on disk)."""
    key = version_cache.key_of(path)
    cached = version_cache.recall(key) if key else None
    if cached is not None:
        return _checked(Tshark(path=path, version=cached))
    pyshark_tshark = _pyshark()
    try:
        parsed = pyshark_tshark.get_tshark_version(path)
        version = tuple(int(x) for x in str(parsed).split(".")[:3])
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        raise MissingDependencyError(f"cannot run tshark at {path}: {e}", hint=HINT) from None
    except Exception as e:  # pyshark's TSharkVersionException and friends
        raise MissingDependencyError(
            f"cannot read tshark's version at {path}: {e}", hint=HINT
        ) from None
    if key:
        version_cache.remember(key, version)
    return _checked(Tshark(path=path, version=version))


def search(process_name: str = "tshark") -> str | None:
    """The first existing candidate of pyshark's `get_process_path()`, in its order: the
    ``[tshark] tshark_path`` of ``./config.ini``, else of pyshark's own ``config.ini``, then
    each ``$PATH`` entry (Windows: the Program Files folders; macOS: Wireshark.app)."""
    candidates: list[str] = []
    config = _pyshark_config()
    if config is not None:
        candidates.append(config.get(process_name, f"{process_name}_path"))
    if sys.platform.startswith("win"):
        for env in ("ProgramFiles(x86)", "ProgramFiles"):
            folder = os.getenv(env)
            if folder is not None:
                candidates.append(os.path.join(folder, "Wireshark", f"{process_name}.exe"))
    else:
        os_path = os.getenv("PATH", "/usr/bin:/usr/sbin:/usr/lib/tshark:/usr/local/bin")
        candidates += [os.path.join(entry, process_name) for entry in os_path.split(":")]
    if sys.platform.startswith("darwin"):
        candidates.append(f"/Applications/Wireshark.app/Contents/MacOS/{process_name}")
    for candidate in candidates:
        if os.path.exists(candidate):
            return candidate.replace("\\", "/") if sys.platform.startswith("win") else candidate
    return None


def _pyshark_config() -> configparser.ConfigParser | None:
    """pyshark's `get_config()`: ``config.ini`` in the working directory, else in pyshark's
    package directory (found without importing pyshark), else None."""
    here = Path.cwd() / "config.ini"
    spec = importlib.util.find_spec("pyshark")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "pyshark is not installed",
            hint="pyshark is a dependency of toolcall: reinstall toolcall in this environment",
        )
    own = Path(next(iter(spec.submodule_search_locations))) / "config.ini"
    for path in (here, own):
        if path.exists():
            config = configparser.ConfigParser()
            config.read(path)
            return config
    return None


def _checked(ts: Tshark) -> Tshark:
    if ts.version[:2] < MIN_VERSION:
        raise MissingDependencyError(
            f"tshark {'.'.join(map(str, ts.version))} is too old "
            f"(need {MIN_VERSION[0]}.{MIN_VERSION[1]}+)",
            hint=HINT,
        )
    return ts


def _pyshark() -> ModuleType:
    """pyshark's tshark module, imported only when a capture is read.

    pyshark is a dependency of toolcall; a broken install is an environment problem (exit 4)."""
    try:
        from pyshark.tshark import tshark as pyshark_tshark
    except ImportError as e:
        raise MissingDependencyError(
            f"pyshark cannot be imported ({e})",
            hint="pyshark is a dependency of toolcall: reinstall toolcall in this environment",
        ) from None
    return pyshark_tshark


def command(ts: Tshark, capture: Path, *, frames: Sequence[int] | None = None) -> list[str]:
    """The tshark command: tab-separated FIELDS, or (for *frames*) JSON of their http layers."""
    base = [ts.path, "-n", "-r", str(capture), *PREFS]
    if frames is not None:
        flt = "frame.number in {" + " ".join(str(f) for f in frames) + "}"
        return [*base, "-Y", flt, "-T", "json", "--no-duplicate-keys", "-J", "frame http"]
    cmd = [
        *base,
        "-Y",
        DISPLAY_FILTER,
        "-T",
        "fields",
        "-E",
        "header=n",
        "-E",
        "separator=/t",
        "-E",
        "quote=n",
        "-E",
        "occurrence=a",
        "-E",
        f"aggregator={AGGREGATOR}",
    ]
    for name in FIELDS:
        cmd += ["-e", name]
    return cmd


def run_env() -> dict[str, str]:
    """tshark's environment: ours, in the C locale (messages and numbers as parsed here)."""
    return {**os.environ, "LC_ALL": "C"}


def read_fields(
    cmd: list[str], *, started: Started | None = None
) -> tuple[pd.DataFrame, RunResult]:
    """Run the fields pass and read its rows (:mod:`.fields_table`, all str).

    tshark writes into a temporary file, not a pipe: read in one go once it is done, that costs
    both sides a fraction of the thousands of wake-ups a pipe needs for a big capture. A process
    *started* early on *cmd* (:mod:`.early`) is read instead of starting another."""
    if started is None:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            return _read_table(spawn(cmd, out, err), out, err)
    with started.stdout as out, started.stderr as err:
        return _read_table(started.proc, out, err)


def spawn(cmd: list[str], out: IO[bytes], err: IO[bytes]) -> subprocess.Popen[bytes]:
    """Start tshark writing into *out* and *err*."""
    try:
        return subprocess.Popen(
            cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=run_env()
        )
    except OSError as e:
        raise MissingDependencyError(f"cannot start tshark: {e}", hint=HINT) from None


def _read_table(
    proc: subprocess.Popen[bytes], out: IO[bytes], err: IO[bytes]
) -> tuple[pd.DataFrame, RunResult]:
    from toolcall_cli.sources.pcap import fields_table

    result = RunResult()
    result.returncode = proc.wait()
    err.seek(0)
    _finish(result, err.read())
    size = os.fstat(out.fileno()).st_size
    if not size:
        return fields_table.parse(b"", FIELDS), result
    # mapped, not read: Arrow parses the file's pages in place (no copy to fault in)
    with mmap.mmap(out.fileno(), size, access=mmap.ACCESS_READ) as data:
        return fields_table.parse(data, FIELDS), result


def _finish(result: RunResult, stderr: bytes) -> None:
    result.stderr = stderr.decode("utf-8", "replace")
    result.notes = [
        ln.strip() for ln in result.stderr.splitlines() if ln.strip() and not _NOISE.search(ln)
    ]
    result.problems = [ln for ln in result.notes if not _TOLERATED.search(ln)]


def run_all(cmd: list[str]) -> tuple[bytes, RunResult]:
    """Run *cmd* to completion (small outputs only: the second pass over a few frames)."""
    result = RunResult()
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
            env=run_env(),
        )
    except OSError as e:
        raise MissingDependencyError(f"cannot start tshark: {e}", hint=HINT) from None
    result.returncode = proc.returncode
    _finish(result, proc.stderr)
    return proc.stdout, result


def check_readable(result: RunResult, capture: Path, *, rows: int) -> None:
    """Raise InputError when tshark failed and produced nothing; a damaged tail is tolerated."""
    if result.returncode == 0 or rows:
        return
    msg = "; ".join(result.notes) or f"tshark exited with {result.returncode}"
    if "aren't valid" in msg or "isn't a valid" in msg:  # an older tshark lacks one of FIELDS
        raise MissingDependencyError(
            f"this tshark cannot give the fields toolcall needs: {msg[:300]}", hint=HINT
        )
    raise InputError(
        f"cannot read capture '{capture}': {msg[:500]}",
        hint="tshark could not read a single packet: is it an intact pcap/pcapng capture?",
    )
