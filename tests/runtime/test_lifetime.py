"""Issue 16: no process of a run and no scratch folder outlives the CLI, however it ends.

Each test starts the real CLI in a subprocess with a private TMPDIR, lets the user's script
start a grandchild and write both pids, ends the CLI some way, and then polls (with a deadline,
never a fixed sleep) until nothing of the run is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; process groups are POSIX")

# The user's script: a grandchild that ignores SIGTERM (a worker that will not stop politely),
# both pids written atomically, then a long sleep.
SCRIPT = """\
import os, subprocess, sys, time
pidfile = sys.argv[1]
g = subprocess.Popen([sys.executable, "-c", "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                      "open(sys.argv[1], 'w').close(); time.sleep(600)", pidfile + ".ready"])
deadline = time.monotonic() + 30
while not os.path.exists(pidfile + ".ready") and time.monotonic() < deadline:
    time.sleep(0.01)
with open(pidfile + ".tmp", "w") as fh:
    fh.write(f"{os.getpid()} {g.pid}")
os.replace(pidfile + ".tmp", pidfile)
time.sleep(600)
"""


def alive(pid: int) -> bool:
    """Running (a zombie or a vanished pid is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def scratch_folders(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("mlsleuth-child-"))


def start_cli(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    (work / "train.py").write_text(SCRIPT)
    pidfile = work / "pids"
    env = {**os.environ, "TMPDIR": str(private_tmp), "PYTHONUNBUFFERED": "1"}
    cli = subprocess.Popen(
        [sys.executable, "-m", "mlsleuth", "trace", "train.py", "--timeout", "120", *extra, "--", str(pidfile)],
        cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert wait_until(lambda: pidfile.exists() or cli.poll() is not None, 60), "the script never started"
    assert pidfile.exists(), cli.communicate()[1].decode()[-2000:]
    return cli, pidfile, private_tmp


def pids_of(pidfile: Path) -> list[int]:
    return [int(x) for x in pidfile.read_text().split()]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_cli_stopped_by_a_signal_kills_the_run_and_its_scratch(tmp_path, sig):
    """Item 4 (and 15 for the CLI): SIGTERM/SIGHUP to `mlsleuth trace` ends the child and its
    grandchild (even one that ignores SIGTERM) and removes the scratch folder; the CLI then
    ends by the same signal, as callers like `timeout` expect."""
    cli, pidfile, private_tmp = start_cli(tmp_path)
    pids = pids_of(pidfile)
    try:
        cli.send_signal(sig)
        _, err = cli.communicate(timeout=30)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == -sig, err.decode()[-2000:]
    assert f"stopped by {signal.Signals(sig).name}".encode() in err
    assert wait_until(lambda: not any(alive(p) for p in pids), 10), [p for p in pids if alive(p)]
    assert scratch_folders(private_tmp) == []


@pytest.mark.slow
def test_cli_killed_by_sigkill_leaves_nothing_behind(tmp_path):
    """The watchdog the launcher starts notices that mlsleuth died without cleaning up (SIGKILL
    cannot be caught) and kills the run, grandchild included, and deletes the scratch folder."""
    cli, pidfile, private_tmp = start_cli(tmp_path)
    pids = pids_of(pidfile)
    assert len(scratch_folders(private_tmp)) == 1
    cli.kill()
    cli.communicate(timeout=30)
    assert wait_until(lambda: not any(alive(p) for p in pids), 10), [p for p in pids if alive(p)]
    assert wait_until(lambda: scratch_folders(private_tmp) == [], 10), scratch_folders(private_tmp)


def test_no_parent_left_means_nothing_starts(tmp_path):
    """A launcher whose parent is already gone (it died between fork and exec) starts nothing."""
    import json

    from mlsleuth.child_launcher import EXIT_PARENT_GONE
    from mlsleuth.process_runner import LAUNCHER

    marker = tmp_path / "ran"
    settings = {"parent": 1 if os.getppid() != 1 else 2, "scratch": None, "cgroup": None, "rlimit_as": None}
    proc = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(settings), "/usr/bin/touch", str(marker)], timeout=30, check=False)
    assert proc.returncode == EXIT_PARENT_GONE and not marker.exists()
