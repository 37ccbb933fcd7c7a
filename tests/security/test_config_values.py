"""Config values of the wrong type or shape are one-line usage errors (exit 2), never exit 70
and never silently reinterpreted (`patterns = "abc"` is not three one-letter patterns)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli

MW = FIXTURES / "middleware" / "json_lines.log"
FORMAT = "[[formats]]\nname = 'x'\nregex = '^<(?P<tool>[a-z]+)>'\nsamples = ['<a>']\n"

BAD = {
    "window inf": "[flooding]\nwindow_s = inf\n",
    "window nan": "[flooding]\nwindow_s = nan\n",
    "max_calls inf": "[flooding]\nmax_calls = inf\n",
    "sla nan": "[sla]\nservice_ms = nan\n",
    "max_decompressed inf": "[limits]\nmax_decompressed = inf\n",
    "message window -inf": "[messages]\nwindow = -inf\n",
    "patterns a string": "[redact]\npatterns = 'abc'\n",
    "patterns [1]": "[redact]\npatterns = [1]\n",
    "json_paths [1]": "[redact]\njson_paths = [1]\n",
    "enabled a string": "[redact]\nenabled = 'no'\n",
    "pattern matching empty": "[redact]\npatterns = ['x*']\n",
    "pattern lookahead": "[redact]\npatterns = ['(?=a)b']\n",
    "samples [1]": FORMAT.replace("['<a>']", "[1]"),
    "samples a string": FORMAT.replace("['<a>']", "'<a>'"),
    "regex 5": FORMAT.replace("'^<(?P<tool>[a-z]+)>'", "5"),
    "regex backref": FORMAT.replace("'^<(?P<tool>[a-z]+)>'", "'^<(?P<tool>[a-z]+)>(?P=tool)'"),
    "regex \\Z": FORMAT.replace("'^<(?P<tool>[a-z]+)>'", "'^<(?P<tool>[a-z]+)>\\Z'"),
}


@pytest.mark.parametrize("text", BAD.values(), ids=list(BAD))
def test_a_bad_value_is_a_one_line_usage_error(tmp_path: Path, text: str) -> None:
    cfg = tmp_path / "toolcall.toml"
    cfg.write_text(text)
    res = run_cli(["--config", str(cfg), "ingest", "--no-store", str(MW)])
    assert res.exit_code == 2, (res.exit_code, res.stderr)
    assert res.stderr.startswith(f"toolcall: error: {cfg}: ")
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr


def test_good_values_still_load(tmp_path: Path) -> None:
    cfg = tmp_path / "toolcall.toml"
    cfg.write_text(
        "[flooding]\nwindow_s = 30.5\n[redact]\npatterns = ['ACME-[0-9]{8}']\n"
        "json_paths = ['/card/number']\n" + FORMAT
    )
    res = run_cli(["--config", str(cfg), "ingest", "--no-store", str(MW)])
    assert res.exit_code == 0, res.stderr
