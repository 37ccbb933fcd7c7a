"""Independent evidence, classified apart: a reused id never joins two conversations' facts.

Rules look calls up by `tool_call_id` as written. Alignment already keeps ids scoped (an id
in two conversations is two calls in two traces), but a rule that indexes the whole table by
the raw id would still see both. So diagnose splits the aligned timeline into *units* (the
rows linked by trace or session) and, only when some raw id is carried by two units, deals
the units into batches in which no raw id is shared (greedy colouring, first come first
served). Each batch is classified on its own and the findings are pooled: diagnosing a
directory of independent bundles gives the union of diagnosing each (DESIGN §3). With no
shared id there is one batch, the whole timeline, and nothing is copied.

Codes that judge the evidence as a whole (clock skew per source, ambiguous ids) run once on
the whole timeline: :data:`WHOLE_TIMELINE`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolcall_cli.align.keys import label_rows
from toolcall_cli.align.select import restrict
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.evidence import Cited
from toolcall_cli.diagnose.kit.frames import first_rows
from toolcall_cli.model.findings import Finding

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

#: A batch context's memo: its rows' positions in the whole context's table.
_WHOLE_ROWS = "batch_rows_in_whole"
#: Codes run once over the whole timeline, never per batch.
WHOLE_TIMELINE = frozenset({"IN002", "IN003"})


def split_context(ctx: DiagnoseContext) -> list[DiagnoseContext]:
    """*ctx* itself when no raw id spans two units, else one context per batch (a batch's
    table is re-indexed: :func:`in_whole` maps its findings' cited rows back)."""
    import numpy as np
    import pandas as pd

    ev = ctx.events()
    if not len(ev) or "trace" not in ev.columns:
        return [ctx]
    trace, _ = pd.factorize(ev["trace"], use_na_sentinel=True)
    sess, _ = pd.factorize(ev["session_id"], use_na_sentinel=True)
    unit = label_rows([np.asarray(trace), np.asarray(sess)])
    ids, _ = pd.factorize(ev["tool_call_id"], use_na_sentinel=True)
    ids = np.asarray(ids)
    has = (ids >= 0) & (unit >= 0)
    pairs = first_rows(pd.DataFrame({"id": ids[has], "unit": unit[has]}), ["id", "unit"])
    spread = pairs.groupby("id")["unit"].transform("size") >= 2
    shared = pairs[spread.to_numpy()]
    if not len(shared):
        return [ctx]
    batch_of = _colour(shared)
    batch = np.zeros(len(ev), dtype=np.int64)
    known = unit >= 0
    batch[known] = pd.Series(unit[known]).map(batch_of).fillna(0).to_numpy(dtype=np.int64)
    return [_sub(ctx, batch == b) for b in range(int(batch.max()) + 1)]


def in_whole(findings: Iterable[Finding], part: DiagnoseContext) -> list[Finding]:
    """*findings* of the batch *part* with each evidence row cited by label (`Cited`)
    relabelled to its row in the whole context's table, where `stand_in` reads its text
    (a capture frame is quoted by that text: read from the batch's label, it named another
    event)."""
    rows = part.memo(_WHOLE_ROWS, lambda: None)  # None: the whole context itself
    if rows is None:
        return list(findings)
    out = []
    for f in findings:
        if any(isinstance(e, Cited) and e.row is not None for e in f.evidence):
            evidence = tuple(
                dataclasses.replace(e, row=int(rows[e.row]))
                if isinstance(e, Cited) and e.row is not None
                else e
                for e in f.evidence
            )
            f = dataclasses.replace(f, evidence=evidence)
        out.append(f)
    return out


def _colour(shared: pd.DataFrame) -> dict[int, int]:
    """Per unit that shares an id, the lowest batch none of its ids' other units took."""
    taken: dict[int, set[int]] = {}
    out: dict[int, int] = {}
    order = shared.sort_values("unit", kind="stable")
    for unit, ids in order.groupby("unit", sort=True)["id"]:
        used: set[int] = set()
        for i in ids.tolist():
            used |= taken.get(i, set())
        b = 0
        while b in used:
            b += 1
        out[int(unit)] = b  # type: ignore[arg-type]
        for i in ids.tolist():
            taken.setdefault(i, set()).add(b)
    return out


def _sub(ctx: DiagnoseContext, mask: np.ndarray) -> DiagnoseContext:
    """A context over the rows of *mask*: their events, calls and sessions (its row k is
    the whole table's row `flatnonzero(mask)[k]`, kept for :func:`in_whole`)."""
    import numpy as np

    sub = restrict(ctx.timeline, mask)  # type: ignore[arg-type]
    part = DiagnoseContext(timeline=sub, cfg=ctx.cfg, registry=ctx.registry)
    part.memo(_WHOLE_ROWS, lambda: np.flatnonzero(mask))
    return part
