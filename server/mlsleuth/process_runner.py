"""Run user code in a child process, never in ours.

Every tool that executes the user's code (``trace``, ``diagnose``, ``nan``)
starts it through :class:`ChildRun`:

* the child gets its own session and process group, so a timeout or a cancel
  kills the child *and everything it started* (data-loader workers included);
* its stdout and stderr go to files, never to our stdout (the MCP stdio
  transport must carry protocol bytes only); the tails come back, capped;
* it reports results by writing JSON to the file named in ``MLSLEUTH_RESULT``
  and progress as JSON lines appended to ``MLSLEUTH_PROGRESS``
  (see :mod:`mlsleuth.runtime.child.channel` for the child-side helpers);
* an optional address-space cap turns runaway memory use into a clean error
  (set by a launcher that execs the command, never by ``preexec_fn``).

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
DEFAULT_OUTPUT_LIMIT = 64_000  # characters of each stream's tail kept
TERM_GRACE_S = 2.0
POLL_S = 0.05

ProgressCallback = Callable[[dict[str, Any]], None]


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
    stdout_tail: str = ""
    stderr_tail: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False

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


def _tail(path: Path, limit: int) -> tuple[str, bool]:
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            if size > limit:
                fh.seek(size - limit)
            data = fh.read()
    except OSError:
        return "", False
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        cut = text.find("\n")
        text = text[cut + 1 :] if 0 <= cut < 200 else text
        return text, True
    return text, False


# The address-space cap is applied by a tiny launcher instead of Popen's
# ``preexec_fn``: CPython documents ``preexec_fn`` as unsafe when the parent has
# threads (a lock held by another thread at fork time can deadlock the child
# before it execs), and the MCP server runs tools on worker threads. The
# launcher is a fresh interpreter (the one running mlsleuth, started with -I -S
# so nothing but the standard library loads, a few milliseconds): it sets
# RLIMIT_AS on itself and then execs the real command, which keeps the pid,
# the new session and the limit. There is no window in which the target runs
# without the cap.
_LIMIT_LAUNCHER = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


def _with_memory_limit(argv: list[str], limit_bytes: int) -> list[str]:
    """``argv`` wrapped in the launcher that caps the address space at ``limit_bytes``."""
    return [sys.executable, "-I", "-S", "-c", _LIMIT_LAUNCHER, str(limit_bytes), *argv]


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
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        keep_scratch: bool = False,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.argv = [str(a) for a in argv]
        self.cwd = Path(cwd)
        self.timeout_s = float(timeout_s)
        self.memory_limit_mb = memory_limit_mb
        self.output_limit = output_limit
        self.keep_scratch = keep_scratch
        self.scratch = Path(tempfile.mkdtemp(prefix="mlsleuth-child-"))
        self.result_path = self.scratch / "result.json"
        self.progress_path = self.scratch / "progress.jsonl"
        self.stdout_path = self.scratch / "stdout.txt"
        self.stderr_path = self.scratch / "stderr.txt"
        self.env = dict(os.environ)
        if env:
            self.env.update(env)
        self.env[RESULT_ENV] = str(self.result_path)
        self.env[PROGRESS_ENV] = str(self.progress_path)
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.proc: subprocess.Popen[bytes] | None = None
        self._started = 0.0
        self._progress_offset = 0
        self._progress: list[dict[str, Any]] = []

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> ChildRun:
        if self.proc is not None:
            raise RuntimeError("child already started")
        argv = self.argv
        if self.memory_limit_mb:
            argv = _with_memory_limit(_resolve_program(argv, self.env, self.cwd), self.memory_limit_mb * 2**20)
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            # No preexec_fn (unsafe with threads); start_new_session is done by
            # CPython's own fork code and is thread-safe.
            self.proc = subprocess.Popen(  # argv is built by us, not a shell string
                argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                close_fds=True,
            )
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
        out, out_cut = _tail(self.stdout_path, self.output_limit)
        err, err_cut = _tail(self.stderr_path, self.output_limit)
        res = ChildResult(
            returncode=self.proc.returncode,
            duration_s=self.elapsed(),
            timed_out=timed_out,
            cancelled=cancelled,
            result=result,
            result_error=result_error,
            progress=list(self._progress),
            stdout_tail=out,
            stderr_tail=err,
            stdout_truncated=out_cut,
            stderr_truncated=err_cut,
        )
        self.cleanup()
        return res

    def cleanup(self) -> None:
        if not self.keep_scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)

    # -- waiting ---------------------------------------------------------------
    def wait(self, on_progress: ProgressCallback | None = None) -> ChildResult:
        """Block until the child ends or times out (then kill its group)."""
        if self.proc is None:
            self.start()
        try:
            while not self.poll():
                if self.elapsed() > self.timeout_s:
                    self.kill_group()
                    return self._finish(timed_out=True)
                self._dispatch(on_progress)
                time.sleep(POLL_S)
        except BaseException:  # KeyboardInterrupt: leave nothing running
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
        events = self.new_progress()
        if on_progress is not None:
            for event in events:
                on_progress(event)

    def _reap_group(self) -> None:
        """The leader exited; kill stragglers it left in its group (e.g. loader workers)."""
        if self.proc is not None and _group_alive(self.proc.pid):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


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
