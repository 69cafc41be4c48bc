"""Tool arguments as agents send them: a misspelt name is refused (naming it and the valid
ones) instead of silently ignored, a single string stands for a one-element list of paths,
and an absolute path inside the served root is accepted while one outside stays refused."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver.exceptions import ToolError
from mlsleuth.mcp_server import build_server
from mlsleuth.serving.paths import resolve_in_root

BUGGY = '''\
import torch.nn.functional as F

def step(model, x, y):
    return F.cross_entropy(F.softmax(model(x), dim=-1), y)
'''


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "train.py").write_text(BUGGY)
    (root / "other.py").write_text(BUGGY)
    (tmp_path / "outside.py").write_text(BUGGY)
    (root / "link_out.py").symlink_to(tmp_path / "outside.py")
    return root


@pytest.fixture()
def server(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(project.parent / "cache"))
    monkeypatch.delenv("MLSLEUTH_EXTRA_TOOLS", raising=False)
    return build_server(project)


def call(server, name: str, args: dict):
    async def go():
        async with Client(server) as c:
            return await c.call_tool(name, args)

    return anyio.run(go)


def list_tools(server) -> dict:
    async def go():
        async with Client(server) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    return anyio.run(go)


# Each tool called with its required arguments plus one misspelt name. The required ones name
# nothing that exists, so a server that ignored the misspelling would fail on them instead
# (and never run anything).
MISSPELT = [
    ("scan", {"path": ["src"]}, "path", "paths"),
    ("list_rules", {"tools": "scan"}, "tools", "tool"),
    ("explain_rule", {"rule_id": "nan-equality-check", "rule": "x"}, "rule", "rule_id"),
    ("trace_training", {"script": "missing.py", "step": 5}, "step", "steps"),
    ("run_diagnostics", {"target": "missing.py:setup", "lr-range": True}, "lr-range", "lr_range"),
    ("locate_nan", {"target": "missing.py", "maxsteps": 3}, "maxsteps", "max_steps"),
    ("compare_sweep", {"results": "missing.csv", "param": "lr", "metric": "acc", "seed": "seed", "lower_better": True}, "lower_better", "lower_is_better"),
]


@pytest.mark.parametrize(("tool", "args", "wrong", "meant"), MISSPELT, ids=[m[0] for m in MISSPELT])
def test_a_misspelt_argument_is_refused_naming_it_and_the_valid_ones(server, tool, args, wrong, meant) -> None:
    schema = list_tools(server)[tool].input_schema
    result = call(server, tool, args)
    assert result.is_error
    text = result.content[0].text
    assert f"unknown argument {wrong!r}" in text
    assert f"did you mean {meant!r}" in text
    for name in schema["properties"]:
        assert name in text, f"the error should list the valid argument {name!r}: {text}"
    assert "does not exist" not in text  # refused before anything else was looked at


def test_every_input_schema_says_no_other_arguments(server) -> None:
    for name, tool in list_tools(server).items():
        assert tool.input_schema.get("additionalProperties") is False, name


def test_a_correct_call_still_works_and_an_unrelated_name_gets_no_guess(server) -> None:
    ok = call(server, "scan", {"paths": ["src"], "max_findings": 5})
    assert not ok.is_error
    wild = call(server, "scan", {"zzz": 1})
    assert wild.is_error and "unknown argument 'zzz'" in wild.content[0].text
    assert "did you mean" not in wild.content[0].text


def _paths(result) -> set[str]:
    assert not result.is_error, result.content[0].text
    return {f["location"]["path"] for f in result.structured_content["findings"]}


def test_a_single_string_for_paths_is_one_path(server) -> None:
    assert _paths(call(server, "scan", {"paths": "src/train.py"})) == {"src/train.py"}
    assert _paths(call(server, "scan", {"paths": "src"})) == {"src/train.py"}
    # the SDK's JSON-in-a-string habit (some clients send lists that way) still works
    assert _paths(call(server, "scan", {"paths": '["other.py"]'})) == {"other.py"}


def test_the_paths_schema_admits_a_string_or_a_list(server) -> None:
    prop = list_tools(server)["scan"].input_schema["properties"]["paths"]
    kinds = {branch.get("type") for branch in prop.get("anyOf", [prop])}
    assert {"string", "array"} <= kinds


def test_an_absolute_path_inside_the_root_is_accepted(server, project: Path) -> None:
    assert _paths(call(server, "scan", {"paths": [str(project / "src")]})) == {"src/train.py"}
    assert _paths(call(server, "scan", {"paths": str(project / "other.py")})) == {"other.py"}
    assert _paths(call(server, "scan", {"paths": [str(project)]})) >= {"src/train.py", "other.py"}


@pytest.mark.parametrize(
    "where",
    [
        lambda p: str(p.parent / "outside.py"),  # absolute, outside
        lambda p: str(p / "link_out.py"),  # absolute, inside, but a link leading out
        lambda p: str(p) + "/../outside.py",  # absolute, escapes through '..'
        lambda p: str(p) + "-sibling/x.py",  # shares the root's prefix as text only
        lambda p: "/etc/passwd",
    ],
)
def test_an_absolute_path_outside_the_root_is_still_refused(server, project: Path, where) -> None:
    (project.parent / "project-sibling").mkdir()
    (project.parent / "project-sibling" / "x.py").write_text(BUGGY)
    result = call(server, "scan", {"paths": [where(project)]})
    assert result.is_error
    assert "outside the served root" in result.content[0].text


def test_resolve_in_root_takes_absolute_paths_inside_the_root(project: Path) -> None:
    assert resolve_in_root(project, str(project / "src" / "train.py")) == project / "src" / "train.py"
    assert resolve_in_root(project, str(project)) == project
    with pytest.raises(ToolError, match="outside the served root"):
        resolve_in_root(project, str(project / "link_out.py"))
    with pytest.raises(ToolError, match="does not exist"):
        resolve_in_root(project, str(project / "nope.py"))


def test_runtime_tools_take_absolute_paths_inside_the_root(server, project: Path) -> None:
    """The target is resolved before anything runs: an absolute target inside the root gets past
    the path checks to the next one (a folder is not a file: nothing runs), one outside does not."""
    inside = call(server, "run_diagnostics", {"target": f"{project / 'src'}:setup"})
    assert inside.is_error and "no such file" in inside.content[0].text
    assert "absolute" not in inside.content[0].text and "outside" not in inside.content[0].text
    outside = call(server, "locate_nan", {"target": str(project.parent / "outside.py")})
    assert outside.is_error and "outside the served root" in outside.content[0].text
