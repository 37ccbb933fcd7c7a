"""Every config key is defined once (`model.config_keys`): loader, `config init`, show agree."""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace

import pytest

from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import DEFAULT, SECTIONS, TOP_KEYS, check_known, config_from_dict
from toolcall_cli.model.config_keys import KEYS
from toolcall_cli.model.config_show import effective, init_text

_SETTING = re.compile(r"^# (\[\[\w+\]\]|\w+ = .*?)(\s+# example; the default is empty)?$")


def _uncommented() -> str:
    """The init template with every key line (and the [[formats]] header) uncommented."""
    out = []
    for line in init_text().splitlines():
        m = _SETTING.match(line)
        out.append(m[1] if m else line)
    return "\n".join(out)


def test_the_loader_accepts_exactly_the_documented_keys() -> None:
    documented = {k.path for k in KEYS}
    accepted = set(TOP_KEYS) | {f"{s}.{k}" for s, keys in SECTIONS.items() for k in keys}
    assert documented == accepted
    assert len(documented) == len(KEYS)  # each key once


def test_init_template_changes_nothing_until_uncommented() -> None:
    data = tomllib.loads(init_text())
    assert replace(config_from_dict(data), raw={}) == replace(DEFAULT, raw={})


def test_init_template_holds_every_key_and_each_line_is_valid() -> None:
    text = _uncommented()
    data = tomllib.loads(text)
    check_known(data, "template")
    cfg = config_from_dict(data)  # every default and example is a value the loader takes
    assert cfg.formats[0].name == "legacy" and cfg.flooding.per_tool == {
        "send_email": 2,
        "execute_payment": 1,
    }
    for key in KEYS:
        table = data if not key.section else data[key.section]
        table = table[0] if isinstance(table, list) else table
        assert key.name in table, key.path


def test_show_reports_every_key_with_its_source(tmp_path: pytest.TempPathFactory) -> None:
    cfg = config_from_dict({"flooding": {"dedupe": False}}, path=None)
    rows = {s.key: s for s in effective(cfg).settings}
    assert set(rows) == {k.path for k in KEYS}
    assert rows["flooding.dedupe"].value is False and rows["flooding.window_s"].value == 60.0
    assert {s.source for s in rows.values()} == {"default"}  # no file: nothing is from one


def test_unknown_key_is_refused_with_did_you_mean() -> None:
    with pytest.raises(UsageError) as e:
        check_known({"flooding": {"dedup": True}}, "t.toml")
    assert e.value.hint is not None and "did you mean dedupe?" in e.value.hint
