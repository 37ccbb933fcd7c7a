"""Fuzz budgets: short inside `make test`, long under `make fuzz` (pytest --fuzz-long)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def fuzz_long(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--fuzz-long"))


@pytest.fixture(scope="session")
def examples(fuzz_long: bool) -> int:
    """Hypothesis examples per property."""
    return 1000 if fuzz_long else 25


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """atheris: the combined target in short runs, each target on its own in long ones."""
    if "atheris_target" in metafunc.fixturenames:
        long = bool(metafunc.config.getoption("--fuzz-long"))
        names = ["nginx", "middleware", "tagged"] if long else ["all"]
        metafunc.parametrize("atheris_target", names)
