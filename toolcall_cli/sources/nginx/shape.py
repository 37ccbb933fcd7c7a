"""What the first block of a big access log found, so that its later blocks need not sample
again (:mod:`.blocks`): the CSV reader's column count, the trailing text's common layouts and
the `attrs` member order. Each reader takes rows outside these the way it always does (the
split path, the token reader), so a shape only saves the samples, never changes a value."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolcall_cli.sources._shared.textlog import MemberOrder


@dataclass(slots=True)
class FileShape:
    """Filled in by the first block that finds each part; None until then."""

    columns: int | None = None  # the CSV reader's column count (csv_columns.cut)
    layouts: list[tuple[str, ...]] | None = None  # trailing_layout.by_layout's layouts
    order: MemberOrder = field(default_factory=MemberOrder)  # attrs (json_objects)
