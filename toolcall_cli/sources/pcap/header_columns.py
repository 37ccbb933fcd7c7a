"""Header values of every message at once: the ``hdr`` column split and matched with pyarrow.

A message's header lines arrive joined by U+001F. Every line of every message is split at its
first colon; a name is trimmed and lower-cased, a value trimmed and freed of tshark's literal
``\\r\\n``; the first non-empty value of each wanted name is its message's. This is
:func:`.http.headers` column-wise: the rows holding anything but ASCII go through that
function, since Python's ``str.strip``/``lower`` and Arrow's kernels part ways only there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources.pcap.arrow_text import scatter
from toolcall_cli.sources.pcap.http import headers
from toolcall_cli.sources.pcap.tshark import AGGREGATOR

#: What ``str.strip()`` removes from an ASCII string.
_ASCII_SPACE: Final = "".join(chr(c) for c in range(128) if chr(c).isspace())
_CRLF: Final = "\\r\\n"  # tshark's escaped line end, four characters
#: `traceparent`: version-traceid-parentid-flags (the trace id is the second field).
_TRACEPARENT: Final = r"(?i)^[0-9a-f]{2}-(?P<trace>[0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}"
#: Python's ``\s`` (str.isspace) spelled for RE2, whose ``\s`` is ASCII only.
_SPACE_CLASS: Final = "".join(f"\\x{{{c:x}}}" for c in range(0x3001) if chr(c).isspace())
_TOOL_PATH: Final = rf"^(?:https?://[^/]+)?/tools/(?P<tool>[^/?#{_SPACE_CLASS}]+)"


def header_values(hdr: pa.Array, wanted: Mapping[str, str]) -> dict[str, pa.Array]:
    """For each ``key: header name`` of *wanted*, the header's value per row (null: absent)."""
    n = len(hdr)
    names = sorted({name.lower() for name in wanted.values()})
    ascii_rows = pc.fill_null(pc.string_is_ascii(hdr), True).to_numpy(zero_copy_only=False)
    odd = np.flatnonzero(~ascii_rows)
    plain = pc.if_else(pa.array(ascii_rows), hdr, pa.scalar(None, hdr.type)) if len(odd) else hdr
    lines = pc.split_pattern(plain, AGGREGATOR)
    row = pc.list_parent_indices(lines)
    flat = pc.list_flatten(lines)
    colon = pc.greater_equal(pc.find_substring(flat, ":"), 0)
    row, flat = row.filter(colon), flat.filter(colon)
    # every line left has a colon: split once, it is [name, value] (list_element is slow)
    halves = pc.list_flatten(pc.split_pattern(flat, ":", max_splits=1))
    even = np.arange(0, len(halves), 2)
    key = pc.ascii_lower(pc.utf8_trim(halves.take(even), _ASCII_SPACE))
    code = pc.index_in(key, pa.array(names, key.type))  # which wanted header, null: none
    wanted_line = pc.is_valid(code)
    row, code = row.filter(wanted_line).to_numpy(), code.filter(wanted_line).to_numpy()
    value = pc.utf8_trim(halves.take(even + 1).filter(wanted_line), _ASCII_SPACE)
    cut = pc.utf8_rtrim(pc.utf8_slice_codeunits(value, 0, -len(_CRLF)), _ASCII_SPACE)
    value = pc.if_else(pc.ends_with(value, _CRLF), cut, value)
    filled = pc.not_equal(value, "").to_numpy(zero_copy_only=False)
    at = np.flatnonzero(filled)
    # lines are in row order, then line order: the first line of a (row, header) pair wins
    _, first = np.unique(row[at] * len(names) + code[at], return_index=True)
    at = at[first]
    slow = headers([hdr[int(i)].as_py() for i in odd], names) if len(odd) else {}
    odd_mask = np.zeros(n, bool)
    odd_mask[odd] = True
    out: dict[str, pa.Array] = {}
    for field, name in wanted.items():
        k = names.index(name.lower())
        mine = at[code[at] == k]
        col = scatter(n, row[mine], value.take(pa.array(mine)))
        if len(odd):
            col = pc.replace_with_mask(col, pa.array(odd_mask), pa.array(slow[names[k]], col.type))
        out[field] = col
    return out


def trace_ids(traceparent: pa.Array) -> pa.Array:
    """The (lower-case) trace id of each ``traceparent`` value, null when it does not parse."""
    found = pc.extract_regex(traceparent, _TRACEPARENT)
    return pc.utf8_lower(pc.struct_field(found, "trace"))


def tools_from_paths(uri: pa.Array) -> pa.Array:
    """The NAME of ``/tools/NAME`` request targets (absolute or origin form), else null."""
    return pc.struct_field(pc.extract_regex(uri, _TOOL_PATH), "tool")
