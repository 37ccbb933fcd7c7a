"""Redaction: built-in secret shapes, user patterns and JSON paths, column-wise."""

from __future__ import annotations

import pytest

from toolcall_cli.model.config import Redact
from toolcall_cli.model.events import build_frame
from toolcall_cli.model.redact import DEFAULT_REDACTOR, MARK, Redactor

SECRETS = {
    "Authorization: Bearer abcdefghijklmnop": "abcdefghijklmnop",
    '{"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}': "dXNlcjpwYXNzd29yZA",
    "Proxy-Authorization: Basic Zm9vOmJhcg==": "Zm9vOmJhcg",
    "Cookie: session=abc123; theme=dark": "abc123",
    "Set-Cookie: sid=s3cr3t; Path=/; HttpOnly": "s3cr3t",
    "X-Api-Key: 9f8e7d6c5b4a": "9f8e7d6c5b4a",
    "use sk-proj-ABCDEFGHIJKLMNOPQRST1234 now": "ABCDEFGHIJKLMNOPQRST1234",
    "key=sk-ant-api03-abcdefghijklmnopqrstuv": "abcdefghijklmnopqrstuv",
    "AKIAIOSFODNN7EXAMPLE in config": "IOSFODNN7EXAMPLE",
    "token ghp_" + "a1B2" * 9: "a1B2a1B2a1B2",
    "xoxb-123456789012-abcdefABCDEF": "abcdefABCDEF",
}


@pytest.mark.parametrize("text,secret", SECRETS.items())
def test_builtin_rules(text: str, secret: str) -> None:
    out = DEFAULT_REDACTOR.text(text)
    assert secret not in out
    assert MARK in out


def test_harmless_text_untouched() -> None:
    for s in (
        "get_weather",
        '{"city": "Paris"}',
        "POST /tools/search HTTP/1.1",
        "skipping sk-short",
    ):
        assert DEFAULT_REDACTOR.text(s) == s


def test_frame_user_pattern_and_json_path() -> None:
    r = Redactor.from_config(Redact(patterns=("ACME-[0-9]{8}",), json_paths=("/card/number",)))
    df = build_frame(
        {
            "seq": [0, 1],
            "source": ["messages", "middleware"],
            "origin": ["m#/0", "l:1"],
            "kind": ["tool_call", "mw_other"],
            "args": ['{"card": {"number": "4111111111111111", "exp": "12/30"}}', None],
            "detail": [None, "customer ACME-12345678 paid, Authorization: Bearer zzzzzzzzzzzz"],
        }
    )
    out = r.frame(df)
    assert "4111111111111111" not in out["args"].iloc[0]
    assert '"exp":"12/30"' in out["args"].iloc[0]
    assert "ACME-12345678" not in out["detail"].iloc[1]
    assert "zzzzzzzzzzzz" not in out["detail"].iloc[1]
    assert df["detail"].iloc[1].endswith("zzzz")  # input not mutated


def test_disabled_is_identity() -> None:
    r = Redactor(enabled=False)
    assert r.text("Authorization: Bearer abcdefghijklmnop").endswith("mnop")


def test_correlation_tokens_are_not_credentials() -> None:
    # An MCP progress token joins notifications to their request and a page token is a
    # cursor: hiding them hides the join. The credential next to them still goes.
    out = DEFAULT_REDACTOR.text(
        '{"progress_token": "pt-77", "progressToken": 78, "next_page_token": "p2",'
        ' "eos_token": "</s>", "access_token": "abcdefghijkl"}'
    )
    assert '"progress_token":"pt-77"' in out.replace(" ", "")
    assert '"progressToken":78' in out.replace(" ", "")
    assert '"next_page_token":"p2"' in out.replace(" ", "")
    assert '"eos_token":"</s>"' in out.replace(" ", "")
    assert "abcdefghijkl" not in out


def test_many_distinct_values_one_pass_finds_the_one_secret() -> None:
    # a column of many distinct ids is first tested whole (all its text in one RE2 pass):
    # the one id holding a key is still replaced, and one split across two rows is not
    import pyarrow as pa

    ids = [f"call_{i}" for i in range(5000)]
    ids[4321] = "sk-proj-ABCDEFGHIJKLMNOPQRST1234"
    ids[10], ids[11] = "id-s", "k-proj-ABCDEFGHIJKLMNOPQRST1234"  # "sk-" only across rows
    arr = pa.array(ids, pa.large_string()).slice(1)  # an offset into the buffers, too
    out = DEFAULT_REDACTOR._array(arr).to_pylist()
    assert MARK in out[4320] and "ABCDEFGHIJ" not in out[4320]
    assert out[:4320] + out[4321:] == ids[1:4321] + ids[4322:]
    clean = pa.array([f"call_{i}" for i in range(5000)], pa.large_string())
    assert DEFAULT_REDACTOR._array(clean) is clean  # nothing to rewrite: the same array
