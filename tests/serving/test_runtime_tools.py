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

NAN = '''\
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
for step in range(20):
    opt.zero_grad()
    loss = torch.exp(model(x) * (10.0 ** step)).mean()
    loss.backward()
    opt.step()
'''

SETUP = '''\
import torch

def setup():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4), torch.nn.Softmax(dim=1))
    x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
    return {"model": model, "batch": (x, y), "loss_fn": torch.nn.functional.cross_entropy, "num_classes": 4}
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
    (root / "nanny.py").write_text(NAN)
    (root / "setup_dbg.py").write_text(SETUP)
    rows = ["lr,seed,val_acc"]
    for seed in range(8):
        base = 0.80 + 0.01 * ((seed * 7) % 5)
        rows += [f"1e-3,{seed},{base:.4f}", f"3e-4,{seed},{base + 0.03 + 0.001 * (seed % 3):.4f}"]
    (root / "runs").mkdir()
    (root / "runs" / "results.csv").write_text("\n".join(rows) + "\n")
    (root / "nb.ipynb").write_text("{}")
    (tmp_path / "outside.py").write_text(TRAIN)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_runtime_tools_declare_that_they_run_code(project: Path, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    tools = anyio.run(go)
    for name in ("trace_training", "run_diagnostics", "locate_nan"):
        if name not in tools:
            continue
        ann = tools[name].annotations
        assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint) == (False, True, False, True), name
        assert "executes the user's code" in " ".join(tools[name].description.split()), name
    assert {"trace_training", "locate_nan", "run_diagnostics"} <= set(tools)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto"])
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
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_trace_training_rejects_bad_input(project: Path, args: dict, needle: str, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("trace_training", args)

    result = anyio.run(go)
    assert result.is_error
    assert needle in result.content[0].text


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy"])
def test_trace_training_reports_a_crashing_script(project: Path, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("trace_training", {"script": "crash.py", "steps": 2})

    result = anyio.run(go)
    assert not result.is_error  # a failing script is a clue, not a tool failure
    errors = result.structured_content["errors"]
    assert errors and "dataset folder /data/cifar not found" in str(errors)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy"])  # the positive runs are split across both handshakes
def test_locate_nan_finds_the_exp_that_overflows(project: Path, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("locate_nan", {"target": "nanny.py", "max_steps": 5})

    result = anyio.run(go)
    assert not result.is_error, result.content
    first = result.structured_content["findings"][0]
    assert first["rule"] == "nan-born-forward"
    assert first["location"]["op"] == "aten::exp" and first["location"]["step"] == 2
    assert first["location"]["path"] == "nanny.py"


@pytest.mark.parametrize(
    ("args", "needle"),
    [({"target": "../outside.py"}, "outside the served root"), ({"target": "nope.py:setup"}, "does not exist"), ({"target": "nanny.py", "max_steps": 0}, "max_steps")],
)
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_locate_nan_rejects_bad_input(project: Path, args: dict, needle: str, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("locate_nan", args)

    result = anyio.run(go)
    assert result.is_error and needle in result.content[0].text


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_compare_sweep_pairs_seeds(project: Path, mode: str) -> None:
    base = {"results": "runs/results.csv", "param": "lr", "metric": "val_acc", "seed": "seed", "baseline": "1e-3"}

    async def go():
        async with Client(build_server(project), mode=mode) as c:
            ok = await c.call_tool("compare_sweep", base)
            typo = await c.call_tool("compare_sweep", {**base, "param": "learning_rate"})
            outside = await c.call_tool("compare_sweep", {**base, "results": "../x.csv"})
            tools = {t.name: t for t in (await c.list_tools()).tools}
            return ok, typo, outside, tools

    ok, typo, outside, tools = anyio.run(go)
    assert not ok.is_error, ok.content
    findings = ok.structured_content["findings"]
    verdicts = [f for f in findings if f["measurements"].get("value") == "3e-4"]
    assert verdicts and verdicts[0]["measurements"]["n_paired"] == 8
    assert verdicts[0]["measurements"]["mean_diff"] > 0.02
    assert all(f["location"]["path"] in (None, "runs/results.csv") for f in findings)
    assert typo.is_error and "Columns: lr, seed, val_acc" in typo.content[0].text
    assert outside.is_error and "outside the served root" in outside.content[0].text
    ann = tools["compare_sweep"].annotations
    assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint) == (True, False, True, False)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto"])
def test_run_diagnostics_flags_a_model_that_cannot_overfit_one_batch(project: Path, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("run_diagnostics", {"target": "setup_dbg.py:setup", "steps": 50})

    result = anyio.run(go)
    assert not result.is_error, result.content
    report = result.structured_content
    assert report["tool"] == "diagnose"
    assert "overfit-one-batch" in {f["rule"] for f in report["findings"]}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"target": "setup_dbg.py"}, "FILE:FUNCTION"),
        ({"target": "setup_dbg.py:not a name"}, "FILE:FUNCTION"),
        ({"target": "../outside.py:setup"}, "outside the served root"),
        ({"target": "missing.py:setup"}, "does not exist"),
        ({"target": "setup_dbg.py:setup", "steps": 5}, "steps"),
    ],
)
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_run_diagnostics_rejects_bad_input(project: Path, args: dict, needle: str, mode: str) -> None:
    async def go():
        async with Client(build_server(project), mode=mode) as c:
            return await c.call_tool("run_diagnostics", args)

    result = anyio.run(go)
    assert result.is_error and needle in result.content[0].text
