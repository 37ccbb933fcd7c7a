"""Config loading: defaults, toolcall.toml, [tool.toolcall], and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import DEFAULT, find_config, load_config


def test_defaults_match_design() -> None:
    assert DEFAULT.flooding.max_calls == 5 and DEFAULT.flooding.window_s == 60
    assert DEFAULT.tolerance.timestamp_ms == 500
    assert (DEFAULT.sla.initiation_ms, DEFAULT.sla.service_ms, DEFAULT.sla.injection_ms) == (
        100,
        800,
        50,
    )
    assert DEFAULT.sla.end_to_end_ms == 3000
    assert DEFAULT.message_window == 42


@pytest.mark.config_discovery
def test_toolcall_toml(tmp_path: Path) -> None:
    (tmp_path / "toolcall.toml").write_text(
        'tools = ["t.json"]\n[flooding]\nmax_calls = 3\nper_tool = { send_email = 2 }\n'
        "[[formats]]\nname='x'\nregex='^(?P<ts>\\S+) (?P<event>\\S+)'\nsamples=['2024-01-01 a']\n"
    )
    cfg = load_config(search_from=tmp_path)
    assert cfg.flooding.max_calls == 3 and cfg.flooding.per_tool == {"send_email": 2}
    assert cfg.tools == (tmp_path / "t.json",)
    assert cfg.formats[0].name == "x"


@pytest.mark.config_discovery
def test_pyproject_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.toolcall.sla]\nservice_ms = 1200\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert find_config(sub) == tmp_path / "pyproject.toml"
    assert load_config(search_from=sub).sla.service_ms == 1200


@pytest.mark.parametrize(
    "text,match",
    [
        ("[flooding]\nmax_calls = -1\n", "non-negative"),
        ("[flooding\n", "invalid TOML"),
        ("[[formats]]\nname='x'\nregex='('\nsamples=['a']\n", "invalid regex"),
        ("[[formats]]\nname='x'\nregex='^z'\nsamples=['a']\n", "does not match"),
        ("[redact]\npatterns=['(']\n", "not a valid regex"),
    ],
)
def test_bad_config_is_usage_error(tmp_path: Path, text: str, match: str) -> None:
    p = tmp_path / "toolcall.toml"
    p.write_text(text)
    with pytest.raises(UsageError, match=match):
        load_config(p)


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("[sla]\nservce_ms = 1\n", "unknown key 'servce_ms' in [sla]", "did you mean service_ms?"),
        ("[floding]\nmax_calls = 3\n", "unknown section [floding]", "did you mean flooding?"),
        ("tols = ['t.json']\n", "unknown key tols", "did you mean tools?"),
        ("[[formats]]\nname = 'x'\nregexp = 'a'\n", "unknown key 'regexp' in [formats]",
         "did you mean regex?"),
        ("tz = 5\n", "tz must be a string, got 5", None),
    ],
)  # fmt: skip
def test_unknown_sections_keys_and_wrong_types_are_usage_errors(
    tmp_path: Path, text: str, message: str, hint: str | None
) -> None:
    p = tmp_path / "toolcall.toml"
    p.write_text(text)
    with pytest.raises(UsageError) as err:
        load_config(p)
    assert err.value.message == f"{p}: {message}"
    if hint is None:
        assert err.value.hint is None
    else:
        assert (err.value.hint or "").startswith(hint)


def test_every_known_key_loads_and_defaults_are_the_dataclasses(tmp_path: Path) -> None:
    from toolcall_cli.model.config import SECTIONS

    assert set(SECTIONS["sla"]) == set(DEFAULT.sla.__slots__)
    p = tmp_path / "toolcall.toml"
    p.write_text("[sla]\n[flooding]\n[tolerance]\n[messages]\n[budgets]\n[limits]\n")
    cfg = load_config(p)
    d = DEFAULT
    assert (cfg.sla, cfg.flooding, cfg.tolerance) == (d.sla, d.flooding, d.tolerance)
    assert (cfg.message_window, cfg.max_decompressed) == (d.message_window, d.max_decompressed)
