"""A cgroup (v2) per child run, where the system lets us make one.

A process group catches what the user's code starts, unless something calls
``setsid()`` (a daemonising helper, some launchers): that process leaves the
group and a group kill misses it. A cgroup cannot be left by an unprivileged
process, so when cgroup v2 is mounted and the cgroup mlsleuth runs in is
writable by it, every child run gets its own cgroup below it
(``mlsleuth-<pid>-<n>``), the launcher moves itself there before it starts
the user's code, and ending a run kills the whole cgroup (``cgroup.kill``, or
SIGKILL to every listed process on kernels before 5.14).

Where that is impossible (no cgroup v2, a cgroup owned by root or by systemd
without delegation, macOS), runs fall back to the process group alone, and a
``setsid()`` escapee can outlive its run: a documented limit
(docs/SECURITY_process.md). ``MLSLEUTH_CGROUPS=off`` turns cgroups off.
Nothing here raises: every failure means "no cgroup".
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

DISABLE_ENV = "MLSLEUTH_CGROUPS"
PREFIX = "mlsleuth-"
_counter = itertools.count()
_base: Path | None = None
_base_known = False


def _own_cgroup_dir() -> Path | None:
    """The folder of the cgroup (v2) this process is in, if cgroup v2 is mounted."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    rel = next((line[3:] for line in lines if line.startswith("0::")), None)
    if rel is None:
        return None
    for line in mounts:
        # mountinfo: id parent major:minor root mount-point options ... - fstype source options
        left, _, right = line.partition(" - ")
        if right.split(" ", 1)[0] != "cgroup2":
            continue
        fields = left.split()
        if len(fields) < 5 or fields[3] != "/":
            continue  # a bind mount of a sub-tree: the path in /proc/self/cgroup is not relative to it
        candidate = Path(fields[4]) / rel.lstrip("/")
        if candidate.is_dir():
            return candidate
    return None


def base_dir() -> Path | None:
    """Where run cgroups are made, or None when that is not possible here (cached)."""
    global _base, _base_known
    if os.environ.get(DISABLE_ENV, "").strip().lower() in ("0", "off", "no", "false"):
        return None
    if not _base_known:
        found = _own_cgroup_dir()
        if found is not None and not (os.access(found, os.W_OK) and os.access(found / "cgroup.procs", os.W_OK)):
            found = None
        _base, _base_known = found, True
        if found is not None:
            _remove_stale(found)
    return _base


def create() -> Path | None:
    """A new, empty cgroup for one run, or None."""
    base = base_dir()
    if base is None:
        return None
    path = base / f"{PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
    except OSError:
        return None
    if not (path / "cgroup.procs").exists():  # pragma: no cover - not a cgroup after all
        _rmdir(path)
        return None
    return path


def pids(path: Path) -> list[int]:
    try:
        return [int(x) for x in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def populated(path: Path) -> bool:
    try:
        for line in (path / "cgroup.events").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "populated":
                return value.strip() == "1"
    except OSError:
        return False
    return bool(pids(path))


def kill(path: Path) -> None:
    """SIGKILL every process in the cgroup, including those that left the process group."""
    try:
        (path / "cgroup.kill").write_text("1")
        return
    except OSError:
        pass
    for _ in range(50):  # before Linux 5.14: one process at a time, until nothing forks any more
        members = pids(path)
        if not members:
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def remove(path: Path, timeout: float = 5.0) -> bool:
    """Kill what is left in the cgroup and delete it; whether it is gone."""
    if populated(path):
        kill(path)
        deadline = time.monotonic() + timeout
        while populated(path) and time.monotonic() < deadline:
            time.sleep(0.01)
    return _rmdir(path)


def _rmdir(path: Path) -> bool:
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _remove_stale(base: Path) -> None:
    """Delete the empty run cgroups of mlsleuth processes that no longer run (a killed server
    leaves its runs' cgroups behind: its watchdogs kill the processes, but cannot remove the
    cgroup they are in)."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(PREFIX):
            continue
        owner = name[len(PREFIX) :].split("-", 1)[0]
        if owner.isdigit() and int(owner) != os.getpid() and not Path(f"/proc/{owner}").exists() and not populated(entry):
            _rmdir(entry)
