"""Security tests: a guard that refuses (and records) any connect to a non-loopback address.

Every test here runs under it, so a regression that would send traffic off the machine fails
the test instead of sending it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest


class Connects:
    """Addresses the code under test tried to connect to."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    @property
    def outside(self) -> list[str]:
        """The attempts that were not loopback (each one refused)."""
        return [a for a in self.attempts if not _loopback(a)]


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def connects(monkeypatch: pytest.MonkeyPatch) -> Iterator[Connects]:
    """Record every socket connect; refuse the ones that would leave loopback."""
    seen = Connects()
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        host = str(address[0]) if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6):
            seen.attempts.append(host)
            if not _loopback(host):
                raise ConnectionRefusedError(f"test guard: refused connect to {host}")
        real_connect(self, address)

    def guarded_ex(self: socket.socket, address: Any) -> int:
        guarded(self, address)
        return 0

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_ex)
    yield seen
