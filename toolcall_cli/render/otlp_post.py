"""`--otlp-endpoint URL`: the `--format otlp` documents posted as OTLP/HTTP protobuf.

The URL is the base of an OTLP/HTTP receiver (as `OTEL_EXPORTER_OTLP_ENDPOINT`): spans go to
`/v1/traces`, the findings' log records to `/v1/logs`; a URL that already ends in one of
those paths is taken as its base. Only a user flag names it, never the evidence. The export
carries recorded messages and arguments, so it goes through replay's pinned transport: the
host is resolved once and must be loopback unless `--allow-remote`, no redirects, no proxies,
one deadline. A receiver without a logs endpoint (404/405/415 there, e.g. Phoenix) still
has the spans; any other non-2xx answer is an error.
"""

from __future__ import annotations

import base64
import dataclasses
import http.client
from typing import Any, Final

from toolcall_cli.errors import MissingDependencyError, UsageError

_PATHS: Final = {"resourceSpans": "/v1/traces", "resourceLogs": "/v1/logs"}
_OPTIONAL: Final = {"/v1/logs": frozenset({404, 405, 415, 501})}
_ID_KEYS: Final = frozenset({"traceId", "spanId", "parentSpanId"})


def _proto_json(node: Any) -> Any:
    """OTLP/JSON → the protobuf JSON mapping (hex ids become base64 bytes)."""
    if isinstance(node, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in _ID_KEYS and isinstance(v, str)
            else _proto_json(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_proto_json(v) for v in node]
    return node


def encode(doc: dict[str, Any]) -> tuple[str, bytes]:
    """(request path, serialized `Export*ServiceRequest`) of one OTLP document."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    msg: Any = ExportTraceServiceRequest() if "resourceSpans" in doc else ExportLogsServiceRequest()
    json_format.ParseDict(_proto_json(doc), msg)
    path = next(p for k, p in _PATHS.items() if k in doc)
    return path, msg.SerializeToString()


def check_endpoint(url: str, *, allow_remote: bool) -> Any:
    """The checked `live_http.Target` of *url* (a bad URL or a remote host is a UsageError)."""
    from toolcall_cli.replay.live_http import parse_target, resolve

    try:
        target = parse_target(url)
        for suffix in _PATHS.values():
            if target.base_path.endswith(suffix):
                base, shown = target.base_path[: -len(suffix)], target.shown[: -len(suffix)]
                target = dataclasses.replace(target, base_path=base, shown=shown)
        resolve(target, allow_remote=allow_remote)
    except UsageError as e:
        msg = e.message.replace("--target", "--otlp-endpoint").replace("replay", "export")
        hint = "the export carries recorded arguments; pass --allow-remote if you mean it"
        raise UsageError(msg, hint=hint if "loopback" in msg else e.hint) from None
    return target


def post_documents(
    docs: list[dict[str, Any]], url: str, *, allow_remote: bool = False, timeout: float = 10.0
) -> list[tuple[str, int]]:
    """POST each document to its path at *url*; (path, HTTP status) per request."""
    from toolcall_cli.replay.live_http import DeadlineExceeded, post, resolve

    target = check_endpoint(url, allow_remote=allow_remote)
    addr = resolve(target, allow_remote=allow_remote)[0]
    sent: list[tuple[str, int]] = []
    for doc in docs:
        path, body = encode(doc)
        headers = {"Content-Type": "application/x-protobuf"}
        try:
            status, _, _ = post(target, addr, path, body, headers, timeout=timeout)
        except (OSError, http.client.HTTPException, DeadlineExceeded) as e:
            raise MissingDependencyError(
                f"cannot post to the OTLP endpoint {target.shown}{path}: "
                + (str(e) or type(e).__name__),
                hint="is the collector listening? (OTLP/HTTP, usually port 4318)",
            ) from None
        if not 200 <= status < 300 and status not in _OPTIONAL.get(path, frozenset()):
            raise MissingDependencyError(
                f"the OTLP endpoint {target.shown}{path} answered HTTP {status}",
                hint="check the URL: toolcall posts to BASE/v1/traces and BASE/v1/logs",
            )
        sent.append((path, status))
    return sent
