"""Issue 16: however the MCP server's session or process ends, no process of a run and no
scratch folder survives.

The server is started as an IDE starts it (``python -m mlsleuth serve`` over stdio, raw
JSON-RPC so the test controls every step of the shutdown), with a private TMPDIR; the probe
tool's script starts a grandchild and records both pids. Every wait polls with a deadline.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; process groups are POSIX")

HERE = Path(__file__).resolve().parent


def alive(pid: int) -> bool:
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


class Server:
    """A stdio server running the probe tool, with a run under way."""

    def __init__(self, tmp_path: Path, mode: str) -> None:
        root = tmp_path / "project"
        root.mkdir()
        self.work = tmp_path / "work"
        self.work.mkdir()
        self.tmp = tmp_path / "tmp"
        self.tmp.mkdir()
        env = {**os.environ, "PYTHONPATH": str(HERE), "MLSLEUTH_EXTRA_TOOLS": "probe_tools", "TMPDIR": str(self.tmp),
               "XDG_CACHE_HOME": str(tmp_path / "cache")}
        self.proc = subprocess.Popen([sys.executable, "-m", "mlsleuth", "serve", "--root", str(root)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "probe_child", "arguments": {"workdir": str(self.work), "seconds": 120, "mode": mode}}},
        ):
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        pidfile = self.work / "pids.txt"
        assert wait_until(lambda: pidfile.exists() or self.proc.poll() is not None, 60), "the probe never started"
        self.pids = [int(x) for x in pidfile.read_text().split()]
        assert all(alive(p) for p in self.pids) and len(scratch_folders(self.tmp)) == 1

    def finish(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)

    def nothing_left(self) -> None:
        assert wait_until(lambda: not any(alive(p) for p in self.pids), 10), [p for p in self.pids if alive(p)]
        assert wait_until(lambda: scratch_folders(self.tmp) == [], 10), scratch_folders(self.tmp)


@pytest.mark.slow
def test_closing_the_session_kills_a_member_that_ignores_sigterm(tmp_path):
    """Item 3: the client closes the server's stdin mid-run, then (its grace over) sends SIGTERM.
    The cancel SIGTERMs the run's group: the leader exits, the member ignores it; the server's
    SIGTERM handler must still kill the group whose leader is gone, and delete the scratch."""
    server = Server(tmp_path, "stubborn")
    try:
        server.proc.stdin.close()
        time.sleep(0.5)  # inside the server's grace period after its own SIGTERM to the group
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=30)
    finally:
        server.finish()
    server.nothing_left()


@pytest.mark.slow
def test_closing_the_session_alone_leaves_nothing(tmp_path):
    """A client that only closes stdin and waits: the server ends the run and exits by itself,
    within the 2 s grace the MCP Python SDK gives before it escalates."""
    server = Server(tmp_path, "stubborn")
    try:
        server.proc.stdin.close()
        started = time.monotonic()
        assert server.proc.wait(timeout=30) == 0
        took = time.monotonic() - started
    finally:
        server.finish()
    server.nothing_left()
    assert took < 10, took


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_a_signalled_server_leaves_no_run_and_no_scratch(tmp_path, sig):
    """Items 15 and the parent-death watchdog: SIGTERM/SIGHUP run the server's handler;
    SIGKILL runs nothing in the server, so each child's watchdog cleans up."""
    server = Server(tmp_path, "ok")
    try:
        server.proc.send_signal(sig)
        assert server.proc.wait(timeout=30) == -sig
    finally:
        server.finish()
    server.nothing_left()
