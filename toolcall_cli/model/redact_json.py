"""Structural redaction: secrets inside JSON documents are replaced as JSON values.

A regex over JSON text cannot replace a number, an array or an object under a credential key
without breaking the document (`{"api_key": [REDACTED]}`), and it sees key names only as they
are spelled (`api\\u005fkey`). So a text that is a JSON document is parsed, and:

- the value under a credential key (`authorization`, `cookie`, `x-api-key`, `password`,
  `secret`, `*_token`, nginx's `http_cookie` and `cookie_NAME`, …) becomes `"[REDACTED]"`,
  whatever its type, at any depth;
- HAR-style `{"name": "X-Api-Key", "value": …}` objects and `["X-Api-Key", …]` pairs have the
  value replaced, and so has every cookie of a HAR `cookies` array (whatever its name);
- a string that is itself a JSON document is redacted the same way and re-encoded;
- every other string is handed to the text rules (key shapes, bearer tokens, …) decoded, so
  an escape before a key (`\\n`, `\\u0022`) is no longer in the way.

A document with nothing to redact keeps its exact text. Only rows the prefilter flags get here,
so the per-document work stays off the hot path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

MARK: Final = "[REDACTED]"

#: Key names (lower-cased, `-` as `_`) whose value is a credential whatever it holds.
_CREDENTIAL_KEY: Final = re.compile(
    r"(?:http_|x_)?(?:"
    r"(?:proxy_)?authorization|(?:set_)?cookie|cookie_\w+|"
    r"(?:x_)?api_?key|(?:\w+_)?api_?key|apikey|private_?key|"
    r"pass(?:word|wd|phrase)?|(?:\w+_)?password|pwd|"
    r"(?:\w+_)?secret|secret_?key|"
    r"token|(?:\w+_)?token|(?:\w+_)?jwt|credentials?|session_?key"
    r")"
)

#: Names the credential pattern matches that hold no secret: an MCP progress token correlates
#: notifications with a request, a page token is a cursor, and a tokenizer's special tokens are
#: vocabulary (`"eos_token": "</s>"`). Redacting them hides the join, not a credential.
_NOT_CREDENTIAL: Final = frozenset(
    {
        "progresstoken",
        "progress_token",
        "page_token",
        "next_page_token",
        "pagetoken",
        "nextpagetoken",
        "bos_token",
        "eos_token",
        "pad_token",
        "unk_token",
        "sep_token",
        "cls_token",
        "mask_token",
    }
)

#: JSON Schema keywords whose object maps property names to schemas (a property may well be
#: called "password"; its schema is not a secret).
_SCHEMA_MAPS: Final = frozenset({"properties", "patternProperties", "$defs", "definitions"})

#: Nesting followed before giving up (a hostile document must not exhaust the stack).
_MAX_DEPTH: Final = 64


def is_credential_key(key: str) -> bool:
    """True when a value stored under *key* is a credential (header, cookie, password, …)."""
    name = key.strip().lower().replace("-", "_")
    return name not in _NOT_CREDENTIAL and _CREDENTIAL_KEY.fullmatch(name) is not None


@dataclass(slots=True)
class _Doc:
    """One parsed document: the top-level text, or JSON text held in a string of another."""

    root: Any
    parent: int | None  # index of the enclosing document (None: a top-level text)
    holder: Any = None  # where the enclosing document keeps this one's text
    key: Any = None
    changed: bool = False


def redact_documents(
    texts: Sequence[str | None], redact_strings: Callable[[list[str]], list[str]]
) -> list[str | None]:
    """Per text, its redacted serialisation when it is a JSON object or array, else None.

    *redact_strings* applies the text rules to a batch of decoded strings (one call for all
    of them, so the rules run column-wise).
    """
    docs: list[_Doc] = []
    tops: list[int | None] = []
    leaves: list[tuple[Any, Any, int]] = []  # (container, key, document) of each string
    for text in texts:
        root = _parse(text)
        if root is None:
            tops.append(None)
            continue
        tops.append(len(docs))
        docs.append(_Doc(root, None))
        _walk(root, len(docs) - 1, docs, leaves, 0)
    if leaves:
        before = [holder[key] for holder, key, _ in leaves]
        after = redact_strings(before)
        for (holder, key, doc), old, new in zip(leaves, before, after, strict=True):
            if new != old:
                holder[key] = new
                docs[doc].changed = True
    for i in range(len(docs) - 1, -1, -1):  # inner documents were found after their parents
        d = docs[i]
        if d.parent is not None and d.changed:
            d.holder[d.key] = orjson.dumps(d.root).decode()
            docs[d.parent].changed = True
    out: list[str | None] = []
    for text, top in zip(texts, tops, strict=True):
        if top is None:
            out.append(None)
        else:
            out.append(orjson.dumps(docs[top].root).decode() if docs[top].changed else text)
    return out


def _parse(text: str | None) -> Any:
    """*text* parsed when it is a JSON object or array; None otherwise."""
    if not text:
        return None
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        doc = orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict | list) else None


def _walk(
    node: Any,
    doc: int,
    docs: list[_Doc],
    leaves: list[tuple[Any, Any, int]],
    depth: int,
    *,
    in_list: bool = False,
) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, dict):
        name = node.get("name")
        if "value" in node and isinstance(name, str) and is_credential_key(name):
            _mark(node, "value", doc, docs)  # HAR: {"name": "Cookie", "value": "..."}
        for key, val in node.items():
            if key in _SCHEMA_MAPS and isinstance(val, dict):
                # JSON Schema: these keys name properties and hold schemas, not credentials
                for prop, schema in val.items():
                    _child(val, prop, schema, doc, docs, leaves, depth + 1)
            elif isinstance(key, str) and is_credential_key(key):
                _mark(node, key, doc, docs)
            elif key == "cookies" and isinstance(val, list):
                # HAR's request/response `cookies`: the names are the site's own (`sessionid`,
                # `_ga`), so no key rule knows them; every cookie value is a credential
                for cookie in val:
                    if isinstance(cookie, dict) and "value" in cookie:
                        _mark(cookie, "value", doc, docs)
            else:
                _child(node, key, val, doc, docs, leaves, depth)
    elif isinstance(node, list):
        if in_list and len(node) == 2 and isinstance(node[0], str) and is_credential_key(node[0]):
            _mark(node, 1, doc, docs)  # header pairs: [["X-Api-Key", "..."], ...]
            return
        for i, val in enumerate(node):
            _child(node, i, val, doc, docs, leaves, depth, in_list=True)


def _child(
    holder: Any,
    key: Any,
    val: Any,
    doc: int,
    docs: list[_Doc],
    leaves: list[tuple[Any, Any, int]],
    depth: int,
    *,
    in_list: bool = False,
) -> None:
    if isinstance(val, str):
        inner = _parse(val)
        if inner is None:
            leaves.append((holder, key, doc))
            return
        docs.append(_Doc(inner, doc, holder, key))  # JSON encoded inside a string
        _walk(inner, len(docs) - 1, docs, leaves, depth + 1)
    elif isinstance(val, dict | list):
        _walk(val, doc, docs, leaves, depth + 1, in_list=in_list)


def _mark(holder: Any, key: Any, doc: int, docs: list[_Doc]) -> None:
    """Replace a credential value (any JSON type; null and "" hold nothing) by the mark."""
    if holder[key] not in (None, "", MARK):
        holder[key] = MARK
        docs[doc].changed = True
