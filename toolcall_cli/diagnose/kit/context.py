"""The classifier protocol: a `DiagnoseContext` in, findings out.

A classifier is a plain function registered under its rule code in `CLASSIFIERS`
(`diagnose/__init__.py`). It reads the aligned timeline, the effective config and the tool
registry from the context, and yields `Finding`s. Expensive shared work (a session's replay,
another rule's findings, derived tables) is computed once per context and cached on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.findings import Finding, Report

if TYPE_CHECKING:  # pipeline types are only needed for annotations
    import pandas as pd

    from toolcall_cli.tools.registry import ToolRegistry

T = TypeVar("T")


class TimelineLike(Protocol):
    """What diagnose reads from `align.Timeline` (structural, so align can evolve freely)."""

    @property
    def events(self) -> pd.DataFrame: ...  # event table + "trace" + "ts_corrected"

    @property
    def calls(self) -> tuple[Any, ...]: ...  # tuple[CallView, ...]

    @property
    def skews(self) -> Mapping[str, float]: ...  # source -> offset in ms

    @property
    def sessions(self) -> Mapping[str, tuple[str, ...]]: ...  # session_id -> traces


@dataclass(frozen=True)
class DiagnoseContext:
    """Everything a classifier may look at; shared, lazily computed facts are cached here."""

    timeline: TimelineLike
    cfg: Config = DEFAULT
    registry: ToolRegistry | None = None
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def events(self) -> pd.DataFrame:
        """The aligned event table (do not mutate it; copy first)."""
        return self.timeline.events

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """Compute *key* once per context (classifiers share derived tables this way)."""
        if key not in self._cache:
            self._cache[key] = compute()
        value: T = self._cache[key]
        return value

    def findings_of(self, code: str) -> list[Finding]:
        """The findings of rule *code* on this context (run once, cached; FL004 and FL006 read
        other rules' findings)."""
        from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS

        def run() -> list[Finding]:
            if code not in CLASSIFIERS:
                return []
            return [f for f in CLASSIFIERS.get(code)(self) if f.code == code]

        return self.memo(f"findings:{code}", run)

    def _key_map(self, column: str) -> dict[str, str]:
        """tool_call_id → the first non-null *column* value of the call's events."""
        ev = self.events()
        if column not in ev.columns:
            return {}
        sub = ev.loc[ev["tool_call_id"].notna() & ev[column].notna(), ["tool_call_id", column]]
        sub = sub.drop_duplicates("tool_call_id")
        return dict(zip(sub["tool_call_id"].astype(str), sub[column].astype(str), strict=True))

    def trace_of(self, tool_call_id: str | None) -> str | None:
        """The aligned trace key of a call (None when the call is unknown)."""
        if tool_call_id is None:
            return None
        return self.memo("trace_map", lambda: self._key_map("trace")).get(tool_call_id)


Classifier = Callable[[DiagnoseContext], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class DiagnoseReport(Report):
    """A `Report` of command "diagnose" (its own type so its views never clash with lint's)."""

    #: The aligned `Timeline` the findings were drawn from (for views that draw it, e.g. html).
    timeline: Any = field(default=None, compare=False, repr=False)
    #: The effective `Config` of the run (the html header prints its fingerprint).
    config: Any = field(default=None, compare=False, repr=False)
    #: How the views group findings: "trace" (each incident under its trace) or "code".
    group_by: str = "trace"
    #: Views print per-code counts instead of the findings (`--statistics`).
    statistics: bool = False
