"""The server against an independent client: the MCP Inspector CLI from npm."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

NPX = shutil.which("npx")
INSPECTOR = "@modelcontextprotocol/inspector"


def inspector(root: Path, *method_args: str) -> dict:
    if NPX is None:
        pytest.skip("npx (Node.js) is not installed, so the MCP Inspector CLI cannot run")
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "cache"), "MLSLEUTH_EXTRA_TOOLS": ""}
    argv = [NPX, "-y", INSPECTOR, "--cli", sys.executable, "-m", "mlsleuth", "serve", "--root", str(root), *method_args]
    proc = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=180, env=env, cwd=root)
    if proc.returncode != 0 and ("ENOTFOUND" in proc.stderr or "EAI_AGAIN" in proc.stderr or "ECONNREFUSED" in proc.stderr):
        pytest.skip(f"the npm registry is unreachable, so the Inspector could not be fetched: {proc.stderr.strip()[-300:]}")
    assert proc.returncode == 0, f"inspector failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "train.py").write_text(
        "import torch.nn.functional as F\n\n"
        "def step(model, x, y):\n"
        "    probs = F.softmax(model(x), dim=1)\n"
        "    return F.cross_entropy(probs, y)\n"
    )
    return root


def test_inspector_lists_and_calls_tools(project: Path) -> None:
    listed = inspector(project, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert {"scan", "list_rules", "explain_rule"} <= set(tools)
    assert tools["scan"]["annotations"]["readOnlyHint"] is True
    assert "outputSchema" in tools["scan"]

    called = inspector(project, "--method", "tools/call", "--tool-name", "scan", "--tool-arg", 'paths=["train.py"]')
    assert not called.get("isError")
    findings = called["structuredContent"]["findings"]
    assert any(f["rule"] == "softmax-into-logit-loss" and f["location"]["path"] == "train.py" for f in findings)

