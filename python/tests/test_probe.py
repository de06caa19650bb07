"""The probe (issue 35): about 1,300 bad and extreme inputs across every family (``probe/cases.py``), each
evaluated with NumPy/SciPy and with cuprum in worker processes (``probe/worker.py``), so that a crash, an abort
or a hang is caught and named instead of taking the suite down. Every case must end as NumPy's does: the same
exception (cuprum's an instance of NumPy's class) or an equal result. No crash, abort, Rust panic or hang is
ever allowed; the other differences (``silent``: NumPy raises, cuprum answers; ``kind``: another exception;
``differ``: another result; ``extra``: cuprum raises where NumPy answers) only where ``probe/allowed.txt`` lists
the case with its reason, and a listed case that now agrees fails too, so that the list only shrinks.

    python -m pytest python/tests/test_probe.py        (CUPRUM_PROBE_REPORT=FILE writes every verdict)
"""

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "probe"
sys.path.insert(0, str(HERE))
from cases import CASES  # noqa: E402

# A case that takes longer than this hangs (each takes milliseconds; the slowest, NumPy's, under a second).
HANG_S = float(os.environ.get("CUPRUM_PROBE_HANG_S", "30"))
ALLOWED_KINDS = {"silent", "kind", "differ", "extra"}


def allowed():
    out = {}
    for line in (HERE / "allowed.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        case_id, verdict, reason = (p.strip() for p in line.split(" | ", 2))
        assert verdict in ALLOWED_KINDS, line
        assert reason, line
        out[case_id] = verdict
    return out


def _pump(stream, lines: queue.Queue) -> None:
    for x in stream:
        lines.put(x)
    lines.put(None)


def run_worker(indices, results):
    """Runs the worker over `indices` (restarting it after a case that kills or hangs it); fills `results`."""
    pending = list(indices)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    while pending:
        p = subprocess.Popen(
            [sys.executable, str(HERE / "worker.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        p.stdin.write(json.dumps(pending))
        p.stdin.close()
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(p.stdout, lines), daemon=True).start()
        err: list = []
        threading.Thread(target=lambda e=err, s=p.stderr: e.append(s.read()), daemon=True).start()
        current = None
        while True:
            try:
                line = lines.get(timeout=HANG_S if current is not None else HANG_S + 60)
            except queue.Empty:
                p.kill()
                p.wait()
                i, side = current if current is not None else (pending[0], "np")
                results[i] = ("hang", f"{side}: no answer in {HANG_S:.0f} s")
                break
            if line is None:
                p.wait()
                if current is not None:
                    i, side = current
                    tail = (err[0] if err else "")[-300:].strip().replace("\n", " / ")
                    results[i] = ("crash" if side == "cp" else "numpy-crash", f"exit {p.returncode}: {tail}")
                break
            msg = json.loads(line)
            if "start" in msg:
                current = (msg["start"], msg["side"])
            else:
                results[msg["done"]] = (msg["verdict"], msg["detail"])
                current = None
        pending = [i for i in pending if i not in results]


def run_probe(workers=2):
    results: dict = {}
    chunks = [list(range(k, len(CASES), workers)) for k in range(workers)]
    threads = [threading.Thread(target=run_worker, args=(c, results)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.skipif(sys.platform != "linux", reason="the worker's address-space limit is Linux's")
def test_probe():
    ok = allowed()
    ids = [c[0] for c in CASES]
    assert len(set(ids)) == len(ids), "case ids are unique"
    assert not set(ok) - set(ids), f"allowed.txt names cases that do not exist: {sorted(set(ok) - set(ids))}"
    results = run_probe()
    report = os.environ.get("CUPRUM_PROBE_REPORT")
    if report:
        with open(report, "w") as f:
            for i, (case_id, expr) in enumerate(CASES):
                v, d = results[i]
                f.write(json.dumps({"id": case_id, "expr": expr, "verdict": v, "detail": d}) + "\n")
    bad = []
    counts: dict = {}
    for i, (case_id, _) in enumerate(CASES):
        verdict, detail = results[i]
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict in ("same", "numpy-crash"):
            if case_id in ok:
                bad.append(f"{case_id}: listed as {ok[case_id]} in allowed.txt but now agrees with NumPy")
        elif ok.get(case_id) != verdict:
            bad.append(f"{case_id}: {verdict}: {detail}")
    print(f"probe: {len(CASES)} cases, {counts}")
    assert not bad, f"{len(bad)} of {len(CASES)} cases:\n" + "\n".join(bad)
