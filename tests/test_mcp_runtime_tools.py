"""Runtime tools served over MCP (they run the user's code in a child process)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mlsleuth.mcp_server import build_server

TRAIN = '''\
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randint(0, 3, (32,))
for step in range(50):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(torch.softmax(model(x), dim=1), y)
    loss.backward()
    opt.step()
'''

CRASH = '''\
raise FileNotFoundError("dataset folder /data/cifar not found")
'''


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "train.py").write_text(TRAIN)
    (root / "crash.py").write_text(CRASH)
    (root / "nb.ipynb").write_text("{}")
    (tmp_path / "outside.py").write_text(TRAIN)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


def test_runtime_tools_declare_that_they_run_code(project: Path) -> None:
    async def go():
        async with Client(build_server(project)) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    tools = anyio.run(go)
    for name in ("trace_training", "run_diagnostics", "locate_nan"):
        if name not in tools:
            continue
        ann = tools[name].annotations
        assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint) == (False, True, False, True), name
        assert "executes the user's code" in tools[name].description or "runs the user's code" in tools[name].description
    assert "trace_training" in tools


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_trace_training_finds_softmax_into_cross_entropy(project: Path, mode: str) -> None:
    progress: list[float] = []

    async def on_progress(p, total, message):
        progress.append(p)

    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("trace_training", {"script": "train.py", "steps": 3}, progress_callback=on_progress)

    result = anyio.run(go)
    assert not result.is_error, result.content
    report = result.structured_content
    assert report["tool"] == "trace"
    assert "softmax-into-cross-entropy" in {f["rule"] for f in report["findings"]}
    assert "zero-grad-missing" not in {f["rule"] for f in report["findings"]}  # this loop does zero its grads
    assert progress == sorted(progress)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"script": "../outside.py"}, "outside the served root"),
        ({"script": "missing.py"}, "does not exist"),
        ({"script": "nb.ipynb"}, "notebook"),
        ({"script": "."}, "folder"),
        ({"script": "train.py", "steps": 0}, "steps"),
        ({"script": "train.py", "timeout_s": -1}, "timeout_s"),
    ],
)
def test_trace_training_rejects_bad_input(project: Path, args: dict, needle: str) -> None:
    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("trace_training", args)

    result = anyio.run(go)
    assert result.is_error
    assert needle in result.content[0].text


def test_trace_training_reports_a_crashing_script(project: Path) -> None:
    async def go():
        async with Client(build_server(project)) as c:
            return await c.call_tool("trace_training", {"script": "crash.py", "steps": 2})

    result = anyio.run(go)
    assert not result.is_error  # a failing script is a clue, not a tool failure
    errors = result.structured_content["errors"]
    assert errors and "dataset folder /data/cifar not found" in str(errors)
