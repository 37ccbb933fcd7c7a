"""Shared test plumbing: a hermetic environment, golden files, the corpus location, tshark
availability, and helpers more than one test module uses."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner, Result

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = (ROOT.parent / "shared" / "corpus").resolve()
GOLDEN_DIR = ROOT / "tests" / "golden"
GOLDEN_ENV = {"COLUMNS": "100", "NO_COLOR": "1", "TZ": "UTC", "TOOLCALL_FORMAT": ""}
IN_CI = os.environ.get("CI", "").lower() == "true"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", help="rewrite golden files")
    parser.addoption("--fuzz-long", action="store_true", help="run fuzz targets longer")


def pytest_configure(config: pytest.Config) -> None:
    """`make test` is reproducible: hypothesis draws the same examples on every run (and the
    atheris run replays a fixed seed, tests/fuzz). `make fuzz` (--fuzz-long) explores at random;
    what it finds is kept as a regression input (tests/fuzz/regressions/)."""
    from hypothesis import configuration, settings

    # hypothesis's own files (the constants it draws from) stay out of the checkout
    home = tempfile.mkdtemp(prefix="toolcall-tests-hypothesis-")
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))
    configuration.set_hypothesis_home_dir(home)
    settings.register_profile("make-test", derandomize=True, database=None)
    settings.register_profile("make-fuzz", database=None)
    settings.load_profile("make-fuzz" if config.getoption("--fuzz-long") else "make-test")


def _no_config(start: Path) -> None:
    return None


@pytest.fixture(scope="session", autouse=True)
def _hermetic_session() -> Iterator[Callable[[Path], Path | None]]:
    """No test sees the caller's `TOOLCALL_*` variables (nor do the `toolcall` children it
    starts, which inherit this environment), and config discovery is off: a `toolcall.toml` or
    `[tool.toolcall]` in the working directory or a parent changes no result. Session-wide, so
    module fixtures that run the CLI are covered too; yields the real `find_config`."""
    from toolcall_cli.model import config as config_module

    real = config_module.find_config
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith("TOOLCALL_"):
                mp.delenv(name)
        mp.setattr(config_module, "find_config", _no_config)
        yield real


@pytest.fixture(autouse=True)
def _hermetic(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    _hermetic_session: Callable[[Path], Path | None],
) -> None:
    """The same for each test (one that set a `TOOLCALL_*` variable did so for itself); tests of
    discovery itself opt back in with `@pytest.mark.config_discovery`."""
    for name in list(os.environ):
        if name.startswith("TOOLCALL_"):
            monkeypatch.delenv(name)
    if request.node.get_closest_marker("config_discovery") is not None:
        from toolcall_cli.model import config as config_module

        monkeypatch.setattr(config_module, "find_config", _hermetic_session)


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a `toolcall` child: this one (no `TOOLCALL_*`, see `_hermetic`),
    this checkout's code first on the path, and *extra*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCALL_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return {**env, **extra}


@pytest.fixture(scope="session", autouse=True)
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """toolcall's on-disk caches (tshark's version) go to a temp dir, not the user's home."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def need_corpus() -> Path:
    """The shared corpus; a failure under CI, a skip elsewhere."""
    if CORPUS.is_dir():
        return CORPUS
    if IN_CI:
        pytest.fail(f"../shared/corpus is missing at {CORPUS}; CI must have it")
    pytest.skip("../shared/corpus not present beside the checkout")
    raise AssertionError  # unreachable


def need_tshark() -> str:
    """The tshark binary; a failure under CI (.ci/run installs it), a skip elsewhere."""
    path = shutil.which("tshark")
    if path:
        return path
    if IN_CI:
        pytest.fail("tshark is not installed; .ci/run (make setup) must install it")
    pytest.skip("tshark is not installed (apt-get install tshark)")
    raise AssertionError


def need_chromium() -> str:
    """Headless Chromium for browser tests; a failure under CI (make setup installs it), a skip
    elsewhere."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if IN_CI:
        pytest.fail("chromium is not installed; .ci/run (make setup) must install it")
    pytest.skip("chromium is not installed (apt-get install chromium)")
    raise AssertionError


def need_module(name: str, *, install: str) -> None:
    """An optional extra's module (mitmproxy, mcp); a failure under CI (make setup installs the
    extras), a skip elsewhere."""
    import importlib.util

    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return
    if IN_CI:
        pytest.fail(f"{name} is not installed; .ci/run (make setup) must install it ({install})")
    pytest.skip(f"{name} is not installed ({install})")


def need_phoenix() -> Path:
    """Arize Phoenix's `phoenix` command (`make setup` puts it in .phoenix/); a failure under
    CI, a skip elsewhere."""
    path = ROOT / ".phoenix" / "bin" / "phoenix"
    if path.exists():
        return path
    if IN_CI:
        pytest.fail("arize-phoenix is not installed; make setup (make phoenix) must install it")
    pytest.skip("arize-phoenix is not installed (make phoenix)")
    raise AssertionError


@pytest.fixture
def corpus() -> Path:
    return need_corpus()


@pytest.fixture
def tshark() -> str:
    return need_tshark()


def run_cli(
    args: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Result:
    """Invoke the app in-process with the golden environment."""
    from toolcall_cli.cli.app import app

    runner = CliRunner()
    old = Path.cwd()
    try:
        if cwd:
            os.chdir(cwd)
        return runner.invoke(
            app, list(args), env={**GOLDEN_ENV, **(env or {})}, catch_exceptions=False
        )
    finally:
        os.chdir(old)


def normalise(text: str) -> str:
    text = text.replace(str(ROOT), "[ROOT]")
    text = text.replace(str(CORPUS), "[CORPUS]")
    return re.sub(r"[ \t]+\n", "\n", text)


def assert_golden(
    name: str,
    args: Sequence[str],
    *,
    update: bool,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> None:
    """Compare a whole invocation (argv, exit, stdout, stderr) with tests/golden/NAME.txt."""
    res = run_cli(args, cwd=cwd or ROOT, env=env)
    body = (
        f"$ toolcall {' '.join(args)}\nexit: {res.exit_code}\n----- stdout -----\n{res.stdout}"
        f"----- stderr -----\n{res.stderr}"
    )
    body = normalise(body)
    assert body == read_golden(GOLDEN_DIR / f"{name}.txt", body, update=update), (
        f"golden {name} differs; rerun with --update-goldens and review"
    )


def read_golden(path: Path, fresh: str, *, update: bool) -> str:
    """The committed golden at *path*. `--update-goldens` rewrites it with *fresh* first; without
    it a missing golden is a failure, on a laptop as in CI (a test must not pass by writing
    what it then compares with)."""
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fresh, encoding="utf-8")
    elif not path.exists():
        pytest.fail(f"golden {path} is missing; run pytest --update-goldens and review it")
    return path.read_text(encoding="utf-8")


@pytest.fixture
def one_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every component hashes to bucket 00, so one input is one data file again (tests of what
    happens inside a data file; the bucketing itself is tested in
    tests/store/test_store_buckets)."""
    from toolcall_cli.store import layout as store_layout

    monkeypatch.setattr(store_layout, "BUCKETS", 1)


def attrs(value: Any) -> dict[str, Any]:
    """An event's `attrs` JSON as a dict, from the cell or from its whole row; {} when null."""
    if isinstance(value, pd.Series):
        value = value["attrs"]
    if isinstance(value, str):
        return dict(json.loads(value))
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return {}
    raise TypeError(f"attrs() takes an attrs cell or an event row, not {type(value).__name__}")
