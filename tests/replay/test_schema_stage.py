"""schema: draft selection, strict date format, every violation with its path, business rules."""

from __future__ import annotations

from typing import Any

import orjson

from tests.replay.replay_helpers import ctx, registry, tc
from toolcall_cli.replay import schema
from toolcall_cli.replay.base import Verdict
from toolcall_cli.replay.schema import format_checker

GOOD = {"user_id": "u1", "date_range": {"start": "2024-05-01", "end": "2024-05-31"}}
NOW = "2024-05-10T12:00:00Z"


def _check(args: object, **kw: Any) -> Verdict:  # kw: passed through to tc()
    return schema.check(tc(args=orjson.dumps(args).decode(), **kw), ctx(reg=registry()))


def test_valid_arguments_pass() -> None:
    v = _check(GOOD, now="2024-05-01T00:00:00Z")
    assert (v.verdict, v.code) == ("pass", "ok")


def test_every_violation_is_reported_with_its_path() -> None:
    bad = {"user_id": "", "date_range": {"start": "2024/05/01"}, "unit": "year"}
    v = _check(bad, now=NOW)
    assert (v.verdict, v.code) == ("fail", "schema-violation")
    lines = v.detail.splitlines()
    assert any(line.startswith("$.user_id:") for line in lines)  # minLength
    assert any(line.startswith("$.date_range.start:") and "date" in line for line in lines)
    assert any(line.startswith("$.date_range:") and "'end'" in line for line in lines)  # required
    assert any(line.startswith("$.unit:") for line in lines)  # enum
    assert v.reason.startswith("4 violations")


def test_missing_required_top_level_field() -> None:
    v = _check({"user_id": "u1"})
    assert v.code == "schema-violation"
    assert "'date_range' is a required property" in v.reason


def test_date_must_be_real_and_zero_padded() -> None:
    fc = format_checker()
    assert fc.conforms("2024-02-29", "date")
    assert not fc.conforms("2023-02-29", "date")
    assert not fc.conforms("2024-5-01", "date")
    assert not fc.conforms("20240501", "date")


def test_other_formats_are_checked() -> None:
    fc = format_checker()
    assert not fc.conforms("nope", "email") and fc.conforms("a@b.c", "email")
    assert not fc.conforms("zz", "uuid") and fc.conforms(
        "12345678-1234-5678-1234-567812345678", "uuid"
    )
    assert not fc.conforms("2024-05-01", "date-time") and fc.conforms(
        "2024-05-01T00:00:00Z", "date-time"
    )


def test_business_rules_use_the_event_time_not_the_wall_clock() -> None:
    args = {"user_id": "u1", "date_range": {"start": "2024-06-30", "end": "2024-05-09"}}
    v = _check(args, now=NOW)
    assert (v.verdict, v.code) == ("fail", "business-rule")
    assert "$.date_range.start" in v.detail and "max_days_from_now" in v.detail
    assert "$.date_range.end" in v.detail and "min_date today" in v.detail
    # the same call a month later in the evidence is fine for `start` (within 30 days)
    later = _check(
        {"user_id": "u1", "date_range": {"start": "2024-06-30", "end": "2024-06-30"}},
        now="2024-06-15T00:00:00Z",
    )
    assert later.verdict == "pass"


def test_absolute_min_date() -> None:
    v = _check(
        {"user_id": "u1", "date_range": {"start": "2019-12-31", "end": "2030-01-01"}}, now=NOW
    )
    assert v.code == "business-rule" and "2020-01-01" in v.reason


def test_relative_rules_need_an_event_time() -> None:
    v = _check({"user_id": "u1", "date_range": {"start": "2099-01-01", "end": "2099-01-01"}})
    assert v.verdict == "pass"
    assert "not checked (no event time)" in v.reason


def test_draft7_schema_is_honoured() -> None:
    tool = {
        "name": "t",
        "input_schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "items": [{"type": "string"}],
        },
    }
    c = ctx(reg=registry(tool))
    assert schema.check(tc(tool="t", args='{"n": "x"}'), c).code == "schema-violation"
    assert schema.check(tc(tool="t", args='{"n": 3}'), c).verdict == "pass"


def test_bfcl_dialect_is_normalised() -> None:
    tool = {
        "name": "calc",
        "description": "",
        "parameters": {
            "type": "dict",
            "properties": {
                "x": {"type": "float"},
                "pair": {"type": "tuple", "items": {"type": "integer"}},
                "anything": {"type": "any"},
            },
            "required": ["x"],
        },
    }
    c = ctx(reg=registry(tool))
    assert (
        schema.check(
            tc(tool="calc", args='{"x": 1.5, "pair": [1, 2], "anything": null}'), c
        ).verdict
        == "pass"
    )
    assert schema.check(tc(tool="calc", args='{"x": "1.5"}'), c).code == "schema-violation"


def test_no_registry_skips() -> None:
    v = schema.check(tc(), ctx())
    assert (v.verdict, v.code) == ("skip", "no-registry")


def test_invalid_registered_schema_skips_with_reason() -> None:
    tool = {
        "name": "t",
        "input_schema": {
            "type": "object",
            "properties": {"s": {"type": "string", "pattern": "(["}},
        },
    }
    v = schema.check(tc(tool="t", args='{"s": "x"}'), ctx(reg=registry(tool)))
    assert (v.verdict, v.code) == ("skip", "invalid-schema")
