"""The server as an IDE runs it: ``python -m mlsleuth serve --root DIR`` over stdio."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent

BUGGY = '''\
import torch.nn.functional as F

def step(model, x, y):
    probs = F.softmax(model(x), dim=1)
    return F.cross_entropy(probs, y)
'''


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(BUGGY)
    (tmp_path / "secret.py").write_text(BUGGY)
    (root / "sneaky.py").symlink_to(tmp_path / "secret.py")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "loop.py").write_text(BUGGY)
    (root / "vendored").symlink_to(tmp_path / "vendor")  # a folder link that leaves the root
    return root


def params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mlsleuth", "serve", "--root", str(root)],
        env={
            "PYTHONPATH": str(HERE),
            "MLSLEUTH_EXTRA_TOOLS": "probe_tools",
            "XDG_CACHE_HOME": str(root.parent / "cache"),
        },
        cwd=str(root.parent),
    )


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_errors_are_clean_and_the_server_survives(project: Path, mode: str) -> None:
    async def go():
        async with Client(params(project), mode=mode) as c:
            out = {}
            out["ok"] = await c.call_tool("scan", {"paths": ["train.py"]})
            out["whole"] = await c.call_tool("scan", {})
            out["outside"] = await c.call_tool("scan", {"paths": ["../secret.py"]})
            out["symlink"] = await c.call_tool("scan", {"paths": ["sneaky.py"]})
            out["missing"] = await c.call_tool("scan", {"paths": ["nope/train.py"]})
            out["malformed"] = await c.call_tool("scan", {"paths": [1, 2], "max_findings": "many"})
            out["unknown_tool"] = await c.call_tool("no_such_tool", {})
            out["tool_error"] = await c.call_tool("explain_rule", {"rule_id": "softmax-into-logit"})
            out["after"] = await c.call_tool("list_rules", {"tool": "scan"})
            out["skill"] = await c.read_resource("mlsleuth://skill")
            return out

    out = anyio.run(go)
    assert not out["ok"].is_error
    assert "softmax-into-logit-loss" in {f["rule"] for f in out["ok"].structured_content["findings"]}
    whole = out["whole"].structured_content
    assert {f["location"]["path"] for f in whole["findings"]} == {"train.py"}  # nothing from vendored/ or sneaky.py
    assert {(e["path"], e["kind"]) for e in whole["errors"]} == {("vendored", "outside-root"), ("sneaky.py", "outside-root")}
    assert all("leads outside the served root; it was not read" in e["message"] for e in whole["errors"])
    assert out["outside"].is_error and "outside the served root" in out["outside"].content[0].text
    assert out["symlink"].is_error and "outside the served root" in out["symlink"].content[0].text
    assert out["missing"].is_error and "does not exist" in out["missing"].content[0].text
    malformed = out["malformed"].content[0].text
    assert out["malformed"].is_error and "paths" in malformed and "max_findings" in malformed
    assert out["unknown_tool"].is_error
    assert out["tool_error"].is_error and "softmax-into-logit-loss" in out["tool_error"].content[0].text
    assert not out["after"].is_error
    assert out["skill"].contents[0].text.startswith("---")


def test_stdio_cancel_kills_the_child_process_group(project: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    pidfile = work / "pids.txt"

    async def go():
        async with Client(params(project)) as c:
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    async def call():
                        await c.call_tool("probe_child", {"workdir": str(work), "seconds": 120})

                    tg.start_soon(call)
                    while not pidfile.exists():
                        await anyio.sleep(0.05)
                    tg.cancel_scope.cancel()
                pids = [int(p) for p in pidfile.read_text().split()]
                deadline = time.monotonic() + 15
                while any(_alive(p) for p in pids) and time.monotonic() < deadline:
                    await anyio.sleep(0.1)
                still = [p for p in pids if _alive(p)]
                after = await c.call_tool("list_rules", {})
                return still, after

    still, after = anyio.run(go)
    assert still == [], f"processes survived the cancel: {still}"
    assert not after.is_error


@pytest.mark.slow
def test_stdio_500_sequential_calls_keep_memory_stable(project: Path) -> None:
    calls = [
        ("list_rules", {"category": "loss"}),  # the same path as the whole catalog, at a third of the cost
        ("explain_rule", {"rule_id": "nan-equality-check"}),
        ("scan", {"paths": ["train.py"]}),
        ("scan", {"paths": ["../secret.py"]}),  # an error path too
    ]

    async def go():
        async with Client(params(project)) as c:
            pid = (await c.call_tool("server_pid", {})).structured_content["result"]
            for i in range(60):  # warm-up: caches, lazily imported modules
                name, args = calls[i % len(calls)]
                await c.call_tool(name, args)
            before = _rss_kib(pid)
            failures = 0
            for i in range(500):
                name, args = calls[i % len(calls)]
                result = await c.call_tool(name, args)
                failures += result.is_error != (i % len(calls) == 3)
            after = _rss_kib(pid)
            return before, after, failures

    before, after, failures = anyio.run(go)
    assert failures == 0
    growth_mib = (after - before) / 1024
    print(f"server RSS {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB over 500 calls")
    assert growth_mib < 20, f"RSS grew {growth_mib:.1f} MiB over 500 calls"


def test_stdio_concurrent_calls(project: Path, tmp_path: Path) -> None:
    for i in range(6):
        (project / f"mod{i}.py").write_text(BUGGY)

    async def go():
        results: dict[str, object] = {}
        (work := tmp_path / "w").mkdir()
        async with Client(params(project)) as c, anyio.create_task_group() as tg:

            async def one(key, name, args):
                results[key] = await c.call_tool(name, args)

            for i in range(6):
                tg.start_soon(one, f"scan{i}", "scan", {"paths": [f"mod{i}.py"]})
                tg.start_soon(one, f"rules{i}", "list_rules", {"category": "loss"})
                tg.start_soon(one, f"bad{i}", "scan", {"paths": [f"../x{i}.py"]})
            tg.start_soon(one, "probe", "probe_child", {"workdir": str(work), "seconds": 0.5})
        return results

    results = anyio.run(go)
    for i in range(6):
        scan = results[f"scan{i}"]
        assert not scan.is_error
        assert {f["location"]["path"] for f in scan.structured_content["findings"]} == {f"mod{i}.py"}
        assert not results[f"rules{i}"].is_error
        assert results[f"bad{i}"].is_error
    assert not results["probe"].is_error


def test_stdio_stdout_carries_only_protocol(project: Path) -> None:
    """Every line the server writes to stdout is JSON-RPC, even when tools log or fail."""
    import subprocess

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "scan", "arguments": {"paths": ["train.py"]}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "scan", "arguments": {"paths": ["../secret.py"]}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "explain_rule", "arguments": {}}},
    ]
    p = params(project)
    env = {**__import__("os").environ, **p.env, "MLSLEUTH_EXTRA_TOOLS": ""}
    proc = subprocess.Popen(
        [p.command, *p.args, "--log-level", "DEBUG"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=p.cwd
    )
    try:
        for m in messages:
            proc.stdin.write((json.dumps(m) + "\n").encode())
            proc.stdin.flush()
        replies = {}
        deadline = time.monotonic() + 60
        while len(replies) < 4 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, "server closed stdout early"
            msg = json.loads(line)  # anything but JSON-RPC here would raise
            assert msg["jsonrpc"] == "2.0"
            if "id" in msg:
                replies[msg["id"]] = msg
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
    err = proc.stderr.read().decode()
    assert set(replies) == {1, 2, 3, 4}
    assert replies[3]["result"]["isError"] is True
    assert replies[4]["result"]["isError"] is True
    assert "mlsleuth serve:" in err  # logging went to stderr


@pytest.mark.parametrize("how", ["sigterm", "stdin-closed"])
def test_stopping_the_server_kills_running_user_code(project: Path, tmp_path: Path, how: str) -> None:
    """An IDE stopping the server mid-call (SIGTERM, or closing its stdin) must not leave a training run behind."""
    import os
    import signal
    import subprocess

    work = tmp_path / "work"
    work.mkdir()
    p = params(project)
    proc = subprocess.Popen([p.command, *p.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **p.env})
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "probe_child", "arguments": {"workdir": str(work), "seconds": 120}}},
    ]
    try:
        for m in messages:
            proc.stdin.write((json.dumps(m) + "\n").encode())
            proc.stdin.flush()
        pidfile = work / "pids.txt"
        deadline = time.monotonic() + 60
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = [int(x) for x in pidfile.read_text().split()]
        if how == "sigterm":
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == -signal.SIGTERM
        else:
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while any(_alive(x) for x in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(x) for x in pids)
