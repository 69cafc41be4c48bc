"""ChildRun: the only way mlsleuth runs user code. Timeouts, results, progress, output, signals, memory."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mlsleuth.process_runner import ChildResult, ChildRun, python_argv

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")


def child(code: str, tmp_path: Path, **kw) -> ChildRun:
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    kw.setdefault("timeout_s", 30)
    return ChildRun(python_argv(None, str(script)), cwd=tmp_path, **kw)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); treat it as dead
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True
@pytest.mark.slow
def test_result_file_and_clean_exit(tmp_path):
    run = child(
        """
        import json, os
        with open(os.environ["MLSLEUTH_RESULT"], "w") as fh:
            json.dump({"answer": 42, "cwd": os.getcwd()}, fh)
        print("hello")
        """,
        tmp_path,
    )
    res = run.wait()
    assert res.returncode == 0 and not res.timed_out
    assert res.result == {"answer": 42, "cwd": str(tmp_path)}
    assert res.stdout_tail == "hello\n"
    assert res.describe_end() == "exited with status 0"
    assert not run.scratch.exists()  # scratch is cleaned up
@pytest.mark.slow
def test_unreadable_result_is_explained(tmp_path):
    res = child('import os\nopen(os.environ["MLSLEUTH_RESULT"], "w").write("[1, 2")\n', tmp_path).wait()
    assert res.result is None and "unreadable" in (res.result_error or "")
    res = child('import os\nopen(os.environ["MLSLEUTH_RESULT"], "w").write("[1, 2]")\n', tmp_path).wait()
    assert res.result is None and "not hold a JSON object" in (res.result_error or "")
@pytest.mark.slow
def test_progress_events_are_delivered_in_order(tmp_path):
    run = child(
        """
        import json, os, time
        path = os.environ["MLSLEUTH_PROGRESS"]
        for i in range(5):
            with open(path, "a") as fh:
                fh.write(json.dumps({"message": "step", "done": i}) + "\\n")
                if i == 2:
                    fh.write("not json\\n")
            time.sleep(0.05)
        """,
        tmp_path,
    )
    seen: list[dict] = []
    res = run.wait(on_progress=seen.append)
    assert [e["done"] for e in seen] == [0, 1, 2, 3, 4]
    assert [e["done"] for e in res.progress] == [0, 1, 2, 3, 4]
@pytest.mark.slow
def test_timeout_kills_the_whole_group_including_a_grandchild(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    run = child(
        f"""
        import subprocess, sys, time
        g = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open({str(pidfile)!r}, "w").write(str(g.pid))
        time.sleep(120)
        """,
        tmp_path,
        timeout_s=1.5,
    )
    started = time.monotonic()
    res = run.wait()
    assert res.timed_out and time.monotonic() - started < 15
    assert "timed out" in res.describe_end()
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(grandchild)
@pytest.mark.slow
def test_a_child_ignoring_sigterm_is_killed(tmp_path, monkeypatch):
    from mlsleuth import process_runner

    monkeypatch.setattr(process_runner, "TERM_GRACE_S", 0.5)  # the length of the grace period is not what is tested here
    run = child(
        """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready", flush=True)
        time.sleep(120)
        """,
        tmp_path,
        timeout_s=1.0,
    )
    res = run.wait()
    assert res.timed_out
    assert res.returncode == -signal.SIGKILL
@pytest.mark.slow
def test_stragglers_are_reaped_when_the_leader_exits(tmp_path):
    pidfile = tmp_path / "worker.pid"
    res = child(
        f"""
        import subprocess, sys
        w = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open({str(pidfile)!r}, "w").write(str(w.pid))
        """,
        tmp_path,
    ).wait()
    assert res.returncode == 0
    worker = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(worker)
@pytest.mark.slow
def test_output_tail_is_capped(tmp_path):
    res = child(
        """
        import sys
        for i in range(20000):
            print(f"line {i:05d} " + "x" * 40)
        sys.stderr.write("E" * 5000)
        """,
        tmp_path,
        output_limit=2000,
    ).wait()
    assert res.stdout_truncated and len(res.stdout_tail) <= 2000
    assert res.stdout_tail.rstrip().endswith("line 19999 " + "x" * 40)
    assert res.stdout_tail.startswith("line ")  # cut at a line boundary
    assert res.stderr_truncated and len(res.stderr_tail) <= 2000
@pytest.mark.slow
def test_exit_status_and_signal_are_described(tmp_path):
    res = child("import sys\nsys.exit(3)\n", tmp_path).wait()
    assert res.returncode == 3 and res.describe_end() == "exited with status 3"
    res = child("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", tmp_path).wait()
    assert res.signal_name == "SIGSEGV" and res.describe_end() == "killed by SIGSEGV"
    assert ChildResult(returncode=-9, duration_s=1.0).describe_end().startswith("killed by SIGKILL")
    assert ChildResult(returncode=None, duration_s=1.0, cancelled=True).describe_end().startswith("cancelled")
@pytest.mark.slow
def test_exception_traceback_is_in_stderr(tmp_path):
    res = child("def f():\n    raise ValueError('bad setup')\nf()\n", tmp_path).wait()
    assert res.returncode == 1
    assert "ValueError: bad setup" in res.stderr_tail


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics are Linux's")
def test_memory_cap_turns_runaway_allocation_into_an_error(tmp_path):
    res = child(
        """
        blocks = []
        try:
            for _ in range(64):
                blocks.append(bytearray(64 * 2**20))
        except MemoryError:
            print("memory error")
            raise SystemExit(7)
        print("no limit hit")
        """,
        tmp_path,
        memory_limit_mb=512,
    ).wait()
    assert res.returncode == 7, res.stdout_tail + res.stderr_tail
    assert "memory error" in res.stdout_tail
@pytest.mark.slow
def test_async_wait_and_cancellation_kill_the_group(tmp_path):
    import anyio

    pidfile = tmp_path / "pid"
    run = child(
        f"""
        import os, time
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        time.sleep(120)
        """,
        tmp_path,
        timeout_s=60,
    )

    async def main() -> None:
        with anyio.move_on_after(1.5):
            await run.wait_async()

    anyio.run(main)
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)
    assert not run.scratch.exists()
@pytest.mark.slow
def test_async_wait_returns_the_result(tmp_path):
    import anyio

    run = child('import json, os\njson.dump({"ok": True}, open(os.environ["MLSLEUTH_RESULT"], "w"))\n', tmp_path)
    res = anyio.run(run.wait_async)
    assert res.result == {"ok": True} and res.returncode == 0
@pytest.mark.slow
def test_invalid_arguments(tmp_path):
    with pytest.raises(ValueError):
        ChildRun([sys.executable, "-c", "pass"], cwd=tmp_path, timeout_s=0)
    run = ChildRun([sys.executable, "-c", "pass"], cwd=tmp_path, timeout_s=5).start()
    with pytest.raises(RuntimeError):
        run.start()
    run.wait()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics are Linux's")
def test_memory_cap_is_set_without_preexec_fn_and_keeps_pid_and_session(tmp_path, monkeypatch):
    """preexec_fn is unsafe in a threaded parent (the MCP server): the cap comes from a
    launcher that execs the command, so the child keeps the pid and session Popen gave it."""
    import subprocess

    seen: list[dict] = []
    real_popen = subprocess.Popen

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", spy)
    run = child(
        """
        import json, os, resource, sys
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        json.dump({"soft": soft, "hard": hard, "pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgid(0),
                   "argv": sys.argv[1:], "exe": sys.executable},
                  open(os.environ["MLSLEUTH_RESULT"], "w"))
        """,
        tmp_path,
        memory_limit_mb=768,
    )
    run.argv.append("--flag")
    res = run.wait()
    assert res.returncode == 0, res.stderr_tail
    assert seen and all(kw.get("preexec_fn") is None for kw in seen)
    assert res.result["soft"] == res.result["hard"] == 768 * 2**20
    assert res.result["pid"] == res.result["sid"] == res.result["pgid"] == run.pid
    assert res.result["argv"] == ["--flag"]
    assert res.result["exe"] == sys.executable
@pytest.mark.slow
def test_no_memory_cap_leaves_the_limit_alone(tmp_path):
    res = child(
        'import json, os, resource\njson.dump({"soft": resource.getrlimit(resource.RLIMIT_AS)[0]}, open(os.environ["MLSLEUTH_RESULT"], "w"))\n',
        tmp_path,
    ).wait()
    assert res.result == {"soft": __import__("resource").getrlimit(__import__("resource").RLIMIT_AS)[0]}


@pytest.mark.parametrize("limit", [None, 512])
def test_a_missing_program_fails_at_start_with_or_without_a_cap(tmp_path, limit):
    run = ChildRun([str(tmp_path / "no-such-python"), "-c", "pass"], cwd=tmp_path, timeout_s=5, memory_limit_mb=limit)
    with pytest.raises(FileNotFoundError):
        run.start()
    (tmp_path / "not-executable").write_text("#!/bin/sh\n")
    run = ChildRun([str(tmp_path / "not-executable")], cwd=tmp_path, timeout_s=5, memory_limit_mb=limit)
    with pytest.raises(PermissionError):
        run.start()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics are Linux's")
def test_capped_children_start_from_many_threads_at_once(tmp_path):
    """The server starts children from worker threads; every one gets its cap and finishes."""
    from concurrent.futures import ThreadPoolExecutor

    script = tmp_path / "cap.py"
    script.write_text('import json, os, resource\njson.dump({"soft": resource.getrlimit(resource.RLIMIT_AS)[0]}, open(os.environ["MLSLEUTH_RESULT"], "w"))\n')

    def one(i: int):
        return ChildRun(python_argv(None, str(script)), cwd=tmp_path, timeout_s=60, memory_limit_mb=512 + i).wait()

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(one, range(12)))
    assert [r.result["soft"] for r in results] == [(512 + i) * 2**20 for i in range(12)]


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_group_of_zombies_counts_as_dead(tmp_path):
    """Killed processes stay zombies until reaped (slowly, by some container inits);
    the kill loop must not wait out its grace period for them."""
    import subprocess

    from mlsleuth.process_runner import _group_alive

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        assert _group_alive(sleeper.pid)
    finally:
        sleeper.kill()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{sleeper.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z" and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(sleeper.pid, 0)  # the zombie still answers a signal probe ...
    assert not _group_alive(sleeper.pid)  # ... but nothing in the group runs
    sleeper.wait()
    assert not _group_alive(sleeper.pid)


def test_child_progress_is_throttled_but_keeps_first_last_and_forced(tmp_path, monkeypatch):
    from mlsleuth.runtime.child import channel

    path = tmp_path / "progress.jsonl"
    monkeypatch.setenv(channel.PROGRESS_ENV, str(path))
    monkeypatch.setattr(channel, "_last_progress_at", None)
    clock = [100.0]
    monkeypatch.setattr(channel.time, "monotonic", lambda: clock[0])
    written = []
    for step in range(1, 101):  # 100 steps, 1 ms apart: only the first and the last get through
        clock[0] += 0.001
        written.append(channel.progress(f"step {step}", done=step, total=100, step=step))
    assert written[0] and written[-1] and sum(written) == 2
    assert channel.progress("replaying", force=True)  # a phase change is never dropped
    assert not channel.progress("step", done=1, total=None)
    clock[0] += channel.PROGRESS_MIN_INTERVAL_S
    assert channel.progress("step", done=2, total=None)  # the interval has passed
    import json

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["message"] for e in lines] == ["step 1", "step 100", "replaying", "step"]


def test_child_progress_without_a_parent_writes_nothing(tmp_path, monkeypatch):
    from mlsleuth.runtime.child import channel

    monkeypatch.delenv(channel.PROGRESS_ENV, raising=False)
    assert channel.progress("step", done=1, total=2) is False


@pytest.mark.slow
def test_a_flood_of_output_is_trimmed_on_disk_keeping_head_and_tail(tmp_path):
    """Issue 16 item 13: a child printing without end must not fill the disk. The parent trims the
    file back while the child runs; the child waits (bounded) until it sees its stdout file shrink."""
    run = child(
        """
        import json, os, sys, time
        out = sys.stdout.buffer
        out.write(b"first line of the run\\n")
        chunk = (b"y" * 1023 + b"\\n") * 1024  # 1 MiB
        for i in range(48):
            out.write(chunk)
            out.flush()
        largest, deadline = os.fstat(1).st_size, time.monotonic() + 4
        while os.fstat(1).st_size > 4 * 2**20 and time.monotonic() < deadline:
            time.sleep(0.02)
        out.write(b"last line of the run\\n")
        out.flush()
        json.dump({"size_after_wait": os.fstat(1).st_size}, open(os.environ["MLSLEUTH_RESULT"], "w"))
        sys.stderr.write("short stderr\\n")
        """,
        tmp_path,
        output_limit=4096,
        max_output_bytes=2**20,
    )
    res = run.wait()
    assert res.returncode == 0, res.stderr_tail
    assert res.result["size_after_wait"] <= 4 * 2**20  # trimmed while the child still ran
    assert res.stdout_truncated and res.stdout_head.startswith("first line of the run\n")
    assert res.stdout_tail.endswith("last line of the run\n") and len(res.stdout_tail) <= 4096
    # bytes the child writes between the parent's last look at the size and its cut go uncounted
    # (on a loaded machine the parent can be descheduled right there), so the count is a lower bound
    written = len("first line of the run\n") + 48 * 2**20 + len("last line of the run\n")
    assert 4 * 2**20 < res.stdout_bytes <= written
    assert res.stdout_dropped == res.stdout_bytes - len(res.stdout_head.encode()) - len(res.stdout_tail.encode())
    text = res.excerpt("stdout", 2000)
    assert text.startswith("first line") and "bytes of stdout not kept" in text and text.endswith("last line of the run\n")
    assert not res.stderr_truncated and res.stderr_tail == "short stderr\n" and res.excerpt() == "short stderr\n"


def test_stream_reading_without_a_trim_splits_head_and_tail_without_overlap(tmp_path):
    from mlsleuth.process_runner import _Stream

    path = tmp_path / "out.txt"
    path.write_bytes(b"a" * 10 + b"b" * 5)
    head, tail, cut, dropped, total = _Stream(path, keep=10, cap=1000).read()
    assert (head, tail, cut, dropped, total) == ("aaaaa", "aaaaabbbbb", True, 0, 15)
    path.write_bytes(b"short")
    assert _Stream(path, keep=10, cap=1000).read() == ("", "short", False, 0, 5)


@pytest.mark.slow
def test_the_last_step_survives_a_hard_exit_despite_throttled_progress(tmp_path):
    """Issue 16 item 17: seven steps in a few milliseconds leave one progress line (throttled);
    the step count is written unthrottled, so the parent still learns it after os._exit."""
    from mlsleuth.runtime.common import CHILD_DIR, last_progress_step

    res = child(
        f"""
        import os, sys
        sys.path.insert(0, {str(CHILD_DIR)!r})
        import channel
        for step in range(1, 8):
            channel.progress(f"step {{step}}", done=step, total=100, step=step)
        channel.progress("replaying step 3", step=3, replay=True, force=True)  # a replay never lowers the count
        os._exit(3)
        """,
        tmp_path,
    ).wait()
    assert res.returncode == 3
    assert [e["step"] for e in res.progress if not e.get("replay")] == [1]  # throttled
    assert res.last_step == 7 and last_progress_step(res) == 7


def test_the_step_file_is_rewritten_in_place(tmp_path, monkeypatch):
    from mlsleuth.process_runner import _read_step
    from mlsleuth.runtime.child import channel

    path = tmp_path / "step"
    monkeypatch.setenv(channel.STEP_ENV, str(path))
    monkeypatch.setattr(channel, "_step_max", -1)
    monkeypatch.setattr(channel, "_step_fd", None)
    for step in (9, 10, 4):
        channel.record_step(step)
    assert _read_step(path) == 10 and path.stat().st_size == 21
    assert _read_step(tmp_path / "missing") is None
    path.write_text("garbage")
    assert _read_step(path) is None


PARENT_THEN_DIE = """
import sys, time
from mlsleuth.process_runner import ChildRun, python_argv
run = ChildRun(python_argv(None, sys.argv[1], sys.argv[2]), cwd=sys.argv[3], timeout_s=300).start()
print(run.scratch, flush=True)
time.sleep(300)
"""

GRANDPARENT_SCRIPT = """
import os, subprocess, sys, time
g = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=bool(int(os.environ.get("ESCAPE", "0"))))
open(sys.argv[1] + ".tmp", "w").write(f"{os.getpid()} {g.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)
"""


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sigkilled_parent_leaves_no_child_and_no_scratch(tmp_path):
    """Issue 16: a parent-death watchdog. The process that started the run is SIGKILLed (no
    handler runs); the run's leader and grandchild die and the scratch folder goes."""
    import subprocess

    script = tmp_path / "user.py"
    script.write_text(GRANDPARENT_SCRIPT)
    pidfile = tmp_path / "pids"
    parent = subprocess.Popen([sys.executable, "-c", PARENT_THEN_DIE, str(script), str(pidfile), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        scratch = Path(parent.stdout.readline().strip())
        assert _wait_for(pidfile.exists, 30)
        pids = [int(x) for x in pidfile.read_text().split()]
        assert all(alive(p) for p in pids) and scratch.is_dir()
    finally:
        parent.kill()
        parent.wait()
    assert _wait_for(lambda: not any(alive(p) for p in pids), 10), [p for p in pids if alive(p)]
    assert _wait_for(lambda: not scratch.exists(), 10)


def _cgroups_usable() -> bool:
    from mlsleuth import process_cgroup

    return process_cgroup.base_dir() is not None


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or not _cgroups_usable(), reason="needs a writable cgroup v2")
@pytest.mark.parametrize("how", ["timeout", "leader-exits"])
def test_a_setsid_grandchild_is_killed_through_the_cgroup(tmp_path, monkeypatch, how):
    """Issue 16 item 14: a grandchild that called setsid() is outside the process group; the
    run's cgroup still holds it, so a timeout and a normal end both kill it, and the cgroup goes."""
    monkeypatch.setenv("ESCAPE", "1")
    script = tmp_path / "user.py"
    # the leader either sleeps into the timeout or exits at once, leaving its escaped grandchild
    script.write_text(GRANDPARENT_SCRIPT if how == "timeout" else GRANDPARENT_SCRIPT.rsplit("time.sleep(300)", 1)[0])
    pidfile = tmp_path / "pids"
    run = ChildRun(python_argv(None, str(script), str(pidfile)), cwd=tmp_path, timeout_s=60 if how == "leader-exits" else 3)
    run.start()
    cgroup = run.cgroup
    assert cgroup is not None and cgroup.is_dir()
    res = run.wait()
    assert res.timed_out == (how == "timeout"), res.stderr_tail
    leader, grandchild = (int(x) for x in pidfile.read_text().split())
    assert _wait_for(lambda: not alive(grandchild) and not alive(leader), 10)
    assert not cgroup.exists()


def test_cgroups_can_be_turned_off(monkeypatch):
    from mlsleuth import process_cgroup

    monkeypatch.setenv(process_cgroup.DISABLE_ENV, "off")
    assert process_cgroup.base_dir() is None and process_cgroup.create() is None


def test_stop_signals_raise_once_then_let_the_cleanup_finish():
    """SIGTERM/SIGHUP during a blocking wait raise Terminated once; a repeat while the group is
    being killed is ignored (an interrupted clean-up would orphan the run); the previous
    handlers come back afterwards."""
    from mlsleuth.process_runner import Terminated, _StopSignals

    before = signal.getsignal(signal.SIGTERM)
    cleaned = False
    with pytest.raises(Terminated) as caught:
        with _StopSignals():
            try:
                os.kill(os.getpid(), signal.SIGHUP)
                time.sleep(5)  # the handler raises long before this ends
            except Terminated:
                os.kill(os.getpid(), signal.SIGTERM)  # ignored: the clean-up below still runs
                time.sleep(0.05)
                cleaned = True
                raise
    assert caught.value.signum == signal.SIGHUP and caught.value.name == "SIGHUP" and cleaned
    assert signal.getsignal(signal.SIGTERM) == before
