"""The first program of every child run: set limits, start a watchdog, then exec the command.

``python -I -S child_launcher.py SETTINGS_JSON PROGRAM [ARGS...]``, started by
:class:`mlsleuth.process_runner.ChildRun` in a new session. Standard library
only, nothing else loads (a few milliseconds). In order:

1. It takes a handle on its parent (a pidfd where Linux offers one) and stops
   at once if the parent is already gone.
2. It forks the *watchdog*: a small process in the run's process group that
   waits for mlsleuth to end. Should mlsleuth die without cleaning up
   (SIGKILL, the out-of-memory killer, a crash), the watchdog leaves the group,
   SIGKILLs it and the run's cgroup, and deletes the run's scratch folder. When
   the run ends normally mlsleuth kills the group, watchdog included.
3. It moves itself into the run's cgroup, if mlsleuth made one (so that even a
   ``setsid()`` escapee can be killed), and caps its address space (RLIMIT_AS)
   and its data memory (RLIMIT_DATA) if asked.
4. It execs the command, which keeps this pid, the session, the cgroup and the
   limit.

A launcher instead of ``preexec_fn``: CPython documents ``preexec_fn`` as
unsafe when the parent has threads (the MCP server runs tools on worker
threads), and a fork-only watchdog needs a single-threaded process to fork
from.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time

EXIT_PARENT_GONE = 70
WATCH_POLL_S = 0.5  # without a pidfd: how often the watchdog checks that its parent still runs


def _parent_handle(parent: int) -> int | None:
    try:
        return os.pidfd_open(parent)  # Linux 5.3+: readable once that process has ended
    except (AttributeError, OSError):
        return None


def _parent_ended(parent: int, pidfd: int | None, timeout: float | None) -> bool:
    if pidfd is not None:
        import select

        readable, _, _ = select.select([pidfd], [], [], timeout)
        return bool(readable)
    if timeout:
        time.sleep(timeout)
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # on Linux a zombie still answers kill(0)
        with open(f"/proc/{parent}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _watch(parent: int, pidfd: int | None, group: int, settings: dict) -> None:
    """The watchdog's whole life; never returns."""
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # hold none of the run's output files or pipes
            os.dup2(devnull, fd)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while not _parent_ended(parent, pidfd, None if pidfd is not None else WATCH_POLL_S):
            pass
        os.setpgid(0, 0)  # leave the run's group, so the kill below does not end this cleanup
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
        cgroup = settings.get("cgroup")
        if cgroup:
            _kill_cgroup(cgroup)
        scratch = settings.get("scratch")
        if scratch:
            for _ in range(20):  # a dying process may still be closing a file there
                shutil.rmtree(scratch, ignore_errors=True)
                if not os.path.exists(scratch):
                    break
                time.sleep(0.05)
        if cgroup:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    os.rmdir(cgroup)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)
    finally:
        os._exit(0)


def _kill_cgroup(path: str) -> None:
    try:
        with open(os.path.join(path, "cgroup.kill"), "w") as fh:
            fh.write("1")
        return
    except OSError:
        pass
    for _ in range(50):
        try:
            with open(os.path.join(path, "cgroup.procs")) as fh:
                members = [int(x) for x in fh.read().split()]
        except (OSError, ValueError):
            return
        if not members:
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def main(argv: list[str]) -> None:
    settings = json.loads(argv[0])
    command = argv[1:]
    parent = int(settings["parent"])
    pidfd = _parent_handle(parent)
    if os.getppid() != parent:  # mlsleuth ended before this started: start nothing
        os._exit(EXIT_PARENT_GONE)
    if settings.get("watchdog", True):
        group = os.getpgid(0)
        if os.fork() == 0:
            _watch(parent, pidfd, group, settings)
    if pidfd is not None:
        os.close(pidfd)
    cgroup = settings.get("cgroup")
    if cgroup:
        try:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as fh:
                fh.write(str(os.getpid()))
        except OSError as exc:
            sys.stderr.write(f"mlsleuth: could not enter the run's cgroup {cgroup} ({exc}); continuing without it\n")
    for key, name in (("rlimit_as", "RLIMIT_AS"), ("rlimit_data", "RLIMIT_DATA")):
        limit = settings.get(key)
        if limit:
            import resource

            which = getattr(resource, name)
            hard = resource.getrlimit(which)[1]
            limit = int(limit) if hard == resource.RLIM_INFINITY else min(int(limit), hard)  # never raise a hard limit
            resource.setrlimit(which, (limit, limit))
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
