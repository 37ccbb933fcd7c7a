"""Scoped call ids: a `tool_call_id` links events only inside one scope (DESIGN §3).

Real ids repeat: open models emit `call_0` in every conversation, eval sets reuse ids across
sessions, two incident bundles in one directory share nothing. A *scope* is one file and one
session (rows without a session form their file's keyless scope). Within a scope an id is
one call. Across scopes the id links only when the other keys agree (an equal session or
trace id) or, with no contradiction, when exactly one candidate is left (by time when there
is a choice). Conversation scopes (the model's own record) never join each other on the id
alone: an id in two conversations is two calls, and such an id is *ambiguous*; infra events
carrying it that no key or time window attributes are left unlinked, and IN003 says so.

The result is a :class:`Coded` column in which each (id, cluster of scopes) is its own code.
Values keep the id as written, and a cluster of an ambiguous id carries `\\x1f<scope label>`
after it (display code strips it; trace names show it as `@label`). Only ids seen in two or
more scopes are examined, so the common case (every id in one scope) costs one factorize.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.arrays import Coded, EventArrays, encode
from toolcall_cli.align.scope_links import link_scopes, scope_facts
from toolcall_cli.model.events import CONVERSATION_SOURCES
from toolcall_cli.model.origins import file_of

#: Separator between an id and its scope label in scoped id text (never in a real id).
SEP = "\x1f"

#: Origins per ambiguous id kept as evidence for IN003.
_SAMPLES = 3


@dataclass(frozen=True, slots=True)
class AmbiguousId:
    """One `tool_call_id` seen in several conversations (IN003's facts)."""

    tool_call_id: str
    conversations: int  # conversation clusters carrying it
    unlinked: tuple[int, ...]  # rows (positions) left unattributed
    by_time: tuple[int, ...]  # rows attributed by time window only
    samples: tuple[int, ...]  # a row of each of the first conversations


@dataclass(frozen=True, slots=True)
class ScopedIds:
    """The scoped `tool_call_id` column and the ambiguous ids it found."""

    codes: Coded
    ambiguous: tuple[AmbiguousId, ...]
    #: per scoped code, its raw id's code in the unscoped column (to scope X-Original-ID)
    raw_of: np.ndarray


def scope_ids(a: EventArrays) -> ScopedIds:
    """Split each `tool_call_id` of *a* into one code per linked cluster of scopes."""
    tc = a.tool_call_id
    same = ScopedIds(tc, (), np.arange(len(tc.values), dtype=np.int64))
    rows = np.flatnonzero(tc.codes >= 0)
    if not len(rows):
        return same
    file = encode(file_of(a.origin.take(pa.array(rows))))
    nsess = len(a.session_id.values) + 1
    session = _sole_session_filled(file.codes, a.session_id.codes[rows])
    scope, _ = pd.factorize(file.codes.astype(np.int64) * nsess + session + 1)
    nscope = int(scope.max()) + 1
    pair = tc.codes[rows].astype(np.int64) * nscope + scope
    ids_of_pairs = pd.unique(pair) // nscope
    multi = np.bincount(ids_of_pairs, minlength=len(tc.values)) >= 2
    if not multi.any():
        return same
    conv = a.source.mask(CONVERSATION_SOURCES)
    multi &= _contested(tc.codes[rows], scope, a, rows, conv[rows], len(tc.values))
    if not multi.any():
        return same
    sel = multi[tc.codes[rows]]
    r = rows[sel]
    frame = pd.DataFrame(
        {
            "row": r,
            "id": tc.codes[r],
            "scope": scope[sel],
            "session": a.session_id.codes[r],
            "trace": a.trace_id.codes[r],
            "ts": a.ts[r],
            "conv": conv[r],
        }
    )
    labels = _labels(a, frame, file.values.take(pa.array(file.codes[sel])))
    cluster, ambiguous = _clusters(frame)
    # new codes: ids in one scope keep theirs; every (id, cluster) of a multi id gets a new one
    key = frame["id"].to_numpy() * (int(cluster.max()) + 1) + cluster
    new, uniq = pd.factorize(key)
    base = len(tc.values)
    codes = tc.codes.copy()
    codes[r] = base + new
    uniq = np.asarray(uniq)
    ncl = int(cluster.max()) + 1
    raw_ids = uniq // ncl
    # label of each new code: the label of its first row's scope
    first_row = pd.Series(np.arange(len(frame))).groupby(new).first().to_numpy()
    counts = pd.Series(cluster).groupby(frame["id"].to_numpy()).nunique()
    single = counts.reindex(raw_ids).to_numpy() == 1
    raw_text = tc.values.take(pa.array(raw_ids))
    scoped_text = pc.binary_join_element_wise(
        raw_text,
        pa.array(labels[first_row], type=pa.large_string()),
        pa.scalar(SEP, pa.large_string()),
    )
    text = pc.if_else(pa.array(single), raw_text, scoped_text)
    values = pa.concat_arrays([tc.values, text.cast(pa.large_string())])
    raw_of = np.concatenate([np.arange(base, dtype=np.int64), raw_ids.astype(np.int64)])
    amb = tuple(
        AmbiguousId(
            tool_call_id=str(tc.values[int(i)].as_py()),
            conversations=n,
            unlinked=tuple(int(x) for x in frame["row"].to_numpy()[un]),
            by_time=tuple(int(x) for x in frame["row"].to_numpy()[bt]),
            samples=tuple(int(x) for x in frame["row"].to_numpy()[sm]),
        )
        for i, n, un, bt, sm in ambiguous
    )
    return ScopedIds(Coded(codes, values), amb, raw_of)


def _contested(
    ids: np.ndarray, scope: np.ndarray, a: EventArrays, rows: np.ndarray, conv: np.ndarray, n: int
) -> np.ndarray:
    """Per id code: its scopes may not all be one call — two conversation scopes carry it, or
    its events name two sessions or two trace ids. Every other id seen in several scopes (a
    conversation, its middleware log, its capture) links as one call, as it always did; only
    contested ids go through the per-id clustering."""

    def distinct(values: np.ndarray, where: np.ndarray) -> np.ndarray:
        pairs = pd.unique(ids[where].astype(np.int64) * (int(values.max()) + 2) + values[where])
        return np.bincount(pairs // (int(values.max()) + 2), minlength=n)

    sess, trace = a.session_id.codes[rows], a.trace_id.codes[rows]
    out = np.zeros(n, dtype=bool)
    if conv.any():
        out |= distinct(scope.astype(np.int64), conv) >= 2
    if (sess >= 0).any():
        out |= distinct(sess.astype(np.int64), sess >= 0) >= 2
    if (trace >= 0).any():
        out |= distinct(trace.astype(np.int64), trace >= 0) >= 2
    return out


def _labels(a: EventArrays, frame: pd.DataFrame, files: pa.Array) -> np.ndarray:
    """Per row of *frame*, its scope's label: the session id, else the file name."""
    sess = a.session_id.text(frame["session"].to_numpy())
    names = pc.replace_substring_regex(files, r"^.*[/\\]", "")
    return np.asarray(pc.if_else(sess.is_valid(), sess, names).to_pylist(), dtype=object)


def _clusters(
    frame: pd.DataFrame,
) -> tuple[np.ndarray, list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]]:
    """Per row of *frame* (rows of ids seen in 2+ scopes) a cluster number, unique across
    ids; and per ambiguous id (id code, conversations, unlinked, by-time, sample positions)."""
    out = np.full(len(frame), -1, dtype=np.int64)
    ambiguous: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]] = []
    next_cluster = 0
    for cid, grp in frame.groupby("id", sort=True):
        pos = grp.index.to_numpy()
        scopes = scope_facts(grp)
        assign, n_conv, unlinked, timed = link_scopes(scopes)
        by_scope = {s: next_cluster + c for s, c in assign.items()}
        next_cluster += max(assign.values()) + 1
        out[pos] = grp["scope"].map(by_scope).to_numpy()
        if n_conv >= 2:
            sc = grp["scope"].to_numpy()
            conv_scopes = [s for s in scopes if s.conv][:_SAMPLES]
            samples = np.array(
                [pos[np.flatnonzero(sc == s.scope)[0]] for s in conv_scopes], dtype=np.int64
            )
            ambiguous.append(
                (
                    int(cid),  # type: ignore[arg-type]
                    n_conv,
                    pos[np.isin(sc, list(unlinked))],
                    pos[np.isin(sc, list(timed))],
                    samples,
                )
            )
    return out, ambiguous


def original_codes(scoped: ScopedIds, raw_codes: np.ndarray) -> np.ndarray:
    """X-Original-ID codes (codes of the unscoped id text; -1 none; codes past the id column
    are texts no event carries as its id) in the scoped space: an id in one cluster maps to
    that cluster's code; an ambiguous one (several clusters) links nothing (-1)."""
    n_raw = int(np.sum(scoped.raw_of == np.arange(len(scoped.raw_of))))
    extra = scoped.raw_of[n_raw:]
    if not len(extra):
        return raw_codes
    table = np.arange(n_raw, dtype=np.int64)
    clusters = np.bincount(extra, minlength=n_raw)
    one = clusters[extra] == 1
    table[extra[one]] = np.arange(n_raw, n_raw + len(extra), dtype=np.int64)[one]
    table[clusters >= 2] = -1
    inside = (raw_codes >= 0) & (raw_codes < n_raw)
    # codes past the id column shift past the scoped codes, so they never collide
    shifted = np.where(raw_codes >= n_raw, raw_codes + len(extra), raw_codes)
    return np.where(inside, table[np.clip(raw_codes, 0, n_raw - 1)], shifted)


def unscoped(text: pa.Array) -> pa.Array:
    """Scoped id text back to the id as written (the part before the separator)."""
    if not pc.any(pc.match_substring(text, SEP)).as_py():
        return text
    return pc.list_element(pc.split_pattern(text, SEP, max_splits=1), 0)


def readable(trace: Coded) -> Coded:
    """Trace names whose scoped call-id text reads `id@scope` instead of the separator."""
    if not len(trace.values) or not pc.any(pc.match_substring(trace.values, SEP)).as_py():
        return trace
    return Coded(trace.codes, pc.replace_substring(trace.values, SEP, "@"))


def relabel(found: tuple[AmbiguousId, ...], order: np.ndarray) -> tuple[AmbiguousId, ...]:
    """*found* with its row positions moved to the aligned table (row *order[k]* is row k)."""
    if not found:
        return found
    at = np.empty(len(order), dtype=np.int64)
    at[order] = np.arange(len(order))

    def move(rows: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(int(x) for x in at[list(rows)]) if rows else ()

    return tuple(
        AmbiguousId(
            f.tool_call_id, f.conversations, move(f.unlinked), move(f.by_time), move(f.samples)
        )
        for f in found
    )


def _sole_session_filled(file: np.ndarray, session: np.ndarray) -> np.ndarray:
    """*session* codes with a file's keyless rows given that file's session when it has
    exactly one: rows of one conversation that omit its session id are still that
    conversation (a file with several sessions keeps its keyless rows keyless)."""
    keyed = session >= 0
    if keyed.all() or not keyed.any():
        return session
    pairs = np.unique(np.stack([file[keyed], session[keyed]]), axis=1)
    files, counts = np.unique(pairs[0], return_counts=True)
    sole = files[counts == 1]
    if not len(sole):
        return session
    sole_session = pairs[1][np.isin(pairs[0], sole)]  # aligned with *sole* (both sorted)
    out = session.copy()
    fill = ~keyed & np.isin(file, sole)
    out[fill] = sole_session[np.searchsorted(sole, file[fill])]
    return out
