"""Exit codes and the shallow error hierarchy; `cli/_guard.py` maps these to exits."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes (DESIGN §1, STYLE §5)."""

    OK = 0
    FINDINGS = 1
    USAGE = 2
    INPUT = 3
    ENVIRONMENT = 4
    INTERNAL = 70
    INTERRUPTED = 130


class ToolcallError(Exception):
    """Base of every error toolcall raises on purpose; carries a message and a hint."""

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(ToolcallError):
    """Bad flags, arguments or configuration."""

    exit_code = ExitCode.USAGE


class InputError(ToolcallError):
    """Input unreadable, undetectable or malformed beyond recovery."""

    exit_code = ExitCode.INPUT


class UnknownSourceError(InputError):
    """No adapter recognises a file."""


class MissingDependencyError(ToolcallError):
    """A required external program (tshark) is missing."""

    exit_code = ExitCode.ENVIRONMENT


class InternalError(ToolcallError):
    """A broken invariant inside toolcall (a bug)."""

    exit_code = ExitCode.INTERNAL
