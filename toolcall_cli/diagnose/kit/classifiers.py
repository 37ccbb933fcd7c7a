"""`CLASSIFIERS`: rule code (``FL001``) → its check, ``check(ctx) -> Iterable[Finding]``.

Each rule module under `diagnose/rules/` registers itself here; `diagnose/rules/__init__.py`
imports every family by name, and importing `toolcall_cli.diagnose` imports that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_cli.model.registry import Registry

if TYPE_CHECKING:
    from toolcall_cli.diagnose.kit.context import Classifier

CLASSIFIERS: Registry[Classifier] = Registry("classifier")
