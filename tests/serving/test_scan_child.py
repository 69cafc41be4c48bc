"""Issue 16 item 6: the MCP ``scan`` runs in a child process, so a timeout stops the work and
the server's limit of two concurrent scans holds. Also: every child the server starts gets the
server's memory cap."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mlsleuth.mcp_server import build_server
from mlsleuth.serving import running, scan_child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

BUGGY = "import torch.nn.functional as F\n\ndef step(model, x, y):\n    return F.cross_entropy(F.softmax(model(x), dim=1), y)\n"


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def scan_children() -> list[int]:
    """Live scan children of this process."""
    import os

    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b" scan_child " in cmdline and ppid == os.getpid() and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def scanning_threads() -> list[str]:
    """Threads of this process that are inside the scan engine right now."""
    names = []
    frames = sys._current_frames()
    for thread in threading.enumerate():
        frame = frames.get(thread.ident)
        while frame is not None:
            if "/mlsleuth/scan/" in frame.f_code.co_filename:
                names.append(thread.name)
                break
            frame = frame.f_back
    return names


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(BUGGY)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    running._scan_limiter = None  # a fresh limiter for this test's event loop
    return root


def test_the_scan_runs_in_a_child_and_finds_the_bug(project: Path) -> None:
    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("scan", {"paths": ["train.py"]})

    result = anyio.run(go)
    assert not result.is_error, result.content
    assert {f["rule"] for f in result.structured_content["findings"]} == {"softmax-into-logit-loss"}


@pytest.mark.slow
def test_a_timed_out_scan_stops_working(project: Path) -> None:
    """A big file keeps the parser busy past the timeout: the call fails with the usual advice,
    and nothing keeps scanning afterwards (no scan child, no scanning thread in the server)."""
    (project / "big.py").write_text("".join(f"value_{i} = compute({i}, [{i}, {i + 1}]) + other_{i % 97}\n" for i in range(120_000)))  # 6.6 MB: seconds of parsing

    async def go():
        async with Client(build_server(project, scan_timeout_s=0.5)) as c:
            result = await c.call_tool("scan", {"paths": ["big.py"]})
            # still inside the server's event loop (leaving it would wait for abandoned threads);
            # the child is killed before the call returns: allow only for the kernel's bookkeeping
            deadline = time.monotonic() + 1
            while (scan_children() or scanning_threads()) and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            return result, scan_children(), scanning_threads()

    result, children, threads = anyio.run(go)
    assert result.is_error and "did not finish within" in result.content[0].text
    assert children == [] and threads == []


@pytest.mark.slow
def test_at_most_two_scans_run_at_once_even_after_timeouts(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scan children that never finish: each times out and is killed before its slot frees, so
    no more than two are ever alive together, however many calls arrive."""
    monkeypatch.setattr(scan_child, "child_argv", lambda path: [sys.executable, "-c", "import time; time.sleep(60)  # scan_child "])
    most = [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            most[0] = max(most[0], len(sleepers()))
            time.sleep(0.01)

    def sleepers() -> list[int]:
        import os

        out = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if b"scan_child" in (entry / "cmdline").read_bytes() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                        out.append(int(entry.name))
                except (OSError, ValueError, IndexError):
                    pass
        return [p for p in out if alive(p)]

    async def go():
        results = []
        async with Client(build_server(project, scan_timeout_s=0.8)) as c, anyio.create_task_group() as tg:
            async def one():
                results.append(await c.call_tool("scan", {"paths": ["train.py"]}))

            for _ in range(5):
                tg.start_soon(one)
        return results

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        results = anyio.run(go)
    finally:
        stop.set()
        watcher.join()
    assert len(results) == 5 and all(r.is_error and "did not finish within" in r.content[0].text for r in results)
    assert 1 <= most[0] <= 2, most[0]
    assert sleepers() == []


@pytest.mark.slow
def test_every_child_the_server_starts_gets_its_memory_cap(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """scan, compare_sweep and the user-code tools all pass the server's cap to their child."""
    from mlsleuth.process_runner import ChildRun

    caps: list[tuple[str, int | None]] = []
    real_start = ChildRun.start

    def spy(self):
        caps.append((" ".join(self.argv)[-200:], self.data_limit_mb))
        return real_start(self)

    monkeypatch.setattr(ChildRun, "start", spy)
    (project / "runs.csv").write_text("lr,seed,acc\n0.1,1,0.5\n0.1,2,0.6\n0.2,1,0.55\n0.2,2,0.65\n")
    (project / "nothing.py").write_text("print('no training here')\n")

    async def go():
        async with Client(build_server(project, child_memory_mb=3072)) as c:
            await c.call_tool("scan", {"paths": ["train.py"]})
            await c.call_tool("compare_sweep", {"results": "runs.csv", "param": "lr", "metric": "acc", "seed": "seed"})
            await c.call_tool("trace_training", {"script": "nothing.py", "steps": 1, "timeout_s": 60})

    anyio.run(go)
    assert [cap for _, cap in caps] == [3072, 3072, 3072], caps


@pytest.mark.slow
def test_the_data_cap_turns_runaway_memory_into_an_error(tmp_path: Path) -> None:
    from mlsleuth.process_runner import ChildRun

    script = tmp_path / "eat.py"
    script.write_text(
        "import resource, sys\n"
        "print(resource.getrlimit(resource.RLIMIT_DATA)[0] // 2**20)\n"
        "try:\n    blob = bytearray(1024 * 2**20)\nexcept MemoryError:\n    print('memory error'); sys.exit(7)\n"
    )
    res = ChildRun([sys.executable, str(script)], cwd=tmp_path, timeout_s=60, data_limit_mb=512).wait()
    assert res.returncode == 7 and res.stdout_tail.split() == ["512", "memory", "error"], res.stdout_tail + res.stderr_tail
