"""messages adapter: conversations, chat-completion bodies, streams and cassettes → events.

Reads one file as (in this order) a VCR cassette (YAML), a stream (SSE `data:` lines or one
JSON chunk per line), one JSON document, or JSON lines (one session per line; lines that are
not JSON become `unparsed` rows). The shapes inside are found by
:mod:`.locate`; the event contract is :mod:`toolcall_cli.model.events` (DESIGN §3).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from toolcall_cli.errors import InputError
from toolcall_cli.model.jsonio import JSONError, loads, try_loads
from toolcall_cli.sources._shared.files import decode_text, read_bytes
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import cassette, locate, openai, sse
from toolcall_cli.sources.messages.rows import Sink
from toolcall_cli.sources.messages.sniff import sniff as _sniff
from toolcall_cli.sources.messages.sniff import stream_score

SAMPLES: tuple[str, ...] = tuple(
    f"fixtures/messages/{name}"
    for name in (
        "openai_array.json",
        "openai_wrapped.json",
        "openai_request_response.json",
        "openai_response.json",
        "sessions.jsonl",
        "legacy_functions.json",
        "anthropic.json",
        "react.json",
        "tagged.json",
        "stream_openai.sse",
        "stream_anthropic.sse",
        "stream_chunks.jsonl",
        "broken_types.json",
        "partly_broken.jsonl",
        "cassette.yaml",
        "provider_error.json",
    )
)


class MessagesAdapter:
    """The `messages` source (DESIGN §2)."""

    name = "messages"
    samples = SAMPLES

    def sniff(self, head: bytes, path: Path) -> int:
        """Score the first 64 KiB of *path* (see :mod:`.sniff`)."""
        return _sniff(head[:65536], path)

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Parse the whole file into message events."""
        text = decode_text(read_bytes(path, limit=opts.max_decompressed))
        sink = Sink(path, tz=opts.tz)
        emit_text(sink, text, str(path), yaml_ok=path.suffix.lower() in (".yaml", ".yml"))
        return sink.frame()


def emit_text(sink: Sink, text: str, label: str, *, yaml_ok: bool = False) -> None:
    """Collect the events of one file's text into *sink* (origins start with *label*)."""
    if yaml_ok or text.lstrip().startswith("interactions:"):
        _parse_yaml(sink, text, label)
    elif _is_stream(text):
        _parse_stream(sink, text, label)
    else:
        _parse_json(sink, text, label)


def _parse_yaml(sink: Sink, text: str, label: str) -> None:
    import yaml  # with the first cassette, not with every messages file (start-up)

    from toolcall_cli.model.yaml_safe import safe_load

    try:
        doc = safe_load(text)  # aliases bounded (model.yaml_safe)
    except (yaml.YAMLError, RecursionError, ValueError) as e:
        raise InputError(f"{label}: not valid YAML: {str(e).splitlines()[0][:200]}") from None
    if isinstance(doc, dict) and "interactions" in doc:
        cassette.emit_cassette(sink, doc, f"{label}#")
    else:
        locate.emit_document(sink, doc, f"{label}#")


def _is_stream(text: str) -> bool:
    s = text.lstrip()
    if s.startswith(("data:", "event:")):
        return True
    first = next((ln for ln in s.splitlines()[:5] if ln.strip()), "")
    if not first.startswith("{") or try_loads(s) is not None:
        return False
    return stream_score(try_loads(first)) > 0


def _parse_stream(sink: Sink, text: str, label: str) -> None:
    conv = sink.conv()
    st = sse.assemble(text, lambda n: f"{label}:{n}")
    for n, raw, reason in st.bad:
        sink.unparsed(conv, f"{label}:{n}", raw, reason)
    for n, err in st.errors:
        openai.emit_error(sink, conv, err, f"{label}:{n}")
    for k, (msg, finish, ts, line) in enumerate(st.messages):
        openai.emit_message(sink, conv, msg, f"{label}:{line}#", k, ts=ts, finish_reason=finish)


def _parse_json(sink: Sink, text: str, label: str) -> None:
    if not text.strip():
        return
    try:
        doc = loads(text)
    except JSONError:
        pass
    else:
        if isinstance(doc, dict) and isinstance(doc.get("interactions"), list):
            cassette.emit_cassette(sink, doc, f"{label}#")
        else:
            locate.emit_document(sink, doc, f"{label}#")
        return
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except JSONError as e:
            sink.unparsed(None, f"{label}:{n}", line, f"not JSON: {e}"[:200])
            continue
        locate.emit_document(sink, obj, f"{label}:{n}#")


ADAPTER = MessagesAdapter()
