"""toolcall: diagnose and replay LLM tool-call round trips."""

from __future__ import annotations

__version__ = "0.1.0"
