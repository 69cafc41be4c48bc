"""Run slow work without blocking the server, with progress, a timeout and cancellation.

Two shapes of work exist:

* in-process library work that only reads files (``scan``): it runs on a
  worker thread via :func:`run_in_thread`. The library's ``progress(done,
  total)`` callback doubles as a cancellation point: once the call is
  cancelled or timed out it raises, so the thread stops at its next step.
* user code (``trace``, ``diagnose``, ``nan``): the library prepares a
  :class:`~mlsleuth.process_runner.ChildRun` wrapped in a ``PreparedRun`` and
  :func:`run_prepared` starts it, forwards its progress, and turns the outcome
  into a report. A cancel or timeout kills the child's whole process group;
  a crash of the user's code becomes a report with errors, never a server crash.
* library work that cannot stop at a checkpoint (``compare_sweep``: parsing a
  user-given results file can block or take long inside one call) runs our
  own code in a child through :func:`run_child`, with its own small limiter,
  so a cancel or timeout kills it like user code.

Progress reaches the client at most once a second, plus a keep-alive every
few seconds while nothing changes (clients time out silent calls). The MCP
spec wants each progress value larger than the last, so keep-alives add a
small fraction to the last real value.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import anyio
from mcp.server.mcpserver.exceptions import ToolError

from mlsleuth.report import ErrorEntry, Report

log = logging.getLogger("mlsleuth.serve")

T = TypeVar("T")
ProgressFn = Callable[[int, int], None]

REPORT_EVERY_S = 1.0
KEEPALIVE_S = 3.0
TICK_S = 0.2


class WorkCancelled(Exception):
    """Raised inside a worker thread's progress callback once its call was abandoned."""


@dataclass
class _Progress:
    done: float = 0.0
    total: float | None = None
    message: str | None = None
    version: int = 0
    stop: bool = False


class ProgressReporter(Protocol):
    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None: ...


async def _pump(ctx: ProgressReporter | None, state: _Progress, what: str) -> None:
    """Send progress notifications until cancelled (runs beside the work)."""
    if ctx is None:
        return
    started = time.monotonic()
    last_sent_at = started
    last_version = -1
    last_value = -1.0
    beats = 0
    while True:
        await anyio.sleep(TICK_S)
        now = time.monotonic()
        changed = state.version != last_version
        if changed and now - last_sent_at >= REPORT_EVERY_S:
            value, beats = float(state.done), 0
        elif now - last_sent_at >= KEEPALIVE_S:
            beats += 1
            value = float(state.done) + min(0.99, beats * 0.01)
        else:
            continue
        if value <= last_value:
            value = last_value + 0.001
        message = state.message or what
        message = f"{message} ({now - started:.0f}s elapsed)"
        try:
            await ctx.report_progress(value, state.total, message)
        except Exception:  # a closed connection: the call itself will notice
            log.debug("progress notification failed", exc_info=True)
            return
        last_sent_at, last_version, last_value = now, state.version, value


# Children of user code now running, so a terminating server can kill them
# (see kill_active_children); ChildRun itself handles timeouts and cancels.
_ACTIVE_CHILDREN: set[Any] = set()


def kill_active_children() -> int:
    """SIGKILL the process group and cgroup of every running child and delete its scratch folder;
    safe to call from a signal handler.

    A group is killed even when its leader has already exited: a cancel or a session close may
    be in the middle of the grace period after SIGTERM, with the leader gone and a member that
    ignores SIGTERM still running, when the client's own SIGTERM reaches the server."""
    killed = 0
    for child in list(_ACTIVE_CHILDREN):
        if getattr(child, "proc", None) is None:
            continue
        try:
            child.kill_now()
            killed += 1
        except Exception:  # one child's failure must not spare the others
            log.debug("could not kill a child", exc_info=True)
    return killed


_thread_limiter: anyio.CapacityLimiter | None = None
_run_limiter: anyio.CapacityLimiter | None = None
_analysis_limiter: anyio.CapacityLimiter | None = None
MAX_CONCURRENT_RUNS = 2  # runs of user code at once; more queue (with keep-alive progress)
MAX_CONCURRENT_ANALYSES = 2  # children running our own analysis code (compare_sweep) at once


def analysis_limiter() -> anyio.CapacityLimiter:
    """The limiter for children that run mlsleuth's own analyses, separate from user-code runs
    so a long training run does not queue a sweep comparison behind it."""
    global _analysis_limiter
    if _analysis_limiter is None:
        _analysis_limiter = anyio.CapacityLimiter(MAX_CONCURRENT_ANALYSES)
    return _analysis_limiter


def _child_limiter() -> anyio.CapacityLimiter:
    global _run_limiter
    if _run_limiter is None:
        _run_limiter = anyio.CapacityLimiter(MAX_CONCURRENT_RUNS)
    return _run_limiter


def _limiter() -> anyio.CapacityLimiter:
    # Two concurrent scans at most; more just thrash a small machine.
    global _thread_limiter
    if _thread_limiter is None:
        _thread_limiter = anyio.CapacityLimiter(2)
    return _thread_limiter


_scan_limiter: anyio.CapacityLimiter | None = None
MAX_CONCURRENT_SCANS = 2  # scan children at once; more just thrash a small machine


def scan_limiter() -> anyio.CapacityLimiter:
    """The limiter of scan children. A slot is held until the child is dead (a timed-out or
    cancelled scan is killed before its slot frees), so the limit cannot be bypassed."""
    global _scan_limiter
    if _scan_limiter is None:
        _scan_limiter = anyio.CapacityLimiter(MAX_CONCURRENT_SCANS)
    return _scan_limiter


async def run_in_thread(
    work: Callable[[ProgressFn], T],
    ctx: ProgressReporter | None,
    *,
    timeout_s: float,
    what: str,
    unit: str = "items",
) -> T:
    """Run ``work(progress)`` on a worker thread; ToolError on timeout, stop the thread on cancel.

    Only for work that calls ``progress`` often: a thread cannot be killed, so work stuck
    between two calls keeps running after the timeout (and outside the limiter). ``scan``
    therefore runs in a child process (:func:`run_child`) instead.
    """
    state = _Progress(message=what)

    def progress(done: int, total: int) -> None:
        if state.stop:
            raise WorkCancelled(f"{what} was abandoned")
        state.done, state.total = float(done), float(total) if total else None
        state.message = f"{what}: {done}/{total} {unit}"
        state.version += 1

    outcome: dict[str, Any] = {}
    async with anyio.create_task_group() as tg:
        tg.start_soon(_pump, ctx, state, what)
        try:
            with anyio.fail_after(timeout_s):
                outcome["value"] = await anyio.to_thread.run_sync(work, progress, abandon_on_cancel=True, limiter=_limiter())
        except TimeoutError:
            outcome["timeout"] = True
        except Exception as exc:  # noqa: BLE001 - re-raised below, outside the task group
            outcome["error"] = exc
        finally:
            state.stop = True  # the thread (if still running) stops at its next progress call
            tg.cancel_scope.cancel()
    if outcome.get("timeout"):
        raise ToolError(
            f"{what} did not finish within {timeout_s:.0f}s and was stopped; narrow the paths, "
            f"or raise the limit with `mlsleuth serve --scan-timeout`"
        )
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class PreparedLike(Protocol):
    """What ``mlsleuth.runtime.prepared.PreparedRun`` provides (duck-typed here)."""

    child: Any  # an unstarted mlsleuth.process_runner.ChildRun

    def to_report(self, child_result: Any) -> Report: ...


async def run_child(
    child: Any,
    ctx: ProgressReporter | None,
    *,
    tool: str,
    what: str,
    limiter: anyio.CapacityLimiter | None = None,
    memory_limit_mb: int | None = None,
) -> Any:
    """Start an unstarted :class:`~mlsleuth.process_runner.ChildRun` and await its
    :class:`~mlsleuth.process_runner.ChildResult`, forwarding its progress.

    At most ``limiter``'s capacity of children run at once (default: the
    user-code limiter); a call that waits says so in its progress. A client
    cancel kills the child's process group (``ChildRun.wait_async``) and
    propagates; a timeout comes back as a result with ``timed_out``. If the
    child cannot start, the ``OSError``/``ValueError`` propagates and its
    scratch folder is gone. ``memory_limit_mb`` caps the child's data memory
    (``mlsleuth serve --child-memory-limit``) unless the child already has a cap.
    """
    if memory_limit_mb and getattr(child, "data_limit_mb", None) is None:
        child.data_limit_mb = memory_limit_mb
    state = _Progress(message=what)

    def on_progress(event: dict[str, Any]) -> None:
        done = event.get("done")
        total = event.get("total")
        if isinstance(done, (int, float)):
            state.done = float(done)
        if isinstance(total, (int, float)) and total > 0:
            state.total = float(total)
        msg = event.get("message")
        if isinstance(msg, str) and msg:
            state.message = f"{what}: {msg[:200]}"
        state.version += 1

    box: dict[str, Any] = {}
    async with anyio.create_task_group() as tg:
        tg.start_soon(_pump, ctx, state, what)
        try:
            limiter = limiter or _child_limiter()
            if limiter.available_tokens == 0:
                state.message = f"{what}: waiting for another run to finish"
            async with limiter:
                state.message = what
                try:
                    child.start()
                except (OSError, ValueError) as exc:
                    box["start_error"] = exc
                else:
                    log.info("%s: started child pid %s", tool, child.pid)
                    _ACTIVE_CHILDREN.add(child)
                    try:
                        box["result"] = await child.wait_async(on_progress)
                    finally:
                        _ACTIVE_CHILDREN.discard(child)
        finally:
            if child.proc is None:
                child.cleanup()  # never started (start failed, or cancelled while queued): remove the scratch folder
            tg.cancel_scope.cancel()
    if "start_error" in box:
        raise box["start_error"]
    return box["result"]


async def run_prepared(prepared: PreparedLike, ctx: ProgressReporter | None, *, tool: str, what: str, memory_limit_mb: int | None = None) -> Report:
    """Start a prepared child run, await it with progress, and return its report.

    Cancellation by the client kills the child's process group (in
    ``ChildRun.wait_async``) and propagates. Everything else - the child failing
    to start, the user's code crashing, ``to_report`` failing - becomes a
    report with an error entry, so the agent always gets something to act on.
    """
    child = prepared.child
    try:
        result = await run_child(child, ctx, tool=tool, what=what, memory_limit_mb=memory_limit_mb)
    except (OSError, ValueError) as exc:
        return Report(
            tool=tool,
            errors=[ErrorEntry(kind="start-failed", message=f"could not start the child process ({' '.join(child.argv[:2])}...): {exc}; check that the interpreter exists and is executable")],
        ).finalize()
    log.info("%s: child pid %s %s", tool, child.pid, result.describe_end())
    try:
        report = prepared.to_report(result)
    except Exception as exc:
        log.exception("%s: to_report failed", tool)
        return Report(
            tool=tool,
            errors=[
                ErrorEntry(
                    kind="internal-error",
                    message=f"the child {result.describe_end()}, but its result could not be turned into a report ({type(exc).__name__}: {exc}); please report this bug",
                    detail=traceback.format_exc(limit=8)[-4000:],
                )
            ],
        ).finalize()
    if not isinstance(report, Report):
        return Report(
            tool=tool,
            errors=[ErrorEntry(kind="internal-error", message=f"to_report returned {type(report).__name__}, not a Report; please report this bug")],
        ).finalize()
    return report
