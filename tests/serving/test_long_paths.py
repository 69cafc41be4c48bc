"""Path arguments the operating system cannot even look up are a clear tool error, not a server
traceback (issue 16, item 16: a 4,096-character path gave ENAMETOOLONG in the server log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from mlsleuth.serving.paths import resolve_in_root


@pytest.mark.parametrize("rel", ["a" * 4096, "a/" * 3000, ("b" * 255 + "/") * 20, "c" * 300 + ".py"], ids=["one-name", "deep", "long-parts", "long-file"])
@pytest.mark.parametrize("must_exist", [True, False])
def test_over_long_paths_are_refused_with_a_tool_error(tmp_path: Path, rel: str, must_exist: bool) -> None:
    with pytest.raises(ToolError, match="too long"):
        resolve_in_root(tmp_path, rel, must_exist=must_exist)


def test_a_long_but_valid_path_is_still_accepted(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 200) / ("e" * 200)
    deep.mkdir(parents=True)
    (deep / "train.py").write_text("x = 1\n")
    assert resolve_in_root(tmp_path, f"{'d' * 200}/{'e' * 200}/train.py") == deep / "train.py"
