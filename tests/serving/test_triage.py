"""The MCP `triage` tool: strict arguments, confinement, the merged clue, scan-only with a reason."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mlsleuth.mcp_server import build_server

from tests.triage.projects import LIBRARY_ONLY, SOFTMAX_TRAIN, make


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MLSLEUTH_EXTRA_TOOLS", raising=False)
    (tmp_path / "outside.py").write_text(SOFTMAX_TRAIN)
    return make(tmp_path / "project", {"train.py": SOFTMAX_TRAIN, "lib/model.py": LIBRARY_ONLY})


def _call(root: Path, arguments: dict):
    async def go():
        async with Client(build_server(root)) as c:
            return await c.call_tool("triage", arguments)

    return anyio.run(go)


def test_triage_is_listed_as_running_user_code(project: Path) -> None:
    async def go():
        async with Client(build_server(project)) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    tool = anyio.run(go)["triage"]
    assert tool.annotations.read_only_hint is False and tool.annotations.destructive_hint is True
    assert "executes the user's code" in " ".join(tool.description.split())
    assert set(tool.input_schema["properties"]) == {"path", "run", "args", "symptom", "auto_run", "steps", "timeout_s", "max_clues"}


@pytest.mark.parametrize(("arguments", "needle"), [
    ({"run": "../outside.py"}, "outside"),
    ({"path": "lib/model.py", "run": "train.py"}, "not a folder"),
    ({"run": "nope.py"}, "nope.py"),
    ({"max_clues": 0}, "max_clues"),
    ({"surprise": 1}, "surprise"),
])
def test_bad_arguments_are_clear_errors(project: Path, arguments: dict, needle: str) -> None:
    result = _call(project, arguments)
    assert result.is_error
    assert needle in result.content[0].text


@pytest.mark.slow
def test_triage_merges_the_static_and_runtime_softmax_clue_and_ranks_it_first(project: Path) -> None:
    pytest.importorskip("torch")
    result = _call(project, {"run": "train.py", "symptom": "loss stuck at 1.38", "steps": 3})
    assert not result.is_error, result.content[0].text
    report = result.structured_content
    first = report["findings"][0]
    assert {e["kind"] for e in first["measurements"]["evidence"]} == {"static", "runtime"}
    assert first["location"]["path"] == "train.py"
    assert report["summary"]["stats"]["not_run"]
    assert report["summary"]["stats"]["follow_ups"]


@pytest.mark.slow
def test_triage_without_an_entry_point_scans_only_and_says_why(project: Path) -> None:
    result = _call(project, {"path": "lib", "symptom": "NaN after 300 steps"})
    assert not result.is_error, result.content[0].text
    stats = result.structured_content["summary"]["stats"]
    assert stats["run_skipped"].startswith("no entry point found")
    assert any(n["check"].startswith("trace") for n in stats["not_run"])
    assert any("mlsleuth nan" in f for f in stats["follow_ups"])


@pytest.mark.slow
def test_a_sub_folder_project_shows_paths_relative_to_the_served_root(project: Path) -> None:
    pytest.importorskip("torch")
    make(project / "sub", {"train.py": SOFTMAX_TRAIN})
    result = _call(project, {"path": "sub", "run": "sub/train.py", "steps": 3})
    assert not result.is_error, result.content[0].text
    first = result.structured_content["findings"][0]
    assert {e["kind"] for e in first["measurements"]["evidence"]} == {"static", "runtime"}
    assert first["location"]["path"] == "sub/train.py"
    assert result.structured_content["summary"]["stats"]["entry"]["script"] == "train.py"


@pytest.mark.slow
def test_the_script_as_path_is_traced_with_its_folder_as_the_project(project: Path) -> None:
    """`path` naming the training script itself (an agent's first guess) works: its folder is the project."""
    pytest.importorskip("torch")
    result = _call(project, {"path": "train.py", "steps": 3})
    assert not result.is_error, result.content[0].text
    stats = result.structured_content["summary"]["stats"]
    assert stats["entry"]["script"] == "train.py"
    assert {e["kind"] for e in result.structured_content["findings"][0]["measurements"]["evidence"]} == {"static", "runtime"}
