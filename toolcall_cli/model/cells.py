"""Reading one cell of the event table: as text, or the `attrs` cell as a dict.

Cells come out of pandas as str, None, `pd.NA`, NaN or NaT depending on the column and how
the row was reached (itertuples, `.at`, a dict record); every reader asks these two instead
of testing for each kind of null itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolcall_cli.model.jsonio import try_loads

if TYPE_CHECKING:
    pass


def text(v: Any) -> str | None:
    """A cell as text; None for every kind of null (None, `pd.NA`, NaN, NaT)."""
    import pandas as pd

    if v is None or (not isinstance(v, str) and bool(pd.isna(v))):
        return None
    return str(v)


def attrs_of(v: Any) -> dict[str, Any]:
    """The `attrs` cell as a dict ({} when null, empty or not a JSON object)."""
    if not isinstance(v, str) or not v:
        return {}
    d = try_loads(v)
    return d if isinstance(d, dict) else {}
