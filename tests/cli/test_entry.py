"""The console script's quick exit (cli/entry.py) loses nothing a normal exit would keep.

Each case runs `main()` in a child interpreter, as the installed `toolcall` script does: the
exit status, stdout and `-o` output must be whole, atexit handlers must run and a live thread
must be waited for, because the script leaves through `os._exit`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "fixtures" / "incidents" / "flooding-model-loop"


def _main(
    prelude: str, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    code = (
        f"{prelude}\nimport sys\nsys.argv = ['toolcall', *{list(argv)!r}]\n"
        "from toolcall_cli.cli.entry import main\nmain()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_exit_status_and_stdout_are_whole() -> None:
    done = _main("", "-q", "diagnose", str(BUNDLE), "-f", "json")
    assert done.returncode == 1  # an error finding, --fail-on error by default
    codes = {f["code"] for f in json.loads(done.stdout)["findings"]}
    assert "FL001" in codes


def test_usage_error_keeps_its_status() -> None:
    done = _main("", "no-such-command")
    assert done.returncode == 2
    assert "No such command" in done.stderr


def test_output_file_is_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = _main(
        "", "-q", "diagnose", str(BUNDLE), "-f", "json", "-o", str(out), "--fail-on", "never"
    )
    assert done.returncode == 0
    assert json.loads(out.read_text())["findings"]


def test_atexit_handlers_run(tmp_path: Path) -> None:
    mark = tmp_path / "atexit"
    prelude = (
        f"import atexit, pathlib\natexit.register(pathlib.Path({str(mark)!r}).write_text, 'ran')"
    )
    done = _main(prelude, "--version")
    assert done.returncode == 0 and done.stdout.startswith("toolcall ")
    assert mark.read_text() == "ran"


def test_a_live_thread_is_waited_for(tmp_path: Path) -> None:
    mark = tmp_path / "thread"
    prelude = (
        "import pathlib, threading, time\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        f"    pathlib.Path({str(mark)!r}).write_text('done')\n"
        "threading.Thread(target=late).start()"
    )
    done = _main(prelude, "--version")
    assert done.returncode == 0
    assert mark.read_text() == "done"


_POOL = (
    "import atexit\n"
    "atexit.register(lambda: print('pool', __import__('pyarrow').default_memory_pool()"
    ".backend_name))"
)


@pytest.mark.skipif(sys.platform != "linux", reason="jemalloc is chosen on Linux only")
def test_arrow_allocates_from_jemalloc() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    done = _main(_POOL, "-q", "diagnose", str(BUNDLE), "-f", "json", env=env)
    assert done.stdout.splitlines()[-1] == "pool jemalloc", done.stderr


def test_a_pool_the_user_chose_is_kept() -> None:
    env = {**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "system"}
    done = _main(_POOL, "-q", "diagnose", str(BUNDLE), "-f", "json", env=env)
    assert done.stdout.splitlines()[-1] == "pool system", done.stderr


# jemalloc starts its background threads (`jemalloc_bg_thd`) as its arenas get used, so their
# number moves with the machine's load; only the others are counted
_TASKS = (
    "import atexit, glob\n"
    "def _count():\n"
    "    names = [open(p).read().strip() for p in glob.glob('/proc/self/task/*/comm')]\n"
    "    print('tasks', sum(n != 'jemalloc_bg_thd' for n in names))\n"
    "atexit.register(_count)"
)


def _tasks(env: dict[str, str]) -> int:
    done = _main(_TASKS, "-q", "diagnose", str(BUNDLE), "-f", "json", env=env)
    last = done.stdout.splitlines()[-1].split()
    assert last[0] == "tasks", done.stderr
    return int(last[1])


@pytest.mark.skipif(sys.platform != "linux", reason="threads are counted in /proc/self/task")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS adds no worker on one core")
def test_openblas_starts_no_worker_unless_the_user_asks() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    # the same run with the user's two OpenBLAS threads has exactly one thread more
    assert _tasks(env) == _tasks({**env, "OPENBLAS_NUM_THREADS": "2"}) - 1
