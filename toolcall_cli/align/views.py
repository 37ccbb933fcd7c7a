"""CallView objects from per-call columns: the one place align makes a Python object per call.

Everything before this works on arrays; a quarter of a million calls (a million events)
still means a quarter of a million objects, so this module builds them in one pass from
plain lists, with the cyclic garbage collector paused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.arrays import NAT, encode
from toolcall_cli.align.model import PHASES, CallView
from toolcall_cli.model.config import Sla
from toolcall_cli.model.gcpause import no_gc


def build_views(cols: dict[str, Any], sla: Sla) -> tuple[CallView, ...]:
    """The CallViews, ordered by start (none last), then trace and origin.

    *cols* holds one entry per call in each column: `tool_call_id`, `tool`, `trace`,
    `session_id`, `origin`, `cancelled_origin`, `cancelled_note` (Arrow text), `outcome` and
    `cancelled_by` (object arrays), `start` and `cancelled_ns` (int64 ns, NAT for none),
    `trace_code` (codes ranked by `trace_ranks`) and each of :data:`PHASES` (float ms, NaN
    for none)."""
    start = cols["start"]
    isnat = start == NAT
    ranks = np.append(cols["trace_ranks"], -1)  # no trace sorts as "", before any trace
    keys = [ranks[cols["trace_code"]], np.where(isnat, 0, start), isnat]
    order = np.lexsort(keys)
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for key in keys:
        same &= key[order][1:] == key[order][:-1]
    if same.any():  # equal start and trace: the origin decides
        origin = encode(pc.fill_null(cols["origin"], ""))
        order = np.lexsort([origin.ranks()[origin.codes], *keys])
    limits = {
        "initiation_ms": sla.initiation_ms,
        "service_ms": sla.service_ms,
        "injection_ms": sla.injection_ms,
        "end_to_end_ms": sla.end_to_end_ms,
    }
    mask = np.zeros(len(start), dtype=np.int64)
    values = []
    for bit, p in enumerate(PHASES):
        mask |= (cols[p] > limits[p]).astype(np.int64) << bit
        v = cols[p][order].astype(object)
        v[np.isnan(cols[p][order])] = None
        values.append(v.tolist())
    combos = [tuple(p for bit, p in enumerate(PHASES) if m >> bit & 1) for m in range(16)]
    take = pa.array(order)
    text = {
        k: cols[k].take(take).to_numpy(zero_copy_only=False).tolist()
        for k in (
            "tool_call_id",
            "tool",
            "trace",
            "session_id",
            "origin",
            "cancelled_origin",
            "cancelled_note",
        )
    }
    starts = np.where(isnat, None, start)[order].tolist()
    cancelled = cols["cancelled_ns"]
    cancelled_ns = np.where(cancelled == NAT, None, cancelled)[order].tolist()
    with no_gc():  # a quarter of a million small objects: no collections while they are made
        dicts = [
            {PHASES[0]: w, PHASES[1]: x, PHASES[2]: y, PHASES[3]: z}
            for w, x, y, z in zip(*values, strict=True)
        ]
        return tuple(
            map(
                CallView,
                text["tool_call_id"],
                text["tool"],
                text["trace"],
                text["session_id"],
                cols["outcome"][order].tolist(),
                dicts,
                [combos[m] for m in mask[order].tolist()],
                text["origin"],
                starts,
                text["cancelled_origin"],
                cancelled_ns,
                cols["cancelled_by"][order].tolist(),
                text["cancelled_note"],
            )
        )
