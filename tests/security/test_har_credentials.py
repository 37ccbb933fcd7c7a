"""A HAR's credentials never reach an output: `Cookie`/`Set-Cookie`/`Authorization` headers and
the `cookies` arrays (whose cookie names are the site's own, so no key rule knows them) are
redacted wherever an entry is quoted or shown — diagnose in every format, timeline, ingest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_cli

#: Planted secrets, none with a known token shape of its own.
COOKIE = "Qm4Zt8Wv2Lx6Rp"
SET_COOKIE = "Hy7Ns3Kd9Jf5Bg"
AUTH = "Pc2Vm8Tx4Wq6Zr"
REQ_COOKIE_VALUE = "Ud5Ly1Ge7Oa3Xs"
RESP_COOKIE_VALUE = "Fi9Ek2Cw6Mh4Tn"
SECRETS = (COOKIE, SET_COOKIE, AUTH, REQ_COOKIE_VALUE, RESP_COOKIE_VALUE)


@pytest.fixture
def har(tmp_path: Path) -> Path:
    """The double-submit recording (FL002 quotes its chat requests) with credentials planted in
    every entry, the way a browser export without sanitising writes them."""
    doc: dict[str, Any] = json.loads((FIXTURES / "har" / "chrome_initiator.har").read_text())
    for entry in doc["log"]["entries"]:
        req, resp = entry["request"], entry["response"]
        req["headers"] += [
            {"name": "Cookie", "value": f"sessionid={COOKIE}; theme=dark"},
            {"name": "authorization", "value": f"Basic {AUTH}"},
        ]
        req["cookies"] = [{"name": "sessionid", "value": REQ_COOKIE_VALUE}]
        resp["headers"].append(
            {"name": "Set-Cookie", "value": f"sessionid={SET_COOKIE}; Path=/; HttpOnly"}
        )
        resp["cookies"] = [
            {"name": "sessionid", "value": RESP_COOKIE_VALUE, "path": "/", "httpOnly": True}
        ]
    path = tmp_path / "with_cookies.har"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["diagnose", "--format", "table"],
        ["diagnose", "--format", "json"],
        ["diagnose", "--format", "markdown"],
        ["diagnose", "--format", "sarif"],
        ["timeline", "--format", "json"],
        ["ingest", "--format", "jsonl", "--no-store"],
    ],
    ids=lambda a: "-".join(a[:3:2]),
)
def test_no_credential_of_a_har_reaches_the_output(har: Path, args: list[str]) -> None:
    cmd = [args[0], str(har), *args[1:]]
    result = run_cli([*cmd, "--fail-on", "never"] if args[0] == "diagnose" else cmd)
    assert result.exit_code == 0, result.output
    out = result.stdout + result.stderr
    assert [s for s in SECRETS if s in out] == []
    if args[0] == "diagnose" and "sarif" not in args:  # SARIF carries no quotes
        assert "[REDACTED]" in out  # the quoted request shows where a credential was
