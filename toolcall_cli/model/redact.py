"""Secret redaction, on by default for every stored and printed event.

Built-in rules cover credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`,
`Set-Cookie`, `X-Api-Key`), bearer tokens and well-known key shapes (OpenAI/Anthropic `sk-…`,
AWS `AKIA…`/`ASIA…`, GitHub `ghp_…`/`github_pat_…`, Slack `xox…`). Users add regexes and JSON
pointers into tool arguments in `toolcall.toml` (`[redact] patterns`, `json_paths`).

Redaction is column-wise: one RE2 pass per rule over each text column (pyarrow), so it costs
little on a million events. JSON-path rules parse arguments and therefore run per record, only
when configured.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import orjson

from toolcall_cli.model.arrow import few_distinct, text_offsets
from toolcall_cli.model.config import Redact
from toolcall_cli.model.events import STR
from toolcall_cli.model.findings import Finding
from toolcall_cli.model.redact_json import redact_documents

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

MARK = "[REDACTED]"  # the same mark as model.redact_json's

#: What may precede a key shape: the start, a character that is not part of a word, or a
#: JSON/C escape (`\n`, `\t`, `\u0022`, ...). Not `\b`: in escaped text `\nsk-...` puts the
#: letter `n` before the key, and `\b` sees no boundary there. Kept by the replacement (`\1`).
_START = r"(^|[^A-Za-z0-9]|\\[nrtfbv0/]|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2})"

#: (name, RE2 pattern, replacement). Groups are kept where the replacement uses them.
BUILTIN: tuple[tuple[str, str, str], ...] = (
    (
        "credential-header",
        r"(?i)((?:proxy-)?authorization|x-api-key|api[-_]key)(\\?[\"']?\s*[:=]\s*\\?[\"']?)"
        r"[^\"'\r\n,;}\\]+",
        r"\1\2" + MARK,
    ),
    (
        "cookie-header",
        r"(?i)" + _START + r"(set-cookie|cookie)(\\?[\"']?\s*:\s*\\?[\"']?)[^\"'\r\n}\\]+",
        r"\1\2\3" + MARK,
    ),
    ("bearer", r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}", r"\1" + MARK),
    (
        "openai-anthropic-key",
        _START + r"sk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{16,}",
        r"\1" + MARK,
    ),
    ("aws-access-key", _START + r"(?:AKIA|ASIA)[0-9A-Z]{16}\b", r"\1" + MARK),
    (
        "github-token",
        _START + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
        r"\1" + MARK,
    ),
    ("slack-token", _START + r"xox[abposr]-[A-Za-z0-9-]{10,}", r"\1" + MARK),
    (
        "credential-assignment",  # password=…, "client_secret": "…", ?access_token=…&
        r"(?i)(^|[^A-Za-z0-9]|\\[nrtfb])((?:[a-z0-9]+[-_])?(?:password|passwd|passphrase|pwd"
        r"|secret|token|jwt|private[-_]?key|credentials?))(\\?[\"']?\s*[:=]\s*\\?[\"']?)"
        r"[^\"'\s&,;}\\]+",
        r"\1\2\3" + MARK,
    ),
    ("jwt", r"eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}", MARK),
    (
        "url-userinfo",  # https://user:password@host
        r"(?i)([a-z][a-z0-9+.-]*://)[^/\s:@\"'\\]+:[^/\s@\"'\\]+@",
        r"\1" + MARK + "@",
    ),
)

#: One cheap match that every built-in rule implies (a row without it needs no rewriting).
PREFILTER = (
    r"(?i)authorization|cookie|api[-_]?key|apikey|bearer|sk-|akia|asia|gh[pousr]_|github_pat_"
    r"|xox[abposr]-|passw|passphrase|pass[\\\"' ]*[:=]|pwd|secret|private[-_]?key|jwt|credential"
    r"|token[\\\"' ]*[:=]|token\\*[\"']|eyj|://[^/\s@]+@"
    # an escaped ASCII character (`api\u005fkey`): rare in real text, a way around key names
    r"|\\u00[2-7]"
)

#: Columns that may carry input text.
TEXT_COLUMNS = ("args", "detail", "attrs", "client", "tool", "status")

#: Correlation-key columns: redacted when they hold a secret shape (a session id that is an
#: API key), with a mark that keeps equal ids equal (`_id_mark`).
ID_COLUMNS = ("session_id", "trace_id", "tool_call_id", "request_id", "instance")

#: Rows from which frame() scans columns on two threads.
_THREADED_ROWS = 100_000


#: `PREFILTER` without `(?i)`, for one string at a time after `str.casefold` (which folds as
#: RE2's `(?i)` does, and more): a case-insensitive `re` alternation is several times slower.
_FOLDED_PREFILTER = re.compile(PREFILTER.removeprefix("(?i)"))


def _may_hold_builtin_secret(value: str) -> bool:
    return _FOLDED_PREFILTER.search(value.casefold()) is not None


def _id_mark(value: str) -> str:
    """`[REDACTED:<12 hex>]`: a digest, so two events with the same secret id still
    share a key, and nothing of the secret is shown."""
    return f"{MARK[:-1]}:{hashlib.sha256(value.encode()).hexdigest()[:12]}]"


def _no_candidate_anywhere(arr: pa.Array) -> bool:
    """Whether the built-in PREFILTER matches nowhere in *arr*'s text, tested with one RE2
    pass over all its values end to end rather than one match per row (several times cheaper
    on a long column). A row that matches makes the whole text match (PREFILTER has no anchors); a
    match across two rows only sends the column down the per-row path, which decides."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(arr, pa.StringArray | pa.LargeStringArray) or not len(arr):
        return False
    data = arr.buffers()[2]
    if data is None:
        return True  # no row has any text
    ends = text_offsets(arr)
    start, end = int(ends[0]), int(ends[-1])
    bounds = pa.py_buffer(np.array([0, end - start], np.int64))
    whole = pa.LargeStringArray.from_buffers(1, bounds, data.slice(start, end - start))
    return not pc.match_substring_regex(whole, pattern=PREFILTER)[0].as_py()


@dataclass(frozen=True, slots=True)
class Redactor:
    """A compiled set of redaction rules."""

    rules: tuple[tuple[str, str, str], ...] = BUILTIN
    json_paths: tuple[str, ...] = ()
    enabled: bool = True

    @classmethod
    def from_config(cls, cfg: Redact, *, enabled: bool | None = None) -> Redactor:
        """Built-ins plus the user's patterns (each replaced whole) and JSON paths."""
        extra = tuple((f"user-{i}", p, MARK) for i, p in enumerate(cfg.patterns))
        return cls(
            rules=BUILTIN + extra,
            json_paths=cfg.json_paths,
            enabled=cfg.enabled if enabled is None else enabled,
        )

    def text(self, value: str) -> str:
        """Redact one string (for text outside the event table, e.g. quoted evidence lines)."""
        import pyarrow as pa

        if not self.enabled or not value:
            return value
        if self.rules == BUILTIN and not self.json_paths and not _may_hold_builtin_secret(value):
            return value  # the common case, without a round trip through pyarrow per string
        arr = self._array(pa.array([value], type=pa.large_string()))
        out = arr[0].as_py()
        out = out if out is not None else value
        if self.json_paths and "{" in out:  # a quoted call or record: arguments sit inside it
            out = self._json_paths_nested(out)
        return out

    def texts(self, values: Sequence[str | None]) -> list[str | None]:
        """Redact many strings in one column pass (None stays None)."""
        import pyarrow as pa

        if not self.enabled or not values:
            return list(values)
        red = self._array(pa.array(list(values), type=pa.large_string()))
        return list(red.to_pylist())

    def _array(self, arr: pa.Array, *, structural: bool = True) -> pa.Array:
        import pyarrow as pa
        import pyarrow.compute as pc

        enc = few_distinct(arr)
        if enc is not None:  # event names, tools, statuses: scan each distinct value once
            red = self._array(enc.dictionary, structural=structural)
            return arr if red is enc.dictionary else red.take(enc.indices)
        if self.rules == BUILTIN and _no_candidate_anywhere(arr):
            return arr  # the usual column: no row can hold a secret, found in one pass
        # Almost no row holds a secret: find candidates with one cheap match, rewrite only those.
        hits = pc.fill_null(pc.match_substring_regex(arr, pattern=self._prefilter()), False)
        n_hits = pc.sum(hits).as_py() or 0
        if n_hits == 0:
            return arr
        idx = pc.indices_nonzero(hits)
        sub = pc.take(arr, idx)
        sub = self._documents(sub) if structural else self._rules_over(sub)
        if n_hits == len(arr):
            return sub
        positions = pc.cumulative_sum(pc.cast(hits, pa.int64()))
        # Row i takes sub[positions[i] - 1] where hits[i], else its own value.
        gather = pc.if_else(hits, pc.subtract(positions, 1), pa.scalar(0, pa.int64()))
        return pc.if_else(hits, pc.take(sub, gather), arr)

    def _rules_over(self, arr: pa.Array) -> pa.Array:
        import pyarrow.compute as pc

        for _, pattern, repl in self.rules:
            arr = pc.replace_substring_regex(arr, pattern=pattern, replacement=repl)
        return arr

    def _documents(self, sub: pa.Array) -> pa.Array:
        """Candidate rows: JSON documents redacted as JSON (values stay valid), the rest as text."""
        import pyarrow as pa

        values = sub.to_pylist()
        out = redact_documents(values, self._strings)
        plain = [i for i, v in enumerate(out) if v is None]
        if len(plain) == len(values):
            return self._rules_over(sub)
        if plain:
            red = self._rules_over(pa.array([values[i] for i in plain], type=pa.large_string()))
            for i, v in zip(plain, red.to_pylist(), strict=True):
                out[i] = v
        return pa.array(out, type=pa.large_string())

    def _strings(self, values: list[str]) -> list[str]:
        """Decoded strings from inside documents, through the text rules in one column pass."""
        import pyarrow as pa

        red = self._array(pa.array(values, type=pa.large_string()), structural=False)
        return list(red.to_pylist())

    def _prefilter(self) -> str:
        user = [p for name, p, _ in self.rules if name.startswith("user-")]
        return "|".join([PREFILTER, *(f"(?:{p})" for p in user)])

    def frame(self, df: pd.DataFrame) -> pd.DataFrame:
        """A copy of the event table with secrets replaced in every text column."""
        import pandas as pd
        import pyarrow as pa

        if not self.enabled or df.empty:
            return df
        out = df.copy(deep=False)  # columns are replaced, never written into
        cols = (*TEXT_COLUMNS, *ID_COLUMNS)
        arrays = [pa.array(out[c], type=pa.large_string(), from_pandas=True) for c in cols]
        # an all-null column holds no secret; large tables scan two columns at a time (RE2
        # releases the GIL)
        todo = [(c, a) for c, a in zip(cols, arrays, strict=True) if a.null_count < len(a)]
        if len(out) >= _THREADED_ROWS:
            with ThreadPoolExecutor(2) as pool:
                reds = list(pool.map(lambda ca: self._column(*ca), todo))
        else:
            reds = [self._column(c, a) for c, a in todo]
        for (col, arr), red in zip(todo, reds, strict=True):
            if red is arr:  # no secret in this column (the common case): keep it as it is
                continue
            out[col] = pd.Series(red.to_pandas(), index=out.index).astype(STR)
        if self.json_paths:
            out["args"] = out["args"].map(self._json_paths, na_action="ignore").astype(STR)
        return out

    def _column(self, name: str, arr: pa.Array) -> pa.Array:
        import pyarrow as pa

        if name not in ID_COLUMNS:
            return self._array(arr)
        red = self._array(arr, structural=False)
        if red is arr:
            return arr
        # A secret-shaped id is replaced whole, by a mark that still joins equal ids.
        before, after = arr.to_pylist(), red.to_pylist()
        return pa.array(
            [a if a == b else _id_mark(b) for b, a in zip(before, after, strict=True)],
            type=pa.large_string(),
        )

    def _json_paths(self, args: str) -> str:
        try:
            doc = orjson.loads(args)
        except (orjson.JSONDecodeError, RecursionError):
            return args
        return orjson.dumps(doc).decode() if self._apply_paths(doc) else args

    def _apply_paths(self, doc: Any) -> bool:
        changed = False
        for ptr in self.json_paths:
            tokens = ptr.strip("/").split("/")
            parts = [p.replace("~1", "/").replace("~0", "~") for p in tokens if p]
            node = doc
            for key in parts[:-1]:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict) and parts and parts[-1] in node:
                node[parts[-1]] = MARK
                changed = True
        return changed

    def _json_paths_nested(self, text: str, depth: int = 0) -> str:
        """JSON paths applied to every object inside *text*, and inside JSON held in strings."""
        try:
            doc = orjson.loads(text)
        except (orjson.JSONDecodeError, RecursionError):
            return text
        return orjson.dumps(doc).decode() if self._walk(doc, depth) else text

    def _walk(self, node: Any, depth: int) -> bool:
        if depth > 32:
            return False
        changed = False
        if isinstance(node, dict):
            changed = self._apply_paths(node)
            for key, val in node.items():
                if isinstance(val, str) and val.lstrip().startswith("{"):
                    new = self._json_paths_nested(val, depth + 1)
                    if new != val:
                        node[key], changed = new, True
                else:
                    changed = self._walk(val, depth + 1) or changed
        elif isinstance(node, list):
            for val in node:
                changed = self._walk(val, depth + 1) or changed
        return changed


DEFAULT_REDACTOR = Redactor()


def redact_findings(findings: Sequence[Finding], redactor: Redactor) -> tuple[Finding, ...]:
    """*findings* with every text they show redacted (message, tool, evidence, explanation,
    fix, string facts): for reports built outside the event table, e.g. `lint`'s, which
    quote the input files."""
    if not redactor.enabled or not findings:
        return tuple(findings)
    texts: list[str | None] = []
    for f in findings:
        texts += [f.message, f.explanation, f.fix, f.tool, *(e.text for e in f.evidence)]
        texts += [v for _, v in f.extra if isinstance(v, str)]
    red = iter(redactor.texts(texts))
    out = []
    for f in findings:
        message, explanation, fix, tool = next(red), next(red), next(red), next(red)
        evidence = tuple(replace(e, text=next(red) or "") for e in f.evidence)
        extra = tuple((k, next(red) if isinstance(v, str) else v) for k, v in f.extra)
        out.append(
            replace(
                f,
                message=message or "",
                explanation=explanation,
                fix=fix,
                tool=tool,
                evidence=evidence,
                extra=extra,
            )
        )
    return tuple(out)
