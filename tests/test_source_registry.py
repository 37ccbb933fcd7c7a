"""One list of sources: the adapter registry, the traits in model/events, the --source choices,
the HTML lane colours and the man pages all name the same sources, and no module outside
`sources/` and `model/events.py` spells a source's name (it asks traits and kind groups)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from toolcall_cli.cli._manpage import pages
from toolcall_cli.cli._options import SourceName
from toolcall_cli.model import events
from toolcall_cli.render.html_page import SOURCE_COLOUR
from toolcall_cli.sources import SOURCES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "toolcall_cli"
NAMES = set(events.SOURCES)

#: Where a module outside sources/ may still hold a string equal to a source name, and why.
#: The count is exact, so a new use in one of these files fails too.
ALLOWED_LITERALS: dict[tuple[str, str], tuple[int, str]] = {
    # the `[messages]` config section (message-window size) shares the word, not the source
    ("model/config.py", "messages"): (2, "the [messages] config section"),
    # TR004's finding carries a count of messages under the key "messages"
    ("diagnose/rules/truncation/context_rolled.py", "messages"): (1, "TR004's message-count key"),
    # `lint --profile mcp`: the MCP tool-definition dialect, not the MCP transcript source
    ("cli/commands/lint.py", "mcp"): (1, "the lint profile named mcp"),
    ("tools/loaders.py", "mcp"): (3, "MCP tools/list documents as a tool-definition shape"),
    ("lint/profiles.py", "mcp"): (3, "the lint profile named mcp"),
}
#: Trees the scan skips.
SKIPPED = (
    "sources/",  # the adapters name themselves
    "model/events.py",  # the one place that declares each source and its traits
)


def test_every_list_of_sources_is_the_registry() -> None:
    registered = SOURCES.names()
    assert sorted(m.value for m in SourceName) == registered
    assert sorted(events.SOURCES) == registered
    assert sorted(t.name for t in events.SOURCE_TRAITS) == registered
    assert sorted(events.TRAITS) == registered
    assert sorted(events.KINDS) == registered


def test_every_adapter_is_registered_under_its_name() -> None:
    # registration names a package; the adapter it holds answers to the same name
    for name, entry in SOURCES.items():
        assert (entry.name, entry.load().name) == (name, name)
        assert entry.module == f"toolcall_cli.sources.{name}"


def test_every_source_says_what_it_reads() -> None:
    # the hint of a run that recognised nothing names what each source reads
    assert [t.name for t in events.SOURCE_TRAITS if not t.reads] == []


def test_every_kind_is_declared_by_a_source() -> None:
    # Sources share kinds on purpose (a HAR entry is the same http_request a capture gives,
    # an agent transcript the same tool_call a messages array gives), so a kind may have
    # several owners; each source lists every kind it emits, and nothing else is a kind.
    owners = Counter(k for t in events.SOURCE_TRAITS for k in t.kinds)
    assert all(len(set(t.kinds)) == len(t.kinds) for t in events.SOURCE_TRAITS)
    assert events.UNPARSED not in owners  # shared by every source, declared apart
    assert set(owners) | {events.UNPARSED} == events.ALL_KINDS


def test_kind_groups_name_only_declared_kinds() -> None:
    declared = events.ALL_KINDS | {events.ACCESS_START}
    groups = {
        "CALL_KINDS": events.CALL_KINDS,
        "RESULT_KINDS": events.RESULT_KINDS,
        "REJECTION_KINDS": events.REJECTION_KINDS,
        "DISPATCH_KINDS": events.DISPATCH_KINDS,
        "REQUEST_KINDS": events.REQUEST_KINDS,
        "RESPONSE_KINDS": events.RESPONSE_KINDS,
        "HTTP_KINDS": events.HTTP_KINDS,
        "CALL_SIDE_KINDS": events.CALL_SIDE_KINDS,
        "INFRA_CALL_KINDS": set(events.INFRA_CALL_KINDS),
        "OUTCOME_KINDS": {k for _, k in events.OUTCOME_KINDS},
        "PHASE_BOUND_KINDS": {k for ks in events.PHASE_BOUND_KINDS.values() for k in ks},
        "PHASE_MARK_KINDS": {k for ks in events.PHASE_MARK_KINDS.values() for k in ks},
    }
    assert {name: set(g) - declared for name, g in groups.items() if set(g) - declared} == {}


def test_html_lane_colours_cover_every_source() -> None:
    assert set(SOURCE_COLOUR) == NAMES
    assert len(set(SOURCE_COLOUR.values())) == len(NAMES)  # lanes tell sources apart


def test_man_pages_list_every_source_choice() -> None:
    choices = "{" + "|".join(m.value for m in SourceName) + "}"
    generated = pages()
    for name in ("toolcall-diagnose.1", "toolcall-ingest.1", "toolcall-timeline.1"):
        assert f".B \\-\\-source, \\-s {choices}\n" in generated[name], name
    for name, page in generated.items():  # wherever --source is documented, all of them
        lines = [ln for ln in page.splitlines() if ln.startswith(".B \\-\\-source")]
        assert lines == [f".B \\-\\-source, \\-s {choices}"] * len(lines), name


def _source_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NAMES
    ]


def test_no_module_outside_sources_names_a_source() -> None:
    found: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(SKIPPED):
            continue
        for line, value in _source_literals(path):
            found[(rel, value)] += 1
            where.setdefault((rel, value), []).append(line)
    unexpected = {
        f"{rel}:{where[(rel, v)]} {v!r}": n
        for (rel, v), n in found.items()
        if ALLOWED_LITERALS.get((rel, v), (0, ""))[0] != n
    }
    assert unexpected == {}, "ask model.events traits or kind groups instead of a source's name"
    # an allowance nothing needs any more is stale
    assert {k for k in ALLOWED_LITERALS if k not in found} == set()


def test_the_scan_sees_a_source_literal(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('WIRE = "pcap"\nNOTE = "pcap data"\n', encoding="utf-8")
    assert _source_literals(probe) == [(1, "pcap")]
