"""`toolcall config show|init` end to end: sources of each value, the template file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli

BOOKING = ROOT / "fixtures/replay/booking/toolcall.toml"


def _show(args: list[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None) -> Any:
    res = run_cli([*args, "config", "show", "-f", "json"], cwd=cwd, env=env)
    assert res.exit_code == 0, res.stderr
    return {s["key"]: s for s in json.loads(res.stdout)["settings"]}


def test_sources_default_flag_env_and_named_file() -> None:
    rows = _show(["--config", str(BOOKING), "--color", "never"],
                 env={"TOOLCALL_MAX_DECOMPRESSED": "256M", "TOOLCALL_FORMAT": "json"})  # fmt: skip
    assert rows["flooding.per_tool"] == {
        **rows["flooding.per_tool"],
        "value": {"send_email": 2},
        "source": f"--config {BOOKING}",
    }
    assert rows["flooding.dedupe"]["source"] == "default"
    assert rows["limits.max_decompressed"]["value"] == 256 << 20
    assert rows["limits.max_decompressed"]["source"] == "env TOOLCALL_MAX_DECOMPRESSED"
    assert (rows["--color"]["value"], rows["--color"]["source"]) == ("never", "flag --color")
    assert rows["--format"]["source"] == "env TOOLCALL_FORMAT"
    assert rows["--config"]["value"] == str(BOOKING)


@pytest.mark.config_discovery
def test_discovered_file_is_named_as_discovered(tmp_path: Path) -> None:
    (tmp_path / "toolcall.toml").write_text("[sla]\nservice_ms = 900\n[redact]\nenabled = false\n")
    rows = _show([], cwd=tmp_path)
    assert rows["sla.service_ms"]["value"] == 900
    assert rows["sla.service_ms"]["source"] == f"discovered {tmp_path / 'toolcall.toml'}"
    assert rows["redact.enabled"]["value"] is True  # discovery may not turn redaction off
    assert rows["redact.enabled"]["source"].startswith("default (a discovered file may not")


def test_init_writes_a_template_and_refuses_to_overwrite(tmp_path: Path) -> None:
    res = run_cli(["config", "init"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    written = (tmp_path / "toolcall.toml").read_text()
    assert "# window_s = 60" in written and "[flooding]" in written
    assert tomllib.loads(written)["flooding"] == {}  # everything commented out
    again = run_cli(["config", "init"], cwd=tmp_path)
    assert again.exit_code == 2 and "--force" in again.stderr
    assert run_cli(["config", "init", "--force"], cwd=tmp_path).exit_code == 0
    stdout = run_cli(["config", "init", "-o", "-"], cwd=tmp_path)
    assert stdout.stdout == written


def test_show_table_names_the_file_in_force() -> None:
    res = run_cli(["--config", str(BOOKING), "config", "show"], cwd=ROOT)
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == f"config file: {BOOKING}"
