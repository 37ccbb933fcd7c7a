"""The same span delivered in several files (JSON and protobuf sinks of one collector, a
retrying exporter writing two files) is one span: later deliveries' rows are dropped.

Within a file `Batch.dedupe` already keeps the first delivery; this is the cross-file step:
`drop_redelivered` where the files' tables are joined (diagnose on PATHs), `Redeliveries`
file by file as `toolcall ingest` writes each file to the store before reading the next (it
remembers 8 bytes per row, a hash, not the rows). The conversation recorded twice (span
attributes and the per-message log events of the same chat span) is the same case: both
carry the span id.
Rows are matched on what the span said (trace, span, kind, call id, tool, arguments, detail),
so two different rows of one span both stay.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources.otel.rows import SOURCE

_KEY = ("trace_id", "kind", "tool_call_id", "tool", "args", "detail")


def drop_redelivered(events: pd.DataFrame) -> pd.DataFrame:
    """*events* without the otel rows a file earlier in the table already delivered."""
    mine = (events["source"] == SOURCE).fillna(False).to_numpy()
    if not mine.any():
        return events
    sub = events.loc[mine]
    file = sub["origin"].str.extract(r"^(?P<f>.*?)(?::\d+)?#", expand=False).fillna(sub["origin"])
    key = _row_keys(sub)
    has_span = key["span"].notna()
    # occurrence number of each row within its (file, key): the n-th row of a span in a later
    # file is a repeat when an earlier file already had an n-th identical row
    cols = [*_KEY, "span"]
    key["_n"] = key.groupby([file, *[key[c] for c in cols]], sort=False).cumcount()
    key["_file"] = file
    first_file = key.groupby([*cols, "_n"], sort=False)["_file"].transform("first")
    repeat = has_span & (key["_file"] != first_file)
    if not repeat.any():
        return events
    # a delivery that knew the session (spans) lends it to the kept one that did not (logs)
    session = sub["session_id"].groupby([key[c] for c in [*cols, "_n"]], sort=False)
    known = session.transform("first")
    out = events.copy()
    fill = has_span & sub["session_id"].isna() & known.notna()
    out.loc[fill[fill].index, "session_id"] = known[fill]
    drop = pd.Series(False, index=events.index)
    drop.loc[repeat.index] = repeat.to_numpy()
    return out.loc[~drop.to_numpy()].reset_index(drop=True)


def _row_keys(sub: pd.DataFrame) -> pd.DataFrame:
    """What each row of a span said (`_KEY` columns, nulls as a sentinel) plus its span id."""
    attrs = pa.array(
        sub["attrs"].astype(object).where(sub["attrs"].notna(), None).tolist(), pa.string()
    )
    span = pc.extract_regex(attrs, r'"span_id":"(?P<s>[0-9a-f]{16})"').field("s")
    key = sub[list(_KEY)].astype(object).where(sub[list(_KEY)].notna(), "\x00")
    return key.assign(span=pd.Series(span.to_pylist(), index=sub.index, dtype=object))


@dataclass
class Redeliveries:
    """The otel rows earlier files of one ingest delivered, as hashes; `drop` removes a later
    file's repeats. (The session a repeat knows cannot be lent to a row already written; the
    trace id still joins them.)"""

    seen: list[np.ndarray] = field(default_factory=list)

    def drop(self, frame: pd.DataFrame) -> pd.DataFrame:
        """*frame* (one file's events) without the otel rows an earlier file delivered."""
        mine = (frame["source"] == SOURCE).fillna(False).to_numpy()
        if not mine.any():
            return frame
        key = _row_keys(frame.loc[mine])
        key = key[key["span"].notna()]
        if key.empty:
            return frame
        cols = [*_KEY, "span"]
        key["_n"] = key.groupby(cols, sort=False).cumcount()
        hashes = pd.util.hash_pandas_object(key, index=False).to_numpy(np.uint64)
        old = np.concatenate(self.seen) if self.seen else np.empty(0, np.uint64)
        repeat = np.isin(hashes, old)
        self.seen = [np.unique(np.concatenate([old, hashes]))]
        if not repeat.any():
            return frame
        drop = pd.Series(False, index=frame.index)
        drop.loc[key.index[repeat]] = True
        return frame.loc[~drop.to_numpy()].reset_index(drop=True)
