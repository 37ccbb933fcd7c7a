"""Property: a secret planted anywhere in a JSON document, in any encoding, never survives.

Random documents get one secret at a random depth: a key shape (`sk-…`, `AKIA…`, `ghp_…`,
`xoxb-…`, a JWT, URL userinfo) or any value under a credential key (string, number, array,
object; also as a HAR `name`/`value` pair or a `[name, value]` header pair), encoded plainly,
as JSON inside a string (once or twice), with `\\u`-escaped key names, or right after an escape
(`\\n`). No store column may hold it after redaction, and through the CLI no output format.
"""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli
from toolcall_cli.model.events import build_frame
from toolcall_cli.model.redact import DEFAULT_REDACTOR, ID_COLUMNS, TEXT_COLUMNS
from toolcall_cli.model.redact_json import is_credential_key

TAIL = st.text(string.ascii_letters + string.digits, min_size=24, max_size=32).filter(
    lambda t: any(c.isdigit() for c in t) and any(c.isalpha() for c in t)
)
CREDENTIAL_KEYS = [
    *("api_key", "password", "X-Api-Key", "client_secret", "access_token"),
    *("Authorization", "cookie", "http_cookie", "cookie_sid", "private_key"),
]
NOISE_KEY = st.text(string.ascii_lowercase, min_size=1, max_size=8).filter(
    lambda k: not is_credential_key(k) and "token" not in k and "pass" not in k
)
NOISE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.text(string.ascii_letters, max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(NOISE_KEY, kids, max_size=3),
    max_leaves=6,
)


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, str]:
    """(document text, the secret's distinctive tail)."""
    tail = draw(TAIL)
    shape = draw(
        st.sampled_from(["sk", "akia", "ghp", "xox", "jwt", "userinfo", "key", "har", "pair"])
    )
    key = draw(st.sampled_from(CREDENTIAL_KEYS))
    secret: Any
    if shape == "sk":
        secret = f"sk-proj-{tail}"
    elif shape == "akia":
        tail = tail.upper()[:16].ljust(16, "Q")
        secret = f"AKIA{tail}"
    elif shape == "ghp":
        tail = (tail * 2)[:36]
        secret = f"ghp_{tail}"
    elif shape == "xox":
        secret = f"xoxb-{tail}"
    elif shape == "jwt":
        secret = f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.{tail}"
    elif shape == "userinfo":
        secret = f"https://svc:{tail}@example.internal/path"
    if shape in ("sk", "akia", "ghp", "xox", "jwt", "userinfo"):
        prefix = draw(st.sampled_from(["", "\n", "\t", "note: ", "é", "x=", "\r\n"]))
        leaf: Any = {draw(NOISE_KEY): prefix + secret}
    elif shape == "key":
        value = draw(
            st.sampled_from(["str", "int", "list", "obj"]).map(
                lambda kind: {"str": tail, "int": int("9" + "".join(c for c in tail if c.isdigit())
                                                      + "7" * 6), "list": [tail, 1],
                              "obj": {"v": tail}}[kind]
            )
        )  # fmt: skip
        if isinstance(value, int):
            tail = str(value)
        leaf = {key: value}
    elif shape == "har":
        leaf = {"headers": [{"name": key, "value": tail}]}
    else:
        leaf = {"headers": [[key, tail], ["Accept", "*/*"]]}
    node: Any = leaf
    for _ in range(draw(st.integers(0, 6))):  # bury it: random containers, random siblings
        if draw(st.booleans()):
            node = {**draw(st.dictionaries(NOISE_KEY, NOISE, max_size=2)), draw(NOISE_KEY): node}
        else:
            items = draw(st.lists(NOISE, max_size=2))
            items.insert(draw(st.integers(0, len(items))), node)
            node = items
        if draw(st.integers(0, 4)) == 0:
            node = {draw(NOISE_KEY): json.dumps(node)}  # JSON encoded inside a string
    text = json.dumps(node, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):  # key names spelled with escapes
        text = text.replace("_", "\\u005f").replace('"cookie', '"\\u0063ookie')
    return text, tail


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted(), st.sampled_from(TEXT_COLUMNS))
def test_no_store_column_holds_the_secret(doc: tuple[str, str], column: str) -> None:
    text, tail = doc
    row: dict[str, Any] = {
        "seq": [0],
        "source": ["middleware"],
        "origin": ["x.log:1"],
        "kind": ["mw_other"],
        column: [text],
    }
    out = DEFAULT_REDACTOR.frame(build_frame(row))
    for col in (*TEXT_COLUMNS, *ID_COLUMNS):
        value = out[col].iloc[0]
        assert pd.isna(value) or tail not in value, (col, value)
    if column in ("args", "attrs"):
        json.loads(out[column].iloc[0])  # a document stays a document


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(planted())
def test_no_output_format_holds_the_secret(tmp_path: Path, doc: tuple[str, str]) -> None:
    text, tail = doc
    d = Path(tempfile.mkdtemp(dir=tmp_path))  # one directory per example
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": text}}
    msgs = [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": text}]  # fmt: skip
    (d / "m.json").write_text(json.dumps({"session_id": "s1", "messages": msgs}))
    store = d / "store"
    outputs = []
    res = run_cli(["-q", "ingest", str(d / "m.json"), "--store", str(store), "-f", "jsonl"])
    assert res.exit_code == 0, res.stderr
    outputs.append(res.stdout)
    for fmt in ("json", "sarif", "markdown", "table", "html"):
        res = run_cli(["-q", "diagnose", "--store", str(store), "-f", fmt, "--fail-on", "never"])
        assert res.exit_code == 0, res.stderr
        outputs.append(res.stdout)
    res = run_cli(["-q", "timeline", "--store", str(store), "--session-id", "s1", "-f", "json"])
    assert res.exit_code == 0, res.stderr
    outputs.append(res.stdout)
    for pf in store.rglob("*.parquet"):  # events, findings and calls tables
        outputs.append(json.dumps(pq.read_table(pf).to_pylist(), default=str))
    assert [o for o in outputs if tail in o] == []
