"""``compare_sweep`` over MCP: it runs in a child process (a cancel or timeout kills
it), returns the same report as the library, and on request a bounded PNG."""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mlsleuth.mcp_server import build_server
from mlsleuth.serving import running, sweep_child
from serving.test_inprocess import _alive

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and FIFOs are POSIX")

BASE = {"results": "runs/results.csv", "param": "lr", "metric": "val_acc", "seed": "seed", "baseline": "1e-3"}


def _rows(groups: int = 1, values: tuple[str, ...] = ("1e-3", "3e-4"), seeds: int = 8) -> str:
    rows = ["task,lr,seed,val_acc"]
    for g in range(groups):
        for seed in range(seeds):
            base = 0.80 + 0.01 * ((seed * 7) % 5)
            for i, v in enumerate(values):
                rows.append(f"t{g},{v},{seed},{base + 0.01 * i * (g + 1) + 0.001 * (seed % 3) * i:.4f}")
    return "\n".join(rows) + "\n"


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "runs").mkdir(parents=True)
    (root / "runs" / "results.csv").write_text(_rows())
    (root / "runs" / "many.csv").write_text(_rows(groups=8, values=("1e-4", "3e-4", "1e-3", "3e-3", "1e-2")))
    os.mkfifo(root / "runs" / "stuck.csv")  # opening it blocks forever: a results file that never finishes reading
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


def _wait_dead(pids: list[int], seconds: float = 10) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _children_running(tag: str = " sweep_child ", parent: int | None = None) -> list[int]:
    """Pids of live processes whose command line names the sweep child (optionally: children of ``parent``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if tag in cmdline and (parent is None or ppid == parent) and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def test_the_report_is_the_library_report_and_runs_in_a_child(project: Path) -> None:
    from mlsleuth.serving.paths import relativize
    from mlsleuth.sweep import compare_sweep

    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("compare_sweep", {**BASE, "lower_is_better": True})

    result = anyio.run(go)
    assert not result.is_error, result.content
    assert [c.type for c in result.content] == ["text"]  # no image unless asked
    expected = compare_sweep(str(project / "runs" / "results.csv"), param="lr", metric="val_acc", seed="seed", baseline="1e-3", lower_is_better=True)
    relativize(expected, project)
    got = result.structured_content
    assert [(f["rule"], f["message"]) for f in got["findings"]] == [(f.rule, f.message) for f in expected.findings]
    assert got["summary"]["stats"]["groups"] == expected.model_dump(mode="json")["summary"]["stats"]["groups"]
    assert "plot" not in got["summary"]["stats"]
    assert not running._ACTIVE_CHILDREN


@pytest.mark.slow
def test_plot_returns_a_bounded_png_beside_the_structured_report(project: Path) -> None:
    pytest.importorskip("matplotlib")

    async def go():
        async with Client(build_server(project)) as c:
            small = await c.call_tool("compare_sweep", {**BASE, "plot": True})
            many = await c.call_tool("compare_sweep", {**BASE, "results": "runs/many.csv", "group": ["task"], "plot": True, "max_findings": 5})
            return small, many

    small, many = anyio.run(go)
    for result in (small, many):
        assert not result.is_error, result.content
        text, image = result.content
        assert text.type == "text" and image.type == "image" and image.mime_type == "image/png"
        png = base64.b64decode(image.data)
        width, height = sweep_child.png_size(png)
        assert max(width, height) <= sweep_child.MAX_PLOT_EDGE_PX and len(png) <= sweep_child.MAX_PLOT_BYTES
        info = result.structured_content["summary"]["stats"]["plot"]
        assert (info["width"], info["height"], info["bytes"]) == (width, height, len(png))
        assert result.structured_content["findings"]  # the report is still there
    # eight groups: six are drawn (the figure's cap), the report says so, and the tall figure was scaled down
    info = many.structured_content["summary"]["stats"]["plot"]
    assert (info["groups"], info["groups_drawn"]) == (8, 6) and info["dpi"] < sweep_child.PLOT_DPI
    assert many.structured_content["truncated"] is True  # paging still applies to the findings


def test_plot_without_matplotlib_on_the_server_is_a_clear_tool_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlsleuth.serving.tools import sweep as sweep_tool

    monkeypatch.setattr(sweep_tool, "matplotlib_available", lambda: False)

    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("compare_sweep", {**BASE, "plot": True}), await c.call_tool("compare_sweep", BASE)

    with_plot, without = anyio.run(go)
    assert with_plot.is_error and "pip install 'mlsleuth[plot]'" in with_plot.content[0].text
    assert not without.is_error  # only the plot needs it


def test_plot_when_the_child_cannot_import_matplotlib_is_a_clear_tool_error(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shadow = tmp_path / "shadow" / "matplotlib"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named matplotlib (test shadow)')\n")
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))  # the child inherits it; the server's own check still passes

    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("compare_sweep", {**BASE, "plot": True})

    result = anyio.run(go)
    assert result.is_error
    assert "pip install 'mlsleuth[plot]'" in result.content[0].text and "test shadow" in result.content[0].text


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"param": "learning_rate"}, "Columns: task, lr, seed, val_acc"),
        ({"results": "../outside.csv"}, "outside the served root"),
        ({"results": "runs/none.csv"}, "does not exist"),
        ({"group": ["x"] * 21}, "group"),
        ({"test": "wilcoxon"}, "unknown test"),
    ],
)
def test_bad_input_is_a_tool_error_naming_the_fix(project: Path, args: dict, needle: str) -> None:
    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("compare_sweep", {**BASE, **args})

    result = anyio.run(go)
    assert result.is_error and needle in result.content[0].text


def test_a_child_that_dies_without_a_result_is_a_tool_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_child, "child_argv", lambda args: [sys.executable, "-c", "import sys; sys.stderr.write('boom from the child'); raise SystemExit(3)"])

    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("compare_sweep", BASE), await c.call_tool("list_rules", {"tool": "sweep"})

    result, after = anyio.run(go)
    assert result.is_error
    text = result.content[0].text
    assert "exited with status 3" in text and "boom from the child" in text
    assert not after.is_error


def test_cancel_returns_promptly_and_kills_the_child(project: Path) -> None:
    """The results 'file' is a FIFO nobody writes: the reader blocks in open() for ever.
    A worker thread could never be stopped there; the child is killed."""
    seen: list[int] = []

    async def go():
        async with Client(build_server(project)) as c:
            async with anyio.create_task_group() as tg:

                async def call():
                    await c.call_tool("compare_sweep", {**BASE, "results": "runs/stuck.csv"})

                tg.start_soon(call)
                with anyio.fail_after(30):
                    while not running._ACTIVE_CHILDREN:
                        await anyio.sleep(0.02)
                seen.extend(ch.pid for ch in running._ACTIVE_CHILDREN)
                await anyio.sleep(0.3)  # the child is really blocked in open()
                started = time.monotonic()
                tg.cancel_scope.cancel()
            cancel_s = time.monotonic() - started
            # the slot is free again and the server keeps serving
            ok = await c.call_tool("compare_sweep", BASE)
            return cancel_s, ok

    cancel_s, ok = anyio.run(go)
    assert cancel_s < 5, f"the cancel took {cancel_s:.1f}s"
    assert seen and _wait_dead(seen) == []
    assert not ok.is_error
    assert not running._ACTIVE_CHILDREN


def test_timeout_kills_the_child_and_says_how_to_raise_it(project: Path) -> None:
    async def go():
        async with Client(build_server(project, scan_timeout_s=1.0)) as c:
            return await c.call_tool("compare_sweep", {**BASE, "results": "runs/stuck.csv"})

    started = time.monotonic()
    result = anyio.run(go)
    assert time.monotonic() - started < 10
    assert result.is_error
    assert "did not finish within 1s" in result.content[0].text and "--scan-timeout" in result.content[0].text
    assert _wait_dead(_children_running(parent=os.getpid()), 5) == []


def test_stdio_cancel_leaves_no_comparison_running(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mlsleuth", "serve", "--root", str(project)],
        env={"PYTHONPATH": str(Path(__file__).resolve().parent), "MLSLEUTH_EXTRA_TOOLS": "probe_tools", "XDG_CACHE_HOME": str(project.parent / "cache")},
        cwd=str(project.parent),
    )

    async def go():
        async with Client(params) as c:
            server = (await c.call_tool("server_pid", {})).structured_content["result"]
            async with anyio.create_task_group() as tg:

                async def call():
                    await c.call_tool("compare_sweep", {**BASE, "results": "runs/stuck.csv"})

                tg.start_soon(call)
                with anyio.fail_after(30):
                    while not (pids := _children_running(parent=server)):
                        await anyio.sleep(0.05)
                started = time.monotonic()
                tg.cancel_scope.cancel()
            cancel_s = time.monotonic() - started
            deadline = time.monotonic() + 10
            while _children_running(parent=server) and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            left = _children_running(parent=server)
            after = await c.call_tool("compare_sweep", BASE)
            return cancel_s, pids, left, after

    cancel_s, pids, left, after = anyio.run(go)
    assert cancel_s < 5 and pids and left == []
    assert _wait_dead(pids) == []
    assert not after.is_error


def test_png_size_reads_the_header_and_refuses_other_formats() -> None:
    header = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
    assert sweep_child.png_size(header) == (640, 480)
    with pytest.raises(ValueError):
        sweep_child.png_size(b"GIF89a" + b"\0" * 30)
