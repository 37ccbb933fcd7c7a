"""Provider error bodies never crash diagnose (issue 15): an unmatched one is PR008 `unknown`.

Real shapes of OpenAI-compatible servers — vLLM (`{"object": "error", ...}` and
`{"error": {"message": "Error during inference: 500"}}`), llama.cpp and Ollama (`{"error":
"..."}` string form), FastAPI (`{"detail": ...}`) — as a response body, as an `error` key
beside `messages` in a session line and as an HTTP response in a capture; and every error body
of the shared corpus conversations.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, assert_golden, need_tshark
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.sources import ingest_paths

SHAPES: dict[str, dict[str, Any]] = {
    "vllm-inference": {"error": {"message": "Error during inference: 500", "code": 500}},
    "vllm-object": {"object": "error", "message": "model xyz does not exist", "code": 404},
    "llamacpp-string": {"error": "tokenizer failed on the prompt"},
    "ollama-string": {"error": "model 'llama9' not found, try pulling it first"},
    "fastapi-detail": {"detail": "Not Found"},
    "fastapi-validation": {"detail": [{"loc": ["body", "messages"], "msg": "field required"}]},
}
MESSAGE = {
    "vllm-inference": "Error during inference: 500",
    "vllm-object": "model xyz does not exist",
    "llamacpp-string": "tokenizer failed on the prompt",
    "ollama-string": "model 'llama9' not found, try pulling it first",
    "fastapi-detail": "Not Found",
    "fastapi-validation": "field required",
}


def _pr008(path: Path) -> list[tuple[str | None, str]]:
    rep = diagnose_events(ingest_paths([path]).events)
    return [(dict(f.extra).get("cause"), f.message) for f in rep.findings if f.code == "PR008"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("carrier", ["response", "session-line"])
def test_unmatched_error_is_pr008_unknown_with_the_message(
    tmp_path: Path, shape: str, carrier: str
) -> None:
    msgs = [{"role": "user", "content": "hi"}]
    if carrier == "response":
        doc = {"messages": msgs, "response": SHAPES[shape]}
        path = tmp_path / "exchange.json"
        path.write_text(json.dumps(doc))
    else:
        line = {"session_id": "s1", "messages": msgs, "error": SHAPES[shape]}
        path = tmp_path / "sessions.jsonl"
        path.write_text(json.dumps(line) + "\n")
    (got,) = _pr008(path)
    assert got[0] == "unknown"
    assert f'"{MESSAGE[shape]}"' in got[1]


def _corpus_files_with_errors() -> list[Path]:
    root = CORPUS / "conversations"
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith("LICENSE") and b'"error"' in p.read_bytes()
    )


@pytest.mark.parametrize("path", _corpus_files_with_errors(), ids=lambda p: p.name)
def test_every_corpus_error_body_diagnoses(path: Path) -> None:
    for cause, message in _pr008(path):
        assert cause  # a known cause or "unknown", never None
        assert message


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("provider_error_vllm", "fixtures/messages/provider_error_vllm.json"),
        ("provider_error_no_status", "fixtures/messages/provider_error_no_status.json"),
    ],
)
def test_unknown_provider_error_golden(name: str, path: str, update_goldens: bool) -> None:
    assert_golden(f"diagnose/{name}", ["diagnose", path], update=update_goldens)


@pytest.mark.tshark
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_error_bodies_on_the_wire_are_pr008_unknown(tmp_path: Path, shape: str) -> None:
    from fixtures.gen.pcapwriter import PcapWriter, http_exchange

    need_tshark()
    path = tmp_path / "llm.pcap"
    with PcapWriter(path) as w:
        conv = w.tcp(client=("10.0.0.7", 40001), server=("10.0.0.9", 8000))
        request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        http_exchange(
            conv, 1740830400.0, 1740830400.5, "POST", "/v1/chat/completions", {}, request,
            500, {}, SHAPES[shape], host="vllm.internal",
        )  # fmt: skip
    (got,) = _pr008(path)
    assert got[0] == "unknown"
    assert f'"{MESSAGE[shape]}"' in got[1]
