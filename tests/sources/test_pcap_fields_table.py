"""The fields table (sources/pcap/fields_table.py): Arrow's reading equals pandas' on tshark's
real output, and what Arrow cannot read as pandas does goes through pandas' parser."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FIXTURES
from toolcall_cli.sources.pcap import fields_table
from toolcall_cli.sources.pcap import tshark as pcap_tshark

NAMES = ("a", "b", "c")


def _fields_output(capture: Path) -> bytes:
    cmd = pcap_tshark.command(pcap_tshark.locate(), capture)
    return subprocess.run(cmd, capture_output=True, check=True, env=pcap_tshark.run_env()).stdout


@pytest.mark.tshark
@pytest.mark.parametrize("name", ["tool_calls.pcap", "llm_api.pcap", "chunked_gzip.pcap"])
def test_arrow_reads_tsharks_rows_as_pandas_does(tshark: str, name: str) -> None:
    data = _fields_output(FIXTURES / "pcap" / name)
    table = fields_table.parse(data, pcap_tshark.FIELDS)
    assert fields_table._arrow(data, pcap_tshark.FIELDS) is not None  # the fast path ran
    expected = fields_table._pandas(data, pcap_tshark.FIELDS)
    pd.testing.assert_frame_equal(table, expected)
    assert len(table) == data.count(b"\n")


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"x\ty\tz\nbad \xff byte\t\t\n", "not UTF-8: pandas replaces the byte"),
        (b"x\ty\tz\nshort\trow\n", "a short row: pandas pads it"),
        (b"x\ty\tz\none\ttoo\tmany\tfields\n", "a long row: pandas skips it"),
    ],
)
def test_what_arrow_reads_differently_goes_through_pandas(data: bytes, why: str) -> None:
    assert fields_table._arrow(data, NAMES) is None, why
    pd.testing.assert_frame_equal(
        fields_table.parse(data, NAMES), fields_table._pandas(data, NAMES)
    )


def test_empty_output_is_an_empty_table_of_the_fields() -> None:
    table = fields_table.parse(b"\n", NAMES)
    assert list(table.columns) == list(NAMES)
    assert table.empty


def test_empty_fields_are_empty_strings_not_missing() -> None:
    table = fields_table.parse(b"x\t\tz\n\t\t\n", NAMES)
    assert table.to_dict("list") == {"a": ["x", ""], "b": ["", ""], "c": ["z", ""]}
