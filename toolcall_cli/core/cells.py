"""Reading event-table cells: text and attrs."""

from __future__ import annotations

from typing import Any

import pandas as pd

from toolcall_cli.core.jsonio import try_loads


def text(v: Any) -> str | None:
    """A cell as text; None for every kind of null."""
    if v is None or (not isinstance(v, str) and bool(pd.isna(v))):
        return None
    return str(v)


def attrs_of(v: Any) -> dict[str, Any]:
    """The `attrs` cell as a dict ({} when empty or not JSON)."""
    d = try_loads(text(v))
    return d if isinstance(d, dict) else {}
