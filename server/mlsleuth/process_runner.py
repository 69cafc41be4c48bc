"""Run user code in a child process, never in ours.

Every tool that executes the user's code (``trace``, ``diagnose``, ``nan``)
starts it through :class:`ChildRun`:

* the child gets its own session and process group, so a timeout or a cancel
  kills the child *and everything it started* (data-loader workers included);
* its stdout and stderr go to files, never to our stdout (the MCP stdio
  transport must carry protocol bytes only); each file is trimmed back to its
  first part whenever it grows past ``max_output_bytes`` (the last part is
  kept in memory), so a child printing gigabytes cannot fill the disk; the
  head and the tail come back, with how many bytes were not kept;
* it reports results by writing JSON to the file named in ``MLSLEUTH_RESULT``
  and progress as JSON lines appended to ``MLSLEUTH_PROGRESS``
  (see :mod:`mlsleuth.runtime.child.channel` for the child-side helpers);
* it starts through a small launcher (:mod:`mlsleuth.child_launcher`) that
  execs the command after starting a watchdog (should mlsleuth die without
  cleaning up, the watchdog kills the run and deletes its scratch folder),
  moving into the run's cgroup where one could be made
  (:mod:`mlsleuth.process_cgroup`: even a ``setsid()`` escapee is killed) and
  applying an optional address-space cap (runaway memory use becomes a clean
  error), never through ``preexec_fn``.

Both a blocking :meth:`ChildRun.wait` (CLI) and an async
:meth:`ChildRun.wait_async` (MCP server; cancellation kills the group) exist.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULT_ENV = "MLSLEUTH_RESULT"
PROGRESS_ENV = "MLSLEUTH_PROGRESS"
STEP_ENV = "MLSLEUTH_STEP"  # the child's last completed step, never throttled (see runtime/child/channel.py)
DEFAULT_OUTPUT_LIMIT = 64_000  # bytes of each stream's head and of its tail kept
DEFAULT_MAX_OUTPUT_BYTES = 8 * 2**20  # each stream's file on disk is trimmed back when it grows past this
# After SIGTERM, how long the child's group may take to exit before SIGKILL. Shorter than the
# MCP clients' own grace after closing a server's stdin (2 s in the Python SDK), so that a
# server whose session closes mid-run finishes its cleanup before the client escalates.
TERM_GRACE_S = 1.0
POLL_S = 0.05

ProgressCallback = Callable[[dict[str, Any]], None]

# Signals that end a blocking wait() like Ctrl-C does (SIGINT already raises KeyboardInterrupt):
# `timeout`, a job scheduler or a closing terminal must not orphan the child.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM/SIGHUP during :meth:`ChildRun.wait`, after which the
    child's group is killed; the caller should then end the way the signal would have."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class _StopSignals:
    """While active (main thread only), the first SIGTERM/SIGHUP raises :class:`Terminated`;
    repeats are ignored so that the clean-up they interrupt can finish (it is bounded)."""

    def __enter__(self) -> None:
        import threading

        self.saved: dict[int, Any] = {}
        self.fired = False
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in STOP_SIGNALS:
            try:
                self.saved[sig] = signal.signal(sig, self._handle)
            except (OSError, ValueError):  # pragma: no cover - an embedded interpreter
                pass

    def _handle(self, signum: int, frame: Any) -> None:
        if self.fired:
            return
        self.fired = True
        raise Terminated(signum)

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.saved.items():
            signal.signal(sig, previous)


@dataclass
class ChildResult:
    """How the child ended and what it reported."""

    returncode: int | None
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    result: dict[str, Any] | None = None  # parsed JSON from the result file, if written
    result_error: str | None = None  # why the result file could not be read
    progress: list[dict[str, Any]] = field(default_factory=list)
    last_step: int | None = None  # the last completed step the child recorded, read after it ended
    stdout_tail: str = ""
    stderr_tail: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    stdout_head: str = ""  # the first part of a truncated stream (empty when nothing was cut)
    stderr_head: str = ""
    stdout_dropped: int = 0  # bytes written by the child but kept neither in the head nor in the tail (at least)
    stderr_dropped: int = 0
    stdout_bytes: int = 0  # bytes the child wrote in all; once a trim happened, a lower bound: what the
    # child writes between the parent's last look at the size and the cut goes uncounted
    stderr_bytes: int = 0

    def excerpt(self, stream: str = "stderr", limit: int = 4000) -> str:
        """The stream for an error report: the tail, or, when the middle was cut, the start, a line
        saying how much was not kept, and the end (at most about ``limit`` characters)."""
        tail = getattr(self, f"{stream}_tail") or ""
        head = getattr(self, f"{stream}_head") or ""
        dropped = getattr(self, f"{stream}_dropped")
        if not head:
            return tail[-limit:]
        note = f"\n[... at least {dropped} bytes of {stream} not kept: the output was too long and was truncated ...]\n"
        return head[: limit // 4] + note + tail[-(limit - limit // 4):]

    @property
    def signal_name(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None

    def describe_end(self) -> str:
        """One line on how the child ended, for error messages."""
        if self.cancelled:
            return "cancelled; the child process group was killed"
        if self.timed_out:
            return f"timed out after {self.duration_s:.1f}s; the child process group was killed"
        if self.signal_name == "SIGKILL":
            return "killed by SIGKILL (often the kernel's out-of-memory killer)"
        if self.signal_name:
            return f"killed by {self.signal_name}"
        return f"exited with status {self.returncode}"


def _read_step(path: Path) -> int | None:
    try:
        text = path.read_bytes()[:64].decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _cut_at_line(data: bytes, *, keep_end: bool) -> bytes:
    """A cut stream starts (or ends) at a line boundary when one is near."""
    if keep_end:
        cut = data.find(b"\n")
        return data[cut + 1 :] if 0 <= cut < 200 else data
    cut = data.rfind(b"\n")
    return data[: cut + 1] if cut >= len(data) - 200 else data


class _Stream:
    """One of the child's output files, kept small on disk.

    The child writes with ``O_APPEND``, so when the file grows past the cap the
    parent can save its last ``keep`` bytes in memory and truncate it back to
    its first ``keep`` bytes; the child's next write lands after the head.
    """

    def __init__(self, path: Path, keep: int, cap: int) -> None:
        self.path = path
        self.keep = keep
        self.cap = max(cap, 3 * keep)
        self.carry = b""  # the tail saved before the last trim
        self.trimmed = 0  # bytes removed from the file by trims

    def trim(self) -> None:
        try:
            with self.path.open("r+b") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size <= self.cap:
                    return
                fh.seek(size - self.keep)
                self.carry = fh.read(self.keep)
                size = os.fstat(fh.fileno()).st_size  # again, right before the cut: count what came meanwhile
                fh.truncate(self.keep)
        except OSError:
            return
        self.trimmed += size - self.keep

    def read(self) -> tuple[str, str, bool, int, int]:
        """(head, tail, truncated, dropped bytes, total bytes)."""
        try:
            with self.path.open("rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if self.trimmed:
                    head = fh.read(self.keep)
                    rest = self.carry + fh.read()
                else:
                    head_len = min(self.keep, max(0, size - self.keep))
                    head = fh.read(head_len)
                    fh.seek(max(head_len, size - self.keep))
                    rest = fh.read()
        except OSError:
            return "", "", False, 0, 0
        total = size + self.trimmed
        tail = rest[-self.keep :]
        if total <= self.keep:
            return "", tail.decode("utf-8", errors="replace"), False, 0, total
        if total > len(head) + len(tail):  # something in the middle is missing: cut at lines
            head = _cut_at_line(head, keep_end=False)
            tail = _cut_at_line(tail, keep_end=True)
        dropped = total - len(head) - len(tail)
        return head.decode("utf-8", errors="replace"), tail.decode("utf-8", errors="replace"), True, dropped, total


# Every child starts as ``python -I -S child_launcher.py SETTINGS COMMAND...`` (the
# interpreter running mlsleuth, standard library only, a few milliseconds): the
# launcher starts a watchdog that cleans up if mlsleuth dies without doing so,
# enters the run's cgroup, sets RLIMIT_AS/RLIMIT_DATA if asked, and execs the command, which
# keeps the pid, the new session, the cgroup and the limit. Not ``preexec_fn``:
# CPython documents it as unsafe when the parent has threads (the MCP server
# runs tools on worker threads). See mlsleuth/child_launcher.py.
LAUNCHER = Path(__file__).resolve().parent / "child_launcher.py"


def _launched(argv: list[str], settings: dict[str, Any]) -> list[str]:
    """``argv`` (its program an absolute path) wrapped in the launcher."""
    return [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(settings), *argv]


def _resolve_program(argv: list[str], env: Mapping[str, str], cwd: Path) -> list[str]:
    """``argv`` with its program as an absolute path, or FileNotFoundError/PermissionError
    as Popen would raise them: the launcher execs, so a bad program must fail here, in
    the parent, not as a puzzling exit status of the child."""
    program = argv[0]
    if os.sep in program:
        candidate = os.path.join(cwd, program)  # Popen resolves a relative program against cwd too
        found = candidate if os.path.isfile(candidate) else None
    else:
        found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", program)
    if not os.access(found, os.X_OK):
        raise PermissionError(errno.EACCES, "Permission denied", program)
    return [os.path.abspath(found), *argv[1:]]


class ChildRun:
    """One child process with a private scratch directory."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str],
        timeout_s: float,
        env: Mapping[str, str] | None = None,
        memory_limit_mb: int | None = None,
        data_limit_mb: int | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        keep_scratch: bool = False,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.argv = [str(a) for a in argv]
        self.cwd = Path(cwd)
        self.timeout_s = float(timeout_s)
        self.memory_limit_mb = memory_limit_mb  # RLIMIT_AS: the whole address space (CPU runs; CUDA reserves more)
        self.data_limit_mb = data_limit_mb  # RLIMIT_DATA: heap and private writable memory (the server's cap)
        self.output_limit = output_limit
        self.keep_scratch = keep_scratch
        self.scratch = Path(tempfile.mkdtemp(prefix="mlsleuth-child-"))
        self.result_path = self.scratch / "result.json"
        self.progress_path = self.scratch / "progress.jsonl"
        self.step_path = self.scratch / "step"
        self.stdout_path = self.scratch / "stdout.txt"
        self.stderr_path = self.scratch / "stderr.txt"
        self._streams = (_Stream(self.stdout_path, output_limit, max_output_bytes), _Stream(self.stderr_path, output_limit, max_output_bytes))
        self.env = dict(os.environ)
        if env:
            self.env.update(env)
        self.env[RESULT_ENV] = str(self.result_path)
        self.env[PROGRESS_ENV] = str(self.progress_path)
        self.env[STEP_ENV] = str(self.step_path)
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.proc: subprocess.Popen[bytes] | None = None
        self.cgroup: Path | None = None  # the run's cgroup (v2), where one could be made
        self._started = 0.0
        self._progress_offset = 0
        self._progress: list[dict[str, Any]] = []

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> ChildRun:
        if self.proc is not None:
            raise RuntimeError("child already started")
        from mlsleuth import process_cgroup

        program = _resolve_program(self.argv, self.env, self.cwd)
        self.cgroup = process_cgroup.create()
        settings = {
            "parent": os.getpid(),
            "scratch": None if self.keep_scratch else str(self.scratch),
            "cgroup": str(self.cgroup) if self.cgroup else None,
            "rlimit_as": self.memory_limit_mb * 2**20 if self.memory_limit_mb else None,
            "rlimit_data": self.data_limit_mb * 2**20 if self.data_limit_mb else None,
        }
        try:
            # Append mode: the parent trims a file that grows too large, and the child's next write
            # must land at the new end rather than leave a hole at its old offset.
            with self.stdout_path.open("ab") as out, self.stderr_path.open("ab") as err:
                # No preexec_fn (unsafe with threads); start_new_session is done by
                # CPython's own fork code and is thread-safe.
                self.proc = subprocess.Popen(  # argv is built by us, not a shell string
                    _launched(program, settings),
                    cwd=self.cwd,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    close_fds=True,
                )
        except BaseException:
            self._end_cgroup()
            raise
        self._started = time.monotonic()
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def elapsed(self) -> float:
        return time.monotonic() - self._started if self._started else 0.0

    def poll(self) -> bool:
        """True once the child has exited."""
        return self.proc is not None and self.proc.poll() is not None

    def kill_group(self) -> None:
        """SIGTERM the whole process group, then SIGKILL what is left after a grace period."""
        if self.proc is None:
            return
        pgid = self.proc.pid  # start_new_session: the child leads its own group
        for sig, grace in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline:
                if self.proc.poll() is not None and not _group_alive(pgid):
                    break
                time.sleep(POLL_S)
            else:
                continue
            break
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process stuck in the kernel
            pass
        self._end_cgroup()

    def kill_now(self) -> None:
        """SIGKILL the group and the cgroup at once, whether or not the leader still runs, and
        remove the scratch folder: for a server that is about to exit (safe in a signal handler)."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the group may outlive its leader
            except (ProcessLookupError, PermissionError):
                pass
        if self.cgroup is not None:
            from mlsleuth import process_cgroup

            process_cgroup.kill(self.cgroup)
        self.cleanup()

    def _end_cgroup(self) -> None:
        """Kill whatever is left in the run's cgroup (a ``setsid()`` escapee) and delete it."""
        if self.cgroup is None:
            return
        from mlsleuth import process_cgroup

        if process_cgroup.remove(self.cgroup):
            self.cgroup = None

    def new_progress(self) -> list[dict[str, Any]]:
        """Progress events written by the child since the last call."""
        try:
            with self.progress_path.open("rb") as fh:
                fh.seek(self._progress_offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        end = chunk.rfind(b"\n")
        if end < 0:
            return []
        self._progress_offset += end + 1
        events = []
        for line in chunk[: end + 1].splitlines():
            try:
                event = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                continue  # a torn or foreign line: progress is advisory only
            if isinstance(event, dict):
                events.append(event)
        self._progress.extend(events)
        return events

    def _finish(self, *, timed_out: bool = False, cancelled: bool = False) -> ChildResult:
        assert self.proc is not None
        self.new_progress()
        result, result_error = None, None
        if self.result_path.exists():
            try:
                loaded = json.loads(self.result_path.read_text(encoding="utf-8"))
                if isinstance(loaded, dict):
                    result = loaded
                else:
                    result_error = "the result file does not hold a JSON object"
            except (OSError, ValueError) as exc:
                result_error = f"the result file is unreadable: {exc}"
        out_head, out, out_cut, out_dropped, out_total = self._streams[0].read()
        err_head, err, err_cut, err_dropped, err_total = self._streams[1].read()
        res = ChildResult(
            returncode=self.proc.returncode,
            duration_s=self.elapsed(),
            timed_out=timed_out,
            cancelled=cancelled,
            result=result,
            result_error=result_error,
            progress=list(self._progress),
            last_step=_read_step(self.step_path),
            stdout_tail=out,
            stderr_tail=err,
            stdout_truncated=out_cut,
            stderr_truncated=err_cut,
            stdout_head=out_head,
            stderr_head=err_head,
            stdout_dropped=out_dropped,
            stderr_dropped=err_dropped,
            stdout_bytes=out_total,
            stderr_bytes=err_total,
        )
        self.cleanup()
        return res

    def cleanup(self) -> None:
        if not self.keep_scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
        if self.proc is None or self.proc.poll() is not None:
            self._end_cgroup()

    # -- waiting ---------------------------------------------------------------
    def wait(self, on_progress: ProgressCallback | None = None) -> ChildResult:
        """Block until the child ends or times out (then kill its group).

        Ctrl-C (KeyboardInterrupt) and, on the main thread, SIGTERM/SIGHUP (:class:`Terminated`)
        kill the child's group and remove the scratch folder before the exception propagates.
        """
        with _StopSignals():
            try:
                if self.proc is None:
                    self.start()
                while not self.poll():
                    if self.elapsed() > self.timeout_s:
                        self.kill_group()
                        return self._finish(timed_out=True)
                    self._dispatch(on_progress)
                    time.sleep(POLL_S)
            except BaseException:  # KeyboardInterrupt, Terminated (SIGTERM/SIGHUP): leave nothing running
                self.kill_group()
                self.cleanup()
                raise
            self._reap_group()
            self._dispatch(on_progress)
            return self._finish()

    async def wait_async(self, on_progress: ProgressCallback | None = None) -> ChildResult:
        """Like :meth:`wait`, for async callers; a cancellation kills the group and re-raises."""
        import anyio

        if self.proc is None:
            self.start()
        try:
            while not self.poll():
                if self.elapsed() > self.timeout_s:
                    await self._kill_group_async()
                    return self._finish(timed_out=True)
                self._dispatch(on_progress)
                await anyio.sleep(POLL_S * 2)
        except BaseException:  # cancellation from the client, or shutdown
            with anyio.CancelScope(shield=True):
                await self._kill_group_async()
                self.cleanup()
            raise
        self._reap_group()
        self._dispatch(on_progress)
        return self._finish()

    async def _kill_group_async(self) -> None:
        """:meth:`kill_group` on a worker thread: its grace period must not stall the event loop
        (an MCP server keeps answering other requests while a stubborn child dies)."""
        import anyio

        try:
            await anyio.to_thread.run_sync(self.kill_group)
        except RuntimeError:  # no worker threads any more (interpreter shutdown)
            self.kill_group()

    def _dispatch(self, on_progress: ProgressCallback | None) -> None:
        for stream in self._streams:
            stream.trim()
        events = self.new_progress()
        if on_progress is not None:
            for event in events:
                on_progress(event)

    def _reap_group(self) -> None:
        """The leader exited; kill stragglers it left in its group (e.g. loader workers, and the
        launcher's watchdog) and in its cgroup."""
        if self.proc is not None and _group_alive(self.proc.pid):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._end_cgroup()


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs (zombies do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover
        return True
    return _group_has_live_member(pgid)


def _group_has_live_member(pgid: int) -> bool:
    """On Linux, look past zombies: a killed grandchild stays a zombie until its new parent
    reaps it, and in a container whose init does not reap promptly that can take seconds,
    which would make every kill wait out the whole grace period. Elsewhere assume alive."""
    try:
        entries = os.scandir("/proc")
    except OSError:
        return True
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[-1].split()
            except OSError:  # exited meanwhile
                continue
            # after the command name: state, ppid, pgrp, ...
            if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] not in (b"Z", b"X"):
                return True
    return False


def python_argv(python: str | None, *args: str) -> list[str]:
    """``[interpreter, *args]`` with the caller's interpreter as the default."""
    return [python or sys.executable, *args]
