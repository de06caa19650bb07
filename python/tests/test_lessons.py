"""The workshop lessons' own Python cells, run on cuprum (``lessons/run_lessons.py``).

One test per lesson and device. Each runs the runner in a fresh interpreter (a lesson's cells
share one namespace, and a lesson leaves large arrays, pools and imported modules behind), so
a failure names the lesson and shows the runner's report: every cell's status, tracebacks,
and the checks that failed. The lessons live in ``shared/seeds/`` (or ``CUPRUM_LESSONS_DIR``).

The CPU case always runs; the GPU case runs when ``cuprum.cuda.is_available()``, and with
``CUPRUM_REQUIRE_GPU=1`` a missing GPU fails it instead of skipping it (conftest's
``require_device``). Nothing is skipped because cuprum is missing: conftest imports it, and the
runner exits with an error when it cannot.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _cuprum_conftest import require_device

RUNNER = Path(__file__).resolve().parent / "lessons" / "run_lessons.py"
# A lesson on the CPU backend takes a minute or two (2048² images, several benchmarks).
TIMEOUT = float(os.environ.get("CUPRUM_LESSONS_TIMEOUT", "1800"))


def _lesson_ids():
    """The lesson ids ("000", ...) from the runner's own discovery; a missing lessons directory
    becomes one reported skip (a failure under CUPRUM_REQUIRE_LESSONS=1) rather than none."""
    spec = importlib.util.spec_from_file_location("_cuprum_run_lessons", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = runner  # dataclasses look their module up there
    spec.loader.exec_module(runner)
    try:
        return sorted(runner.find_lessons())
    except FileNotFoundError as e:
        return [pytest.param(f"missing: {e}", id="lessons-not-found")]


@pytest.mark.parametrize("device", ["cpu", "gpu"])
@pytest.mark.parametrize("lesson", _lesson_ids())
def test_lesson(lesson, device):
    if lesson.startswith("missing: "):
        # The lessons are the workshop's text, not the repository's: a checkout without them beside it
        # reports the skip (CUPRUM_REQUIRE_LESSONS=1, which scripts/test.sh sets when they are there,
        # makes it a failure).
        if os.environ.get("CUPRUM_REQUIRE_LESSONS") == "1":
            pytest.fail(lesson[len("missing: ") :], pytrace=False)
        pytest.skip(lesson[len("missing: ") :])
    if device == "gpu":
        require_device("cuda:0")
    cmd = [sys.executable, str(RUNNER), "--lesson", lesson, "--device", device]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"lesson {lesson} on the {device}: no result after {TIMEOUT:.0f} s\n{out[-20000:]}", pytrace=False)
    if proc.returncode != 0:
        pytest.fail(
            f"lesson {lesson} on the {device}: {' '.join(cmd[1:])} exited with {proc.returncode}\n"
            f"{proc.stdout[-30000:]}\n{proc.stderr[-10000:]}",
            pytrace=False,
        )
