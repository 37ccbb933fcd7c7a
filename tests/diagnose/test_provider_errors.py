"""PR008: real provider error messages, in any source, mapped to their cause."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import need_corpus
from tests.diagnose.rule_fixture_helpers import run_rule
from toolcall_cli.diagnose import CLASSIFIERS, DiagnoseContext, diagnose_events
from toolcall_cli.diagnose.rules.protocol.provider_error import match_error
from toolcall_cli.model.findings import Finding, Severity
from toolcall_cli.sources import parse_file


def test_fires_on_positive_fixture() -> None:
    (f,) = run_rule("PR008", "positive")
    extra = dict(f.extra)
    assert (extra["provider"], extra["related_code"]) == ("anthropic", "OR001")


def test_silent_on_negative_fixture() -> None:
    assert run_rule("PR008", "negative") == []


@pytest.mark.parametrize(
    ("message", "provider", "code"),
    [
        (
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
            "message with 'tool_calls'.",
            "openai",
            "OR002",
        ),
        (
            "messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
            "openai",
            "OR002",
        ),
        (
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            "response messages: call_9",
            "openai",
            "OR001",
        ),
        (
            "Invalid parameter: Duplicate value for 'tool_call_id' of call_1 in message[3]",
            "openai",
            "FL003",
        ),
        ("messages.1.content.2: `tool_use` ids must be unique", "anthropic", "FL003"),
        (
            "messages.3: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: toolu_1",
            "anthropic",
            "OR001",
        ),
        (
            "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: T1",
            "anthropic",
            "OR002",
        ),
        (
            "The toolUse blocks at messages.1.content contain duplicate Ids: tooluse_abc",
            "bedrock",
            "FL003",
        ),
        ("Not the same number of function calls and responses", "mistral", "OR001"),
        (
            "<400> InternalError.Algo.InvalidParameter: Repetitive tool calls detected",
            "dashscope",
            "FL001",
        ),
        ("No tool output found for tool call call-a.", "deepseek", "OR001"),
        ("No tool output found for function call call_abc.", "openai", "OR001"),
        (
            "MESSAGES WITH ROLE 'TOOL' MUST BE A RESPONSE TO A PRECEEDING MESSAGE WITH "
            "'TOOL_CALLS'",
            "openai",
            "OR002",
        ),
        (
            '{\\"message\\": \\"Duplicate value for \\\\\\"tool_call_id\\\\\\"\\"}',
            "openai",
            "FL003",
        ),
        ("tools.0.custom.input_schema.type: Field required", "anthropic", "SC001"),
    ],
)
def test_known_messages(message: str, provider: str, code: str) -> None:
    known = match_error(message)
    assert known is not None
    assert (known.provider, known.related_code) == (provider, code)


def test_weak_patterns_only_in_provider_bodies() -> None:
    assert match_error("we hit a rate limit yesterday") is None
    got = match_error("Rate limit reached for gpt-4o", provider_body=True)
    assert got is not None and "rate-limited" in got.cause


def _a(**kw: object) -> str:
    return json.dumps(kw)


def test_found_in_a_middleware_line_and_grouped(make_ctx: Callable[..., DiagnoseContext]) -> None:
    line = "upstream 400: Invalid parameter: Duplicate value for 'tool_call_id' of call_7"
    rows = [
        {
            "source": "middleware",
            "kind": "mw_other",
            "ts": f"2025-03-01T12:00:0{i}Z",
            "trace_id": "t1",
            "detail": line,
        }
        for i in range(3)
    ]
    (f,) = list(CLASSIFIERS.get("PR008")(make_ctx(rows)))
    assert "(3 times)" in f.message and len(f.evidence) == 3
    assert dict(f.extra)["related_code"] == "FL003"


def test_unrecognised_provider_error_is_a_warning(make_ctx: Callable[..., DiagnoseContext]) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "system",
            "session_id": "s",
            "status": "error",
            "http_status": 400,
            "detail": "Something odd happened",
            "attrs": _a(provider_error=True, provider="acme"),
        }
    ]
    (f,) = list(CLASSIFIERS.get("PR008")(make_ctx(rows)))
    assert f.severity is Severity.warning and dict(f.extra)["cause"] == "unknown"


def test_user_text_mentioning_a_tool_is_not_an_error(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "user",
            "session_id": "s",
            "detail": "please call the tool and use ids",
            "attrs": _a(msg_index=0),
        }
    ]
    assert list(CLASSIFIERS.get("PR008")(make_ctx(rows))) == []


def _pr008(path_parts: tuple[str, ...]) -> list[Finding]:
    path = need_corpus().joinpath("conversations", *path_parts)
    rep = diagnose_events(parse_file(path), select=["PR008"])
    return list(rep.findings)


VERCEL = "vercel-ai_provider_fixtures"
PYDANTIC = "pydantic-ai_vcr_cassettes"


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("parts", "related", "cause_has"),
    [
        (
            (VERCEL, "anthropic__anthropic-parallel-provider-client-tools.error.json"),
            "OR001",
            "tool_result",
        ),
        (
            (VERCEL, "anthropic__anthropic-issue-21832-unexpected-tool-use-id.json"),
            "OR002",
            "orphan",
        ),
        (
            (VERCEL, "anthropic__anthropic-issue-12504-orphaned-caller-error.1.json"),
            "OR002",
            "orphaned caller",
        ),
        (
            (VERCEL, "anthropic__anthropic-root-union-tool-schema-error.json"),
            "SC001",
            "input_schema",
        ),
        (
            (VERCEL, "openai__chat__qwen-plus-malformed-replayed-tool-arguments-error.json"),
            "PR001",
            "not JSON",
        ),
        (
            (
                PYDANTIC,
                "models__test_deepseek_responses__test_deepseek_responses_rejects_interleaved_function_calls.yaml",
            ),
            "OR001",
            "tool output",
        ),
        (
            (PYDANTIC, "models__test_groq__test_tool_use_failed_error.yaml"),
            "TR001",
            "schema validation",
        ),
        (
            (PYDANTIC, "models__test_groq__test_tool_use_failed_error_with_text.yaml"),
            None,
            "tool_choice",
        ),
        ((PYDANTIC, "models__test_groq__test_tool_regular_error.yaml"), None, "model name"),
        (
            (PYDANTIC, "models__test_openrouter__test_openrouter_errors_raised.yaml"),
            None,
            "rate-limited",
        ),
    ],
)
def test_recorded_provider_errors(
    parts: tuple[str, ...], related: str | None, cause_has: str
) -> None:
    (f,) = _pr008(parts)
    extra = dict(f.extra)
    assert extra["related_code"] == related
    assert cause_has in extra["cause"]
    assert f.evidence and f.evidence[0].origin.startswith(str(need_corpus()))


@pytest.mark.corpus
def test_successful_provider_fixtures_are_quiet() -> None:
    for name in (
        "openai__chat__qwen-plus-normalized-replayed-tool-arguments-success.json",
        "anthropic__anthropic-tool-no-args.json",
        "groq__groq-tool-call.json",
    ):
        assert _pr008((VERCEL, name)) == [], name


def test_quiet_on_tables_without_calls(make_ctx: Callable[..., DiagnoseContext]) -> None:
    assert list(CLASSIFIERS.get("PR008")(make_ctx([]))) == []
