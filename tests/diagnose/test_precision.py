"""Precision on the shapes real model outputs take (issue 16 item 4): a retry after remediation
is no loop, identical calls of one turn are FL007, complete arguments with a stray character
are malformed (not cut, no TR003), a repaired `<tool_call>` block is a PR001 that invents
nothing, leaked chat-template tokens are PR009 and PR002 suggests only close names, and a
tool failure the model cannot act on is PR011. Fixtures: fixtures/precision/ (written with
the shapes seen in BFCL results of gpt-4o, Hermes-2-Pro, functionary and gpt-oss on vLLM)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.model.findings import Finding
from toolcall_cli.sources import ingest_paths
from toolcall_cli.sources.base import ParseOptions

PRECISION = Path(__file__).resolve().parents[2] / "fixtures" / "precision"
BFCL = CORPUS / "bfcl" / "gorilla_v4_data"


def _findings(*paths: Path, tools: tuple[Path, ...] = ()) -> list[Finding]:
    result = ingest_paths(list(paths), opts=ParseOptions(tools=tools))
    inputs = tuple(str(f.path) for f in result.files)
    return list(diagnose_events(result.events, inputs=inputs).findings)


def _codes(found: list[Finding]) -> dict[str, int]:
    return dict(sorted(Counter(f.code for f in found).items()))


# ---- FL001: retry after remediation --------------------------------------------------------


def test_retry_after_remediation_is_not_a_loop() -> None:
    """startEngine fails (doors), lockDoors, startEngine fails (brake), pressBrakePedal,
    startEngine succeeds: three identical calls, each after a different action, ending well."""
    assert _codes(_findings(PRECISION / "retry_after_remediation.json")) == {}


def test_the_same_repeats_ending_in_failure_are_a_loop(tmp_path: Path) -> None:
    doc = json.loads((PRECISION / "retry_after_remediation.json").read_text())
    last = next(m for m in doc["messages"] if m.get("tool_call_id") == "call_c5")
    last["content"] = json.dumps({"error": "Brake pedal needs to be pressed."})
    bad = tmp_path / "still_failing.json"
    bad.write_text(json.dumps(doc))
    (loop,) = [f for f in _findings(bad) if f.code == "FL001"]
    assert loop.tool_call_ids == ("call_c1", "call_c3", "call_c5")


def test_back_to_back_repeats_that_succeed_at_last_are_a_loop(tmp_path: Path) -> None:
    """Nothing changed between the repeats: the model hammered the call until it worked."""
    doc = json.loads((PRECISION / "retry_after_remediation.json").read_text())
    msgs = doc["messages"]
    keep = [
        m for m in msgs if "lockDoors" not in json.dumps(m) and "pressBrake" not in json.dumps(m)
    ]
    keep = [m for m in keep if m.get("tool_call_id") not in ("call_c2", "call_c4")]
    doc["messages"] = keep
    path = tmp_path / "hammer.json"
    path.write_text(json.dumps(doc))
    assert [f.code for f in _findings(path)] == ["FL001"]


# ---- FL007: parallel duplicates ------------------------------------------------------------


def test_a_loop_the_middleware_also_logged_is_still_a_loop(tmp_path: Path) -> None:
    """The middleware's record of each repeat (no arguments, the same call id) is the same
    action as the conversation's, not a second action in that turn; and a call only the
    middleware saw, logged between two repeats, is no turn of the model's record. Either made
    the loop look like a retry after remediation, and FL001 went silent whenever the
    middleware saw the calls (49 of 50 planted loops at 10 M events)."""
    messages: list[dict[str, object]] = [{"role": "user", "content": "weather?"}]
    log = []
    for n in range(4):
        cid = f"call_{n}"
        fn = {"name": "get_weather", "arguments": '{"q": "same"}'}
        messages.append(
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": cid, "type": "function", "function": fn}]}
        )  # fmt: skip
        messages.append({"role": "tool", "tool_call_id": cid, "content": "sunny"})
        for k, event in enumerate(("received", "request", "response", "injected")):
            log.append(
                json.dumps(
                    {
                        "ts": f"2025-03-01T00:0{n}:00.{k}00Z",
                        "event": f"tool_call.{event}",
                        "trace_id": f"trace_{n}",
                        "session_id": "sess_1",
                        "tool_call_id": cid,
                        "tool": "get_weather",
                        "msg": event,
                    }
                )
            )
        # the session's other traffic the conversation file does not hold, between repeats
        other = {"ts": f"2025-03-01T00:0{n}:30.000Z", "event": "tool_call.received",
                 "trace_id": f"trace_x{n}", "session_id": "sess_1", "tool_call_id": f"other_{n}",
                 "tool": "lookup_order", "msg": "received"}  # fmt: skip
        log.append(json.dumps(other))
    conv = tmp_path / "conv.jsonl"
    conv.write_text(json.dumps({"session_id": "sess_1", "messages": messages}) + "\n")
    mw = tmp_path / "mw.log"
    mw.write_text("\n".join(log) + "\n")
    loops = [f for f in _findings(conv, mw) if f.code == "FL001"]
    assert [(f.session_id, f.tool_call_ids) for f in loops] == [
        ("sess_1", ("call_0", "call_1", "call_2", "call_3"))
    ]


def test_identical_calls_in_one_turn_are_fl007_not_fl001() -> None:
    (dup,) = _findings(PRECISION / "parallel_duplicates.json")
    assert dup.code == "FL007" and dup.severity.value == "warning"
    assert dup.tool_call_ids == tuple(f"call_p{k}" for k in range(1, 6))
    assert "5 times in one assistant turn" in dup.message


def test_bfcl_inference_log_gives_results_per_step(corpus: Path) -> None:
    """multi_turn_base_51 retries startEngine after remediation (no loop), _52 repeats a
    failing startEngine three steps running (a loop), _53 asks for the fuel four times in one
    step (FL007); every call has its executed result, so no OR001."""
    found = _findings(
        PRECISION / "bfcl_multi_turn_inference_log.json",
        tools=(BFCL / "BFCL_v4_multi_turn_base.json",),
    )
    assert sorted((f.code, f.session_id) for f in found) == [
        ("FL001", "multi_turn_base_52"),
        ("FL007", "multi_turn_base_53"),
    ]
    (dup,) = [f for f in found if f.code == "FL007"]
    assert dup.tool_call_ids == tuple(f"multi_turn_base_53#t0s0c{k}" for k in range(4))


# ---- PR001 / TR003: cut off or malformed ---------------------------------------------------


def test_stray_characters_are_malformed_not_cut() -> None:
    found = _findings(PRECISION / "stray_quote_arguments.json")
    assert "TR003" not in _codes(found)
    pr001 = sorted(f.message for f in found if f.code == "PR001")
    assert len(pr001) == 2
    assert "malformed: a stray '\"' at character 26 of complete arguments" in pr001[0]
    assert "malformed: a stray '?' at character 33" in pr001[1]
    assert not any("cut off" in m for m in pr001)


def test_cut_arguments_without_evidence_are_pr001_only(tmp_path: Path) -> None:
    """A real prefix cut, 116 output tokens of a 4096 budget: cut off, but no TR003."""
    body = json.loads((PRECISION / "stray_quote_arguments.json").read_text())
    body["choices"][0]["message"]["tool_calls"] = body["choices"][0]["message"]["tool_calls"][:1]
    body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"path": "rep'
    exchange = {"request": {"max_tokens": 4096, "messages": []}, "response": body}
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(exchange))
    found = _findings(path)
    assert "TR003" not in _codes(found)
    (pr001,) = [f for f in found if f.code == "PR001"]
    assert "cut off" in pr001.message


# ---- PR001: repaired blocks ----------------------------------------------------------------


def test_repaired_blocks_say_what_was_repaired_and_invent_no_keys() -> None:
    path = PRECISION / "repaired_blocks.json"
    events = ingest_paths([path]).events
    calls = events[events["kind"] == "tool_call"]
    assert calls["tool"].tolist() == ["get_weather", "get_time", "get_time"]
    assert calls["args"].astype(object).where(calls["args"].notna(), None).tolist() == [
        '{"city": "Paris"}',
        '{"tz":"Europe/Paris"}',
        None,  # no arguments key: no arguments, never the block with its "name"
    ]
    found = _findings(path)
    pr001 = [f for f in found if f.code == "PR001"]
    assert len(pr001) == 3 and "TR003" not in _codes(found)
    assert all("is not valid JSON" in f.message for f in pr001)
    assert any("read as a Python literal" in f.message for f in pr001)
    assert any("unexpected '}' at character 56" in f.message for f in pr001)


# ---- PR009 / PR002: leaked template tokens, did-you-mean ----------------------------------


def test_leaked_harmony_names() -> None:
    found = _findings(PRECISION / "leaked_harmony_names.json")
    pr009 = sorted(f.tool_call_ids for f in found if f.code == "PR009")
    assert pr009 == [("call_h1",), ("call_h2",)]
    hints = {f.tool: dict(f.extra).get("did_you_mean") for f in found if f.code == "PR002"}
    assert hints == {
        "cat<|channel|>commentary": "cat",
        "startEngine<|channel|>commentary": "startEngine",
        "calculate_sphere_volume": None,  # not calculate_park_area
    }
    # an unknown tool never ran: its error is PR002's, not a tool failure (PR011)
    assert "PR011" not in _codes(found)


# ---- negatives on real data ----------------------------------------------------------------


@pytest.mark.corpus
def test_new_codes_on_the_conversation_corpus(corpus: Path) -> None:
    """Reviewed by hand: the one PR011 is ToolBench's `{"error": "Message error...",
    "response": "{... 'message': 'Invalid request query input'}"}` (no word says which input);
    the llm-anthropic cassette's two argument-less `pelican_name_generator` calls of one turn
    were asked for ("two names") and are no FL007."""
    files = sorted(
        p
        for p in (corpus / "conversations").rglob("*")
        if p.is_file()
        and not p.name.startswith(("LICENSE", "PROVENANCE"))
        and "gpt-4o-airline" not in p.name
    )
    found = [f for f in _findings(*files) if f.code in ("FL007", "PR009", "PR011")]
    assert [(f.code, f.tool) for f in found] == [("PR011", "raiderio_call_for_raider_io")]


@pytest.mark.corpus
@pytest.mark.slow
def test_new_codes_stay_silent_on_tau_bench(corpus: Path) -> None:
    """73 tool results start `Error:` and each names what failed (`flight HAT030 not
    available on date 2024-05-13`): none is PR011; no turn repeats a call (FL007); no
    template token leaks (PR009)."""
    path = corpus / "conversations" / "tau-bench" / "historical_trajectories__gpt-4o-airline.json"
    found = _findings(path)
    assert not {"FL007", "PR009", "PR011"} & set(_codes(found))
    # the four loops stay loops: each group's last identical call failed again (the model
    # thought between the repeats, but resubmitted the same booking and got the same error)
    events = ingest_paths([path]).events
    results = events[events["kind"] == "tool_result"]
    said: dict[str, list[str]] = {}  # tau-bench reuses ids (FL003): an id may have two results
    for cid, text in zip(results["tool_call_id"], results["detail"].astype(str), strict=True):
        said.setdefault(str(cid), []).append(text)
    loops = [f for f in found if f.code == "FL001"]
    assert len(loops) == 4
    assert all(any(t.startswith("Error:") for t in said[f.tool_call_ids[-1]]) for f in loops)


def test_cut_arguments_at_the_output_budget_are_tr003(tmp_path: Path) -> None:
    """The same cut, with the 64-token budget used up: the token limit is proven."""
    body = json.loads((PRECISION / "stray_quote_arguments.json").read_text())
    body["choices"][0]["message"]["tool_calls"] = body["choices"][0]["message"]["tool_calls"][:1]
    body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"path": "rep'
    body["usage"]["completion_tokens"] = 64
    path = tmp_path / "cut_at_budget.json"
    path.write_text(json.dumps({"request": {"max_tokens": 64, "messages": []}, "response": body}))
    (tr003,) = [f for f in _findings(path) if f.code == "TR003"]
    assert "used 64 output tokens of a budget of 64" in tr003.message


@pytest.mark.parametrize(
    ("name", "known", "meant"),
    [
        ("get_wether", ["get_weather", "get_time"], "get_weather"),
        ("getWeather", ["get_weather"], "get_weather"),
        ("get_weather_info", ["get_weather"], "get_weather"),
        ("startEngine<|channel|>commentary", ["startEngine", "stopEngine"], "startEngine"),
        ("functions.cat", ["cat"], "cat"),
        ("calculate_sphere_volume", ["calculate_park_area"], None),
        ("cd", ["cat"], None),
        ("send_email", ["read_email", "delete_file"], None),
    ],
)
def test_did_you_mean_is_token_aware(name: str, known: list[str], meant: str | None) -> None:
    from toolcall_cli.diagnose.rules.protocol.name_suggestion import suggest

    assert suggest(name, known) == meant


@pytest.mark.parametrize(
    ("said", "can_act"),
    [
        ("Error: flight HAT030 not available on date 2024-05-13", True),
        ("Error: user not found", True),
        ("Unknown city 'Pariss'", True),
        ("ValueError: invalid date format, expected YYYY-MM-DD", True),
        ("", False),
        ("500", False),
        ("Internal Server Error", False),
        ("Request failed with status code 500", False),
        ("An error occurred. Please try again later.", False),
        ("KeyError: 'city'", False),
        ("InternalServerError E_INTERNAL", False),
    ],
)
def test_actionable_failure_words(said: str, can_act: bool) -> None:
    from toolcall_cli.diagnose.kit.tool_failures import actionable

    assert actionable(said) is can_act


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ('{"a": "b', True),
        ('{"a": ', True),
        ('{"a": 1,', True),
        ('{"a": [1, 2', True),
        ('{"a": tr', True),
        ('{"a": "b"", "c": 1}', False),  # a stray quote: the damage is before the end
        ('{"q": "x"?}', False),
        ('{"a": 1}}', False),
    ],
)
def test_cut_prefix(text: str, cut: bool) -> None:
    from toolcall_cli.model.jsonscan import cut_prefix

    assert (cut_prefix(text) is not None) is cut


def test_a_tool_call_block_cut_at_the_end_of_the_text_is_tr003(tmp_path: Path) -> None:
    """The text stops inside `<tool_call>`: a cut block at the end of the text is the proof."""
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'
    doc = {"session_id": "s-cut-block", "messages": [{"role": "assistant", "content": text}]}
    path = tmp_path / "cut_block.json"
    path.write_text(json.dumps(doc))
    found = _findings(path)
    (tr003,) = [f for f in found if f.code == "TR003"]
    assert "the text ends inside the tool_call block, before </tool_call>" in tr003.message
    (pr001,) = [f for f in found if f.code == "PR001"]
    assert "cut off" in pr001.message and "not valid JSON" not in pr001.message


@pytest.mark.corpus
def test_a_replayed_tool_search_is_info_not_an_unknown_tool_error(corpus: Path) -> None:
    """pydantic-ai replays an OpenAI capability load into Anthropic's tool-search shape: a
    `search_tools` call (id `auto_load_…`) answered with tool_reference blocks, in a request
    whose tools do not name it; Anthropic answered it (200). True against the tools, but no
    error: the model invented nothing."""
    cassette = (
        corpus
        / "conversations"
        / "pydantic-ai_vcr_cassettes"
        / "test_tool_search__test_cross_provider_capability_replay"
        "[openai-responses-gpt-5.4-anthropic-claude-sonnet-4-5].yaml"
    )
    (pr002,) = [f for f in _findings(cassette) if f.code == "PR002"]
    assert pr002.severity.value == "info"
    assert pr002.tool == "search_tools" and "tool_reference" in pr002.message
    assert "Nothing failed" in (pr002.fix or "")


def test_an_unknown_name_without_tool_references_stays_an_error() -> None:
    """The negative: the MCP session's `no_such_tool` got an ordinary error result."""
    mcp = Path(__file__).resolve().parents[2] / "fixtures" / "mcp" / "session_2025-11-25.jsonl"
    (pr002,) = [f for f in _findings(mcp) if f.code == "PR002"]
    assert (pr002.severity.value, pr002.tool) == ("error", "no_such_tool")
