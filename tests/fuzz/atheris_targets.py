"""atheris (libFuzzer) targets: the nginx and middleware parsers and the tagged-text parser.

    python tests/fuzz/atheris_targets.py TARGET [libFuzzer flags] [corpus dirs]

TARGET is `nginx`, `middleware`, `tagged`, or `all` (the first byte picks one of the three,
so a single short run covers every parser for one interpreter start-up). Only toolcall_cli
is instrumented for coverage. A target may return an event table or raise a documented
toolcall error; anything else (or an invalid table) is a crash that libFuzzer reports with
the input that caused it.
tests/fuzz/test_fuzz_atheris.py runs each target briefly in `make test` and for minutes
under `make fuzz`.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["toolcall_cli"]):
    from toolcall_cli.sources.messages import call_blocks, text_protocols

from tests.fuzz.harness import parse_bytes

_WORKDIR = tempfile.mkdtemp(prefix="toolcall-fuzz-")


def _adapter(source: str) -> Callable[[bytes], None]:
    def one(data: bytes) -> None:
        parse_bytes(source, data, workdir=_WORKDIR)

    return one


def _tagged(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    for call in text_protocols.extract_calls(text):
        assert call.protocol in call_blocks.PROTOCOLS, call
        assert 0 <= call.span[0] <= call.span[1] <= len(text), call
    for role, _body, line in text_protocols.parse_transcript(text):
        assert role and line >= 0


TARGETS: dict[str, Callable[[bytes], None]] = {
    "nginx": _adapter("nginx"),
    "middleware": _adapter("middleware"),
    "tagged": _tagged,
}
ORDER = ("nginx", "middleware", "tagged")  # `all`: data[0] % 3 picks the target


def _all(data: bytes) -> None:
    if data:
        TARGETS[ORDER[data[0] % 3]](data[1:])


TARGETS["all"] = _all


def main() -> None:
    """Run the target named by argv[1]; the rest of argv goes to libFuzzer."""
    name = sys.argv.pop(1)
    atheris.Setup(sys.argv, TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
