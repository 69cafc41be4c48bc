"""Unit tests for the MCP server's building blocks: path confinement, output
bounding, skill-file discovery, the skill installer and the HTTP token gate."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pydantic_core
import pytest
from mcp.server.mcpserver.exceptions import ToolError
from mlsleuth.report import ErrorEntry, Finding, Location, Report
from mlsleuth.serving import skill_files
from mlsleuth.serving.bounding import bound_report
from mlsleuth.serving.http_auth import BearerTokenMiddleware, TokenError, check_token
from mlsleuth.serving.install import InstallError, install_skill
from mlsleuth.serving.paths import resolve_in_root


# -- paths ---------------------------------------------------------------------------------
@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "train.py").write_text("x = 1\n")
    (root / "a..b.py").write_text("y = 2\n")  # '..' inside a name is not traversal
    outside = tmp_path / "secret.py"
    outside.write_text("token = 'x'\n")
    (root / "escape.py").symlink_to(outside)
    (root / "escape_dir").symlink_to(tmp_path)
    (root / "inside_link.py").symlink_to(root / "pkg" / "train.py")
    return root


def test_resolve_accepts_relative_paths_inside_root(tree: Path) -> None:
    assert resolve_in_root(tree, "pkg/train.py") == tree / "pkg" / "train.py"
    assert resolve_in_root(tree, ".") == tree
    assert resolve_in_root(tree, "pkg/../pkg/train.py") == tree / "pkg" / "train.py"
    assert resolve_in_root(tree, "a..b.py") == tree / "a..b.py"
    # a symlink that stays inside the root is fine
    assert resolve_in_root(tree, "inside_link.py") == tree / "pkg" / "train.py"


@pytest.mark.parametrize(
    ("rel", "needle"),
    [
        ("../secret.py", "outside the served root"),
        ("pkg/../../secret.py", "outside the served root"),
        ("escape.py", "outside the served root"),
        ("escape_dir/secret.py", "outside the served root"),
        ("/etc/passwd", "is absolute"),
        ("C:\\Windows", "is absolute"),
        ("pkg/\0train.py", "NUL byte"),
        ("", "is empty"),
        ("missing.py", "does not exist"),
    ],
)
def test_resolve_refuses_with_a_clear_message(tree: Path, rel: str, needle: str) -> None:
    with pytest.raises(ToolError, match=needle):
        resolve_in_root(tree, rel)


# -- bounding --------------------------------------------------------------------------------
def _report(n: int, observation: str = "loss = crit(probs, y)") -> Report:
    findings = [
        Finding(
            rule="nan-equality-check",
            category="numerical",
            severity="warning",
            message=f"finding {i}",
            location=Location(path=f"f{i:04d}.py", line=1),
            observation=observation,
        )
        for i in range(n)
    ]
    return Report(tool="scan", findings=findings).finalize()


def test_bound_pages_through_every_finding_exactly_once() -> None:
    report = _report(23)
    seen: list[str] = []
    offset = 0
    while True:
        page = bound_report(report, max_findings=10, offset=offset)
        seen += [f.location.path for f in page.findings]
        if not page.truncated:
            break
        offset = page.summary.stats["next_offset"]
    assert seen == [f.location.path for f in report.findings]
    assert page.summary.stats["total_findings"] == 23


def test_bound_enforces_the_character_budget() -> None:
    report = _report(150, observation="x" * 1500)
    page = bound_report(report, max_findings=150, char_budget=30_000)
    size = len(pydantic_core.to_json(page, indent=2))
    assert size <= 30_000
    assert page.truncated and page.summary.stats["cut_by_size"]
    assert 5 < len(page.findings) < 150
    nxt = bound_report(report, max_findings=150, offset=page.summary.stats["next_offset"], char_budget=30_000)
    assert nxt.findings[0].location.path == report.findings[len(page.findings)].location.path


def test_bound_clips_huge_fields_and_error_lists() -> None:
    report = _report(1, observation="y" * 50_000)
    report.errors = [ErrorEntry(kind="crash", message="boom", detail="t" * 100_000) for _ in range(80)]
    page = bound_report(report, max_findings=10)
    assert len(page.findings[0].observation) < 3_000
    assert 1 <= len(page.errors) <= 50 and page.truncated
    assert page.summary.stats["errors_not_shown"] == 80 - len(page.errors)
    assert all(len(e.detail or "") < 5_000 for e in page.errors)
    assert len(pydantic_core.to_json(page, indent=2)) < 60_000


def test_bound_small_report_is_untouched() -> None:
    report = _report(3)
    page = bound_report(report, max_findings=50)
    assert not page.truncated
    assert [f.model_dump() for f in page.findings] == [f.model_dump() for f in report.findings]


@pytest.mark.parametrize(("max_findings", "offset", "needle"), [(0, 0, "max_findings"), (500, 0, "max_findings"), (10, -1, "offset"), (10, 7, "past the last")])
def test_bound_rejects_bad_paging(max_findings: int, offset: int, needle: str) -> None:
    with pytest.raises(ToolError, match=needle):
        bound_report(_report(5), max_findings=max_findings, offset=offset)


# -- skill files -------------------------------------------------------------------------------
def _fake_skill(folder: Path) -> Path:
    (folder / "refs").mkdir(parents=True)
    (folder / "rl").mkdir()
    (folder / "SKILL.md").write_text("---\nname: mlsleuth\ndescription: test\n---\n\n# Skill title\n")
    (folder / "refs" / "nan.md").write_text("# NaN hunting\n\nbody\n")
    (folder / "refs" / "data-first.md").write_text("no heading here\n")
    (folder / "refs" / "notes.txt").write_text("not markdown\n")
    (folder / "rl" / "SKILL.md").write_text("# RL\n")
    return folder


def test_skill_dir_override_and_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _fake_skill(tmp_path / "skill")
    monkeypatch.setenv(skill_files.SKILL_DIR_ENV, str(root))
    assert skill_files.skill_root() == root
    docs = {d.uri: d for d in skill_files.list_docs()}
    assert set(docs) == {"mlsleuth://skill", "mlsleuth://refs/nan", "mlsleuth://refs/data-first", "mlsleuth://rl/SKILL"}
    assert docs["mlsleuth://skill"].title() == "Skill title"  # front matter skipped
    assert docs["mlsleuth://refs/nan"].title() == "NaN hunting"
    assert docs["mlsleuth://refs/data-first"].title() == "data-first.md"
    assert skill_files.section_doc("refs", "nan.md").path == root / "refs" / "nan.md"
    assert skill_files.section_doc("refs", "../SKILL") is None
    assert skill_files.section_doc("refs", "notes") is None
    assert skill_files.section_doc("secrets", "nan") is None


def test_skill_dir_override_must_hold_skill_md(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(skill_files.SKILL_DIR_ENV, str(tmp_path))
    with pytest.raises(skill_files.SkillFilesMissing, match="does not contain SKILL.md"):
        skill_files.skill_root()


def test_checkout_skill_files_are_found() -> None:
    repo = Path(__file__).resolve().parents[1]
    if not (repo / "SKILL.md").is_file():
        pytest.fail("SKILL.md is missing at the repository root; the server and the wheel need it")
    assert skill_files.skill_root() in (repo, Path(skill_files.__file__).resolve().parents[1] / "skill_files")


# -- install-skill ---------------------------------------------------------------------------------
def test_install_copies_refuses_a_different_install_and_forces(tmp_path: Path) -> None:
    src = _fake_skill(tmp_path / "src")
    dest = tmp_path / "home" / ".claude" / "skills" / "mlsleuth"
    first = install_skill(dest, source=src)
    assert first.action == "installed"
    assert (dest / "SKILL.md").read_text() == (src / "SKILL.md").read_text()
    assert (dest / "refs" / "notes.txt").is_file() and (dest / "rl" / "SKILL.md").is_file()
    assert install_skill(dest, source=src).action == "unchanged"
    (dest / "refs" / "nan.md").write_text("locally edited\n")
    with pytest.raises(InstallError, match="--force"):
        install_skill(dest, source=src)
    assert (dest / "refs" / "nan.md").read_text() == "locally edited\n"  # untouched after refusal
    (dest / "stale.md").write_text("left from an old version\n")
    again = install_skill(dest, source=src, force=True)
    assert again.action == "replaced"
    assert (dest / "refs" / "nan.md").read_text() == "# NaN hunting\n\nbody\n"
    assert not (dest / "stale.md").exists()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["mlsleuth"]  # no staging leftovers


def test_install_refuses_a_file_in_the_way(tmp_path: Path) -> None:
    src = _fake_skill(tmp_path / "src")
    dest = tmp_path / "mlsleuth"
    dest.write_text("a file")
    with pytest.raises(InstallError, match="not a plain folder"):
        install_skill(dest, source=src, force=True)


def test_install_skill_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from mlsleuth.cli import main

    src = _fake_skill(tmp_path / "src")
    monkeypatch.setenv(skill_files.SKILL_DIR_ENV, str(src))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert main(["install-skill", "--project"]) == 0
    assert (tmp_path / ".claude" / "skills" / "mlsleuth" / "refs" / "nan.md").is_file()
    assert "installed in" in capsys.readouterr().out
    assert main(["install-skill", "--user"]) == 0
    assert (tmp_path / "home" / ".claude" / "skills" / "mlsleuth" / "SKILL.md").is_file()
    (tmp_path / "home" / ".claude" / "skills" / "mlsleuth" / "SKILL.md").write_text("mine\n")
    assert main(["install-skill", "--user"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["install-skill", "--user", "--force"]) == 0
    assert main(["install-skill"]) == 2  # one of --user/--project/--dest is required


# -- HTTP token gate ------------------------------------------------------------------------------------
def test_token_must_be_set_and_long_enough() -> None:
    with pytest.raises(TokenError, match="MY_VAR"):
        check_token(None, "MY_VAR")
    with pytest.raises(TokenError, match="at least"):
        check_token("short", "MY_VAR")
    assert check_token("s" * 32, "MY_VAR") == "s" * 32


def _call(middleware: BearerTokenMiddleware, headers: list[tuple[bytes, bytes]]) -> tuple[int, list]:
    sent: list[dict] = []
    reached: list[bool] = []

    async def app(scope, receive, send):
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    middleware.app = app

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    asyncio.run(middleware({"type": "http", "headers": headers}, receive, send))
    return sent[0]["status"], reached


def test_bearer_middleware() -> None:
    token = "t0k3n-" + "x" * 20
    mw = BearerTokenMiddleware(lambda *a: None, token)
    assert _call(mw, [(b"authorization", f"Bearer {token}".encode())]) == (200, [True])
    assert _call(mw, [(b"Authorization", f"bearer {token}".encode())]) == (200, [True])
    assert _call(mw, []) == (401, [])
    assert _call(mw, [(b"authorization", b"Bearer wrong")]) == (401, [])
    assert _call(mw, [(b"authorization", f"Basic {token}".encode())]) == (401, [])


def test_serve_refuses_http_without_token_or_off_loopback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from mlsleuth.cli import main

    monkeypatch.delenv("MLSLEUTH_TOKEN", raising=False)
    assert main(["serve", "--http", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "MLSLEUTH_TOKEN" in err and "Bearer" in err
    monkeypatch.setenv("MLSLEUTH_TOKEN", "z" * 32)
    assert main(["serve", "--http", "--host", "0.0.0.0", "--root", str(tmp_path)]) == 2
    assert "loopback" in capsys.readouterr().err
    assert main(["serve", "--root", str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_plugin_manifest_and_mcp_json_are_consistent() -> None:
    repo = Path(__file__).resolve().parents[1]
    manifest = json.loads((repo / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "mlsleuth"
    import mlsleuth

    assert manifest["version"] == mlsleuth.__version__
    mcp_json = json.loads((repo / manifest["mcpServers"]).read_text())
    server = mcp_json["mcpServers"]["mlsleuth"]
    assert server["command"] == "mlsleuth" and server["args"][0] == "serve"
    assert os.path.basename(manifest["mcpServers"]) == ".mcp.json"
