"""Unit tests for the MCP server's building blocks: path confinement, output
bounding, skill-file discovery, the skill installer and the HTTP token gate."""

from __future__ import annotations

import asyncio
import json
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
from mlsleuth.serving.running import WorkCancelled, run_in_thread


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
        ("/etc/passwd", "absolute path outside the served root"),
        ("C:\\Windows", "absolute path outside the served root"),
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
    size = len(pydantic_core.to_json(page))
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
    assert len(pydantic_core.to_json(page)) < 60_000


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
    repo = Path(__file__).resolve().parents[2]
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


def test_install_warns_when_the_folder_name_differs_from_the_skill_name(tmp_path: Path) -> None:
    src = _fake_skill(tmp_path / "src")
    assert install_skill(tmp_path / "skills" / "mlsleuth", source=src).warnings == []
    odd = install_skill(tmp_path / "skills" / "ml-debug", source=src)
    assert odd.action == "installed" and "named 'mlsleuth'" in odd.warnings[0]


def test_install_refuses_a_file_in_the_way(tmp_path: Path) -> None:
    src = _fake_skill(tmp_path / "src")
    dest = tmp_path / "mlsleuth"
    dest.write_text("a file")
    with pytest.raises(InstallError, match="not a plain folder"):
        install_skill(dest, source=src, force=True)


def _fake_companions(src: Path) -> Path:
    (src / "rl" / "SKILL.md").write_text(
        "---\nname: mlsleuth-rl\ndescription: rl test\n---\n\n# RL\n\nSee [the main skill](../SKILL.md), "
        "[seeds](../refs/nan.md#nan-hunting) and [probes](probe.md).\n")
    (src / "rl" / "probe.md").write_text("# Probe\n\nBack to [RL](SKILL.md).\n")
    (src / "pinn").mkdir()
    (src / "pinn" / "SKILL.md").write_text("---\nname: mlsleuth-pinn\ndescription: pinn test\n---\n\n# PINN\n\n[up](../SKILL.md)\n")
    return src


def test_install_skills_puts_each_skill_in_its_own_folder(tmp_path: Path) -> None:
    from mlsleuth.serving.install import install_skills

    src = _fake_companions(_fake_skill(tmp_path / "src"))
    skills = tmp_path / "skills"
    results = install_skills(skills, source=src)
    assert [r.dest.name for r in results] == ["mlsleuth", "mlsleuth-rl", "mlsleuth-pinn"]
    assert sorted(p.name for p in skills.iterdir()) == ["mlsleuth", "mlsleuth-pinn", "mlsleuth-rl"]
    assert (skills / "mlsleuth" / "rl" / "SKILL.md").is_file()  # the main skill keeps its chapters
    rl = (skills / "mlsleuth-rl" / "SKILL.md").read_text()
    assert rl.startswith("---\nname: mlsleuth-rl\n")
    # links that left the companion's folder now lead into the main skill beside it; its own links are kept
    assert "](../mlsleuth/SKILL.md)" in rl and "](../mlsleuth/refs/nan.md#nan-hunting)" in rl and "](probe.md)" in rl
    assert (skills / "mlsleuth-rl" / "probe.md").read_text() == "# Probe\n\nBack to [RL](SKILL.md).\n"
    assert "](../mlsleuth/SKILL.md)" in (skills / "mlsleuth-pinn" / "SKILL.md").read_text()
    assert [r.action for r in install_skills(skills, source=src)] == ["unchanged"] * 3


def test_install_skills_refuses_a_skill_folder_given_as_the_skills_folder(tmp_path: Path) -> None:
    from mlsleuth.serving.install import install_skills

    src = _fake_companions(_fake_skill(tmp_path / "src"))
    with pytest.raises(InstallError, match=r"skills folder.*pass its parent"):
        install_skills(tmp_path / "skills" / "mlsleuth", source=src)
    assert not (tmp_path / "skills").exists()


def test_install_skill_cli_dest_is_the_skills_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from mlsleuth.cli import main

    src = _fake_companions(_fake_skill(tmp_path / "src"))
    monkeypatch.setenv(skill_files.SKILL_DIR_ENV, str(src))
    dest = tmp_path / "anywhere"
    assert main(["install-skill", "--dest", str(dest)]) == 0
    assert (dest / "mlsleuth" / "SKILL.md").is_file() and not (dest / "SKILL.md").exists()
    assert (dest / "mlsleuth-rl" / "SKILL.md").is_file() and (dest / "mlsleuth-pinn" / "SKILL.md").is_file()
    capsys.readouterr()
    assert main(["install-skill", "--dest", str(dest / "mlsleuth")]) == 2
    assert "pass its parent" in capsys.readouterr().err


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
    assert check_token("s3cr3t-t0k3n-f0r-t3sts", "MY_VAR") == "s3cr3t-t0k3n-f0r-t3sts"


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


# Fields of .claude-plugin/plugin.json documented in the Claude Code plugins reference
# (code.claude.com/docs/en/plugins-reference); the component fields name paths.
PLUGIN_METADATA_FIELDS = {"name", "version", "description", "author", "homepage", "repository", "license", "keywords"}
PLUGIN_PATH_FIELDS = {"commands", "agents", "skills", "hooks", "mcpServers", "outputStyles", "lspServers"}


def _plugin_paths(value) -> list[str]:
    """The paths a component field names (hooks and mcpServers may be inline objects instead)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    assert isinstance(value, dict), f"a component field must be a path, a list of paths or an inline object, got {value!r}"
    return []


def test_plugin_manifest_fields_are_valid_and_every_named_path_exists() -> None:
    repo = Path(__file__).resolve().parents[2]
    manifest = json.loads((repo / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    import re

    import mlsleuth

    assert set(manifest) <= PLUGIN_METADATA_FIELDS | PLUGIN_PATH_FIELDS, f"unknown fields: {set(manifest) - PLUGIN_METADATA_FIELDS - PLUGIN_PATH_FIELDS}"
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", manifest["name"]) and manifest["name"] == "mlsleuth"
    assert re.fullmatch(r"\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?", manifest["version"]) and manifest["version"] == mlsleuth.__version__
    assert isinstance(manifest["description"], str) and 20 <= len(manifest["description"]) <= 300
    assert isinstance(manifest["author"], dict) and manifest["author"]["name"]
    for key in ("homepage", "repository"):
        assert manifest[key].startswith("https://"), key
    assert manifest["author"].get("url", "https://").startswith("https://")
    assert isinstance(manifest["license"], str) and manifest["license"]
    keywords = manifest["keywords"]
    assert isinstance(keywords, list) and keywords and all(isinstance(k, str) and k for k in keywords) and len(set(keywords)) == len(keywords)
    for field in PLUGIN_PATH_FIELDS & set(manifest):
        for rel in _plugin_paths(manifest[field]):
            assert rel.startswith("./") and ".." not in Path(rel).parts and "\\" not in rel, f"{field}: {rel!r} must be ./relative inside the plugin"
            assert (repo / rel).exists(), f"{field}: {rel} does not exist"


def test_plugin_ships_the_root_skill_and_the_server() -> None:
    """The repository root is the plugin. Per the Claude Code plugins reference, when a plugin
    has no `skills/` directory and no `skills` manifest field, the SKILL.md at the plugin
    root is loaded as the plugin's single skill, named by its front matter. So the skill
    is not copied into `skills/mlsleuth/`, and no `skills` field points at the root
    (a `skills` path would replace that root-skill rule). The server comes from
    `.mcp.json` at the plugin root (the default location), run in the user's project.
    """
    import re

    repo = Path(__file__).resolve().parents[2]
    manifest = json.loads((repo / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert "skills" not in manifest and "commands" not in manifest
    assert not (repo / "skills").exists() and not (repo / "commands").exists()

    front = (repo / "SKILL.md").read_text(encoding="utf-8").split("---")[1]
    fields = dict(line.split(": ", 1) for line in front.strip().splitlines())
    assert fields["name"] == manifest["name"] and re.fullmatch(r"[a-z0-9-]{1,64}", fields["name"])
    assert 1 <= len(fields["description"]) <= 1024 and not set("<>") & set(fields["description"])
    # every file the skill links to ships with the plugin (the plugin is the whole folder)
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", (repo / "SKILL.md").read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link and not link.startswith("mailto:")]
    assert {"refs", "rl", "pinn"} <= {Path(link).parts[0] for link in local}
    assert [link for link in local if not (repo / link).exists()] == []

    assert "mcpServers" not in manifest  # the default .mcp.json is used
    config = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))
    assert set(config) == {"mcpServers"} and set(config["mcpServers"]) == {"mlsleuth"}
    server = config["mcpServers"]["mlsleuth"]
    assert server["type"] == "stdio" and server["command"] == "mlsleuth" and server["args"] == ["serve"]
    assert "${" not in json.dumps(server)  # no variable that may be unset: the root is the folder Claude Code starts in
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    scripts = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts[server["command"]] == "mlsleuth.cli:main"
    from mlsleuth.cli import build_parser

    assert build_parser().parse_args(server["args"]).command == "serve"


# -- PreparedRun runner edge cases ------------------------------------------------------------------------
def _probe(tmp_path: Path, seconds: float = 0.2, mode: str = "ok"):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from probe_tools import prepare_probe
    finally:
        sys.path.pop(0)
    tmp_path.mkdir(parents=True, exist_ok=True)
    return prepare_probe(tmp_path, seconds, mode, 60)


def test_run_prepared_start_failure_is_a_report(tmp_path: Path) -> None:
    import anyio
    from mlsleuth.serving.running import run_prepared

    prepared = _probe(tmp_path)
    prepared.child.argv[0] = str(tmp_path / "no-such-python")
    scratch = prepared.child.scratch
    report = anyio.run(lambda: run_prepared(prepared, None, tool="probe", what="probe"))
    assert report.errors[0].kind == "start-failed" and "no-such-python" in report.errors[0].message
    assert not scratch.exists()


def test_run_prepared_survives_a_broken_to_report(tmp_path: Path) -> None:
    import anyio
    from mlsleuth.serving.running import run_prepared

    prepared = _probe(tmp_path)

    def broken(result):
        raise KeyError("status")

    prepared.to_report = broken
    report = anyio.run(lambda: run_prepared(prepared, None, tool="probe", what="probe"))
    assert report.errors[0].kind == "internal-error"
    assert "exited with status 0" in report.errors[0].message and "KeyError" in report.errors[0].message


@pytest.mark.slow
def test_run_prepared_queues_beyond_the_concurrency_limit(tmp_path: Path) -> None:
    import anyio
    from mlsleuth.serving import running

    messages: list[str] = []

    class Ctx:
        async def report_progress(self, progress, total=None, message=None):
            messages.append(message or "")

    reports: list = []

    async def go():
        running._run_limiter = None  # a fresh limiter for this event loop
        async with anyio.create_task_group() as tg:
            for i in range(running.MAX_CONCURRENT_RUNS + 1):
                prepared = _probe(tmp_path / f"run{i}", seconds=1.5)

                async def one(p=prepared):
                    reports.append(await running.run_prepared(p, Ctx(), tool="probe", what="probe"))

                tg.start_soon(one)

    anyio.run(go)
    assert len(reports) == running.MAX_CONCURRENT_RUNS + 1
    assert all(r.findings and r.findings[0].rule == "probe-finished" for r in reports)
    assert any("waiting for another run" in m for m in messages)


# -- stats / measurements trimming ---------------------------------------------------------------------------
def test_bound_drops_oversized_stats_tables_but_keeps_small_ones() -> None:
    report = _report(2)
    report.summary.stats.update({"table": [{"value": i, "mean": i * 0.5, "ci": [0, 1]} for i in range(5000)], "seconds": 1.5})
    page = bound_report(report, max_findings=10, char_budget=40_000)
    assert "table" not in page.summary.stats and page.summary.stats["omitted_stats"] == ["table"]
    assert page.summary.stats["seconds"] == 1.5 and len(page.findings) == 2
    assert page.truncated
    assert len(pydantic_core.to_json(page)) < 40_000


def test_measurements_are_trimmed_largest_first() -> None:
    report = _report(1)
    report.findings[0].measurements = {"step": 3, "op": "aten::exp", "series": list(range(5000))}
    page = bound_report(report, max_findings=5)
    m = page.findings[0].measurements
    assert m["step"] == 3 and m["op"] == "aten::exp" and "series" not in m and m["omitted"] == ["series"]


# -- worker-thread runner ---------------------------------------------------------------------------
def _stoppable_work(stopped, seconds: float):
    import time

    def work(progress):
        steps = int(seconds / 0.01)
        try:
            for i in range(steps):
                progress(i, steps)
                time.sleep(0.01)
        except WorkCancelled:
            stopped.set()
            raise
        return "done"

    return work


def test_run_in_thread_times_out_and_stops_the_worker() -> None:
    import threading

    import anyio

    stopped = threading.Event()
    with pytest.raises(ToolError, match="did not finish within"):
        anyio.run(lambda: run_in_thread(_stoppable_work(stopped, 60), None, timeout_s=0.3, what="scanning"))
    assert stopped.wait(3), "the worker thread kept running after the timeout"


def test_run_in_thread_cancel_stops_the_worker() -> None:
    import threading

    import anyio

    stopped = threading.Event()

    async def go():
        with anyio.move_on_after(0.3):
            await run_in_thread(_stoppable_work(stopped, 60), None, timeout_s=30, what="scanning")

    anyio.run(go)
    assert stopped.wait(3), "the worker thread kept running after the cancel"


def test_run_in_thread_reports_increasing_progress_and_returns() -> None:
    import threading

    import anyio

    sent: list[tuple[float, float | None, str | None]] = []

    class Ctx:
        async def report_progress(self, progress, total=None, message=None):
            sent.append((progress, total, message))

    result = anyio.run(lambda: run_in_thread(_stoppable_work(threading.Event(), 2.5), Ctx(), timeout_s=30, what="scanning", unit="files"))
    assert result == "done"
    assert len(sent) >= 2
    values = [p for p, _, _ in sent]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert all("scanning" in (m or "") for _, _, m in sent)


def test_run_in_thread_passes_tool_errors_through() -> None:
    import anyio

    def work(progress):
        raise ToolError("bad selection")

    with pytest.raises(ToolError, match="bad selection"):
        anyio.run(lambda: run_in_thread(work, None, timeout_s=5, what="x"))


def test_killing_a_stubborn_child_does_not_stall_the_event_loop(tmp_path: Path) -> None:
    """A child that ignores SIGTERM takes the grace period to die; other requests keep being served."""
    import sys
    import time

    import anyio
    from mlsleuth.process_runner import TERM_GRACE_S, ChildRun

    script = tmp_path / "stubborn.py"
    script.write_text("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(600)\n")
    child = ChildRun([sys.executable, str(script)], cwd=tmp_path, timeout_s=120, keep_scratch=True)
    gaps: list[float] = []

    async def ticker():
        last = time.monotonic()
        while True:
            await anyio.sleep(0.05)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    cancelled_at: list[float] = []

    async def go():
        async with anyio.create_task_group() as tg:
            tg.start_soon(ticker)
            async with anyio.create_task_group() as call:
                call.start_soon(child.wait_async)
                with anyio.fail_after(30):  # until the child has installed its handler
                    while not child.stdout_path.exists() or b"ready" not in child.stdout_path.read_bytes():
                        await anyio.sleep(0.02)
                cancelled_at.append(time.monotonic())
                call.cancel_scope.cancel()
            tg.cancel_scope.cancel()

    anyio.run(go)
    assert time.monotonic() - cancelled_at[0] >= TERM_GRACE_S  # the TERM grace period really elapsed
    assert child.proc.poll() is not None
    assert max(gaps) < 1.0, f"the event loop stalled for {max(gaps):.1f}s"
