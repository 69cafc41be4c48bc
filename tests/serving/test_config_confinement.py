"""The server reads [tool.mlsleuth] only from inside its root (issue 16, item 12).

A pyproject.toml in a parent folder (or one the root links to outside) is someone
else's: its exclude emptied the scan and its values were echoed in tool errors.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mlsleuth.config import find_pyproject, load_config
from mlsleuth.mcp_server import build_server

BUGGY = "import math\n\ndef check(loss):\n    if loss == math.nan:\n        raise RuntimeError('nan')\n"
HOSTILE = '[tool.mlsleuth]\nexclude = ["*.py"]\nselect = ["outside-secret-value"]\n'


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "pyproject.toml").write_text(HOSTILE)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "train.py").write_text(BUGGY)
    return project


def _scan(root: Path):
    async def go():
        async with Client(build_server(root)) as c:
            return await c.call_tool("scan", {"paths": ["src"], "select": ["nan-equality-check"]}), await c.call_tool("scan", {"paths": ["src"]})

    return anyio.run(go)


def test_a_parent_pyproject_is_not_read_by_the_server(root: Path) -> None:
    chosen, default = _scan(root)
    for result in (chosen, default):
        assert not result.is_error, result.content[0].text
        assert "outside-secret-value" not in result.content[0].text
        assert [f["rule"] for f in result.structured_content["findings"]] == ["nan-equality-check"]


def test_a_pyproject_linked_from_outside_is_not_read(root: Path, tmp_path: Path) -> None:
    (root / "pyproject.toml").symlink_to(tmp_path / "pyproject.toml")
    for result in _scan(root):
        assert not result.is_error and "outside-secret-value" not in result.content[0].text
        assert [f["rule"] for f in result.structured_content["findings"]] == ["nan-equality-check"]


def test_a_pyproject_inside_the_root_is_still_used(root: Path) -> None:
    (root / "pyproject.toml").write_text('[tool.mlsleuth]\nexclude = ["src/train.py"]\n')
    _, default = _scan(root)
    assert default.structured_content["findings"] == []


def test_find_pyproject_stops_at_a_boundary(root: Path, tmp_path: Path) -> None:
    assert find_pyproject(root / "src") == tmp_path / "pyproject.toml"  # the CLI looks upward, as linters do
    assert find_pyproject(root / "src", boundary=root) is None
    assert load_config(root / "src", boundary=root).select == []
