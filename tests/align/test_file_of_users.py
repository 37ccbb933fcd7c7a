"""The HTML report's `inputs` line and IN001 name each file by `model.origins.file_of`, the one
function for the file of an origin (alignment scopes ids by it).

Over every origin of the fixtures and the corpus their old copies (a pandas regex, a Python
one) gave the same files; they differed only where Python and RE2 read a regex apart: a name
ending in `:` and digits other than ASCII ones (Python's `\\d` takes them) was cut there as if
they were a line number.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import FIXTURES, run_cli


def test_the_inputs_line_names_a_file_whose_name_ends_in_colon_digits(tmp_path: Path) -> None:
    name = "provider_error:٢"  # Arabic-Indic two: part of the name, no line number
    shutil.copy(FIXTURES / "messages" / "provider_error.json", tmp_path / name)
    page = run_cli(["timeline", name, "--format", "html"], cwd=tmp_path).stdout
    assert f"<dt>inputs</dt><dd>{name}</dd>" in page  # it said `provider_error`


def test_in001_names_a_file_whose_name_ends_in_colon_digits(tmp_path: Path) -> None:
    """IN001 counts unparsed records per file by the same function (its own copy, a Python
    regex, cut `:٣` off the name and named a file that does not exist)."""
    import orjson

    name = "broken_types:٣"
    shutil.copy(FIXTURES / "messages" / "broken_types.json", tmp_path / name)
    res = run_cli(["diagnose", name, "-f", "json", "--fail-on", "never"], cwd=tmp_path)
    said = [f["message"] for f in orjson.loads(res.stdout)["findings"] if f["code"] == "IN001"]
    assert [m.split(" could not")[0] for m in said] == [f"5 records of {name}"]
