"""A tiny named registry used for adapters, classifiers, stages, renderers and lint rules."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from toolcall_cli.errors import UsageError

T = TypeVar("T")


class Registry(Generic[T]):
    """Name → object; registration is explicit, duplicates are a bug."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator registering *obj* under *name*."""

        def deco(obj: T) -> T:
            self.add(name, obj)
            return obj

        return deco

    def add(self, name: str, obj: T) -> None:
        """Register *obj* under *name* (non-decorator form)."""
        if name in self._items:
            raise ValueError(f"duplicate {self.kind} {name!r}")
        self._items[name] = obj

    def get(self, name: str) -> T:
        """Return the object registered as *name* or raise a UsageError listing the choices."""
        try:
            return self._items[name]
        except KeyError:
            raise UsageError(
                f"unknown {self.kind} {name!r}", hint=f"choose one of: {', '.join(self.names())}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        """(name, object) pairs in name order."""
        for name in self.names():
            yield name, self._items[name]
