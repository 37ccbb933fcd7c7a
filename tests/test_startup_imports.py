"""Start-up: importing the CLI loads no heavy library (pandas, pyarrow, jsonschema, numpy).

Commands import their core inside `run()` and views load on first render (`render.VIEWS`), so
`toolcall --help` costs what typer costs. Each check runs in a fresh interpreter: this test
process has long imported everything.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from toolcall_cli.cli.app import COMMANDS

HEAVY = ("pandas", "pyarrow", "jsonschema", "numpy", "yaml", "rich.progress")


def _loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    probe = f"{code}; import sys; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = ast.literal_eval(done.stdout.splitlines()[-1])  # the probe's own last line
    assert isinstance(loaded, list)
    return loaded


def test_importing_the_app_loads_no_heavy_library() -> None:
    assert _loaded_after("import toolcall_cli.cli.app") == []


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_loads_no_heavy_library(command: str) -> None:
    argv = ["toolcall", *([command] if command else []), "--help"]
    code = (
        f"import sys; sys.argv = {argv!r}\n"
        "from toolcall_cli.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass"
    )
    assert _loaded_after(f"exec({code!r})") == []


def test_the_source_registry_loads_no_adapter() -> None:
    # adapters (and pandas with them) load on first use: naming the sources, walking a tree
    # and recognising a capture need none of them (tshark starts before pandas loads)
    code = (
        "import toolcall_cli.sources as s, toolcall_cli.sources.pcap.tshark; s.SOURCES.names(); "
        "from pathlib import Path; from toolcall_cli.sources.pcap import ADAPTER; "
        "p = Path('fixtures/pcap/tool_calls.pcap'); assert ADAPTER.sniff(p.read_bytes(), p)"
    )
    assert _loaded_after(code, (*HEAVY, "pyshark", "toolcall_cli.sources.messages")) == []


def test_lint_rules_register_without_the_heavy_libraries() -> None:
    # `toolcall rules` lists the SC codes; jsonschema loads only when a schema is validated,
    # PyYAML only when a YAML document is read
    assert _loaded_after("import toolcall_cli.lint") == []


def test_the_rules_views_load_no_heavy_library() -> None:
    code = (
        "from toolcall_cli.render import load_views; "
        "from toolcall_cli.catalogue import RulesReport; load_views(RulesReport)"
    )
    assert _loaded_after(code) == []


def test_the_rule_catalogue_loads_no_heavy_library() -> None:
    # every rule module registers without pandas/numpy/pyarrow: they load when a rule runs
    code = "import toolcall_cli.catalogue; toolcall_cli.catalogue.load_all()"
    assert _loaded_after(code) == []


def test_rules_fl001_end_to_end_loads_no_heavy_library() -> None:
    code = (
        "import sys; sys.argv = ['toolcall', 'rules', 'FL001']\n"
        "from toolcall_cli.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit as stop:\n    assert not stop.code, stop.code"
    )
    assert _loaded_after(f"exec({code!r})") == []


def _cli(*argv: str) -> str:
    """Code that runs `toolcall ARGV...` in the probe's interpreter (exit 0 or 1 expected)."""
    return (
        f"import sys; sys.argv = {['toolcall', *argv]!r}\n"
        "from toolcall_cli.cli.app import app\n"
        "try:\n    app()\n"
        "except SystemExit as stop:\n    assert stop.code in (0, 1, None), stop.code"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("rules", "FL001"),
        ("--color", "never", "rules", "--format", "json", "model-loop"),
        ("lint", "fixtures/schemas/openai_tools.json", "--fail-on", "never"),
    ],
)
def test_options_are_coerced_without_pydantic(argv: tuple[str, ...]) -> None:
    # typer coerces through pydantic TypeAdapters (~0.06 s); cli/_coerce.py answers defaults,
    # enum choices, paths and plain text itself
    assert _loaded_after(f"exec({_cli(*argv)!r})", ("pydantic",)) == []


def test_a_store_given_on_the_command_line_is_coerced_without_pydantic(tmp_path: Path) -> None:
    # `--store DIR` has its own parser; typer would run it behind a pydantic adapter, whose
    # import and build cost ~0.3 CPU s of every timeline, replay and query on a slow host
    argv = ("-q", "ingest", "--store", str(tmp_path / "store"), "fixtures/nginx/combined.log")
    assert _loaded_after(f"exec({_cli(*argv)!r})", ("pydantic",)) == []


def test_lint_of_a_file_runs_without_the_event_table_libraries() -> None:
    # lint reads JSON schemas: pandas/pyarrow (~0.6 s) came in once through the skipped-files
    # line living beside ingest's input handling (redaction takes Arrow only for many findings)
    argv = ("lint", "fixtures/schemas/openai_tools.json", "--fail-on", "never")
    assert _loaded_after(f"exec({_cli(*argv)!r})", ("pandas", "pyarrow", "numpy")) == []


@pytest.mark.tshark
def test_diagnose_of_a_bundle_loads_only_what_it_uses(tshark: str) -> None:
    # the event table needs pandas and pyarrow; a bundle without a store, a YAML cassette,
    # a pydantic-coerced value or a version to ask tshark needs none of these
    unused = ("pyarrow.parquet", "yaml", "pydantic", "pyshark", "jsonschema", "rich.progress")
    argv = ("diagnose", "fixtures/incidents/flooding-model-loop", "--format", "json")
    # tshark's version is remembered on disk after the first run (pyshark asks it then)
    _loaded_after("from toolcall_cli.sources.pcap.tshark import locate; locate()")
    assert _loaded_after(f"exec({_cli(*argv)!r})", unused) == []


@pytest.mark.tshark
@pytest.mark.parametrize("command", ["diagnose", "timeline", "replay"])
def test_tshark_starts_before_pandas_loads(command: str, tshark: str) -> None:
    # tshark's own start-up (~0.17 s) overlaps the pandas/pyarrow import (sources/pcap/early.py)
    argv: tuple[str, ...] = (command, "fixtures/incidents/flooding-model-loop", "--format", "json")
    argv += ("--session-id", "sess-loop") if command == "replay" else ()
    code = (
        "import subprocess, sys\n"
        "real = subprocess.Popen\n"
        "class Spy(real):\n"
        "    def __init__(self, cmd, *a, **k):\n"
        "        if 'tshark' in str(cmd[0]) and '-r' in cmd:\n"
        "            print('tshark', 'pandas' in sys.modules, file=sys.stderr)\n"
        "        super().__init__(cmd, *a, **k)\n"
        "subprocess.Popen = Spy\n" + _cli(*argv)
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert [ln for ln in done.stderr.splitlines() if ln.startswith("tshark")] == ["tshark False"]


def test_sniffing_loads_no_reader_of_a_format_it_did_not_claim() -> None:
    # detecting the format of each input asks every adapter for a score: the OpenTelemetry
    # readers and mappers (and the Langfuse export reader), the HAR entry readers and the
    # mitmproxy flow mapping load only when a file of theirs parses
    code = (
        "import pandas; from pathlib import Path; from toolcall_cli.sources import detect; "
        "assert detect(Path('fixtures/incidents/flooding-model-loop/middleware.log')) "
        "== 'middleware'"
    )
    readers = (
        "toolcall_cli.sources.otel.read",
        "toolcall_cli.sources.otel.mapping",
        "toolcall_cli.sources.otel.langfuse_export",
        "toolcall_cli.sources.har.entries",  # HAR and mitmproxy flows share the HAR builder
        "toolcall_cli.sources.har.stream",
        "toolcall_cli.sources.mitm.flows",
    )
    assert _loaded_after(code, readers) == []


def test_the_replay_pipeline_loads_jsonschema_only_to_validate() -> None:
    # a replay without --tools validates nothing: jsonschema (~0.1 s) loads with the first
    # registered schema a call is checked against
    code = "import toolcall_cli.replay, toolcall_cli.replay.calibrate"
    assert _loaded_after(code, ("jsonschema", "referencing")) == []
