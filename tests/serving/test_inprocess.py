"""In-process MCP tests: every tool, resource and prompt through ``mcp.Client``,
over both the current protocol (``mode="auto"`` negotiates 2026-07-28) and the
legacy initialize handshake (``mode="legacy"``)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mlsleuth.catalog import load_all
from mlsleuth.mcp_server import build_server
from mlsleuth.serving import skill_files

HERE = Path(__file__).resolve().parent
MODES = ["auto", "legacy"]

BUGGY = '''\
import torch
import torch.nn.functional as F

def train_step(model, batch, target, optimizer):
    logits = model(batch)
    probs = F.softmax(logits, dim=-1)
    loss = F.cross_entropy(probs, target)
    if loss == float("nan"):
        return None
    loss.backward()
    optimizer.step()
    return loss
'''

CLEAN = '''\
import math

def mean(xs):
    values = [x for x in xs if not math.isnan(x)]
    return sum(values) / len(values)
'''


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "train.py").write_text(BUGGY)
    (root / "src" / "util.py").write_text(CLEAN)
    (tmp_path / "outside.py").write_text(BUGGY)
    (root / "link_out.py").symlink_to(tmp_path / "outside.py")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "leak.py").write_text(BUGGY)
    (root / "linked_dir").symlink_to(tmp_path / "elsewhere")
    return root


@pytest.fixture()
def server(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(project.parent / "cache"))
    monkeypatch.setenv("MLSLEUTH_EXTRA_TOOLS", "probe_tools")
    monkeypatch.syspath_prepend(str(HERE))
    return build_server(project)


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


@pytest.mark.parametrize("mode", MODES)
def test_tools_are_listed_with_schemas_and_honest_annotations(server, mode: str) -> None:
    async def go():
        async with Client(server, mode=mode) as c:
            if mode == "legacy":
                assert c.protocol_version in ("2025-11-25", "2025-06-18", "2025-03-26")
            else:
                assert c.protocol_version == "2026-07-28"
            return {t.name: t for t in (await c.list_tools()).tools}

    tools = run(go)
    assert {"scan", "list_rules", "explain_rule"} <= set(tools)
    for name in ("scan", "list_rules", "explain_rule"):
        tool = tools[name]
        ann = tool.annotations
        assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint) == (True, False, True, False)
        assert tool.output_schema is not None
        assert len(tool.description) > 80 and tool.title
    assert tools["scan"].input_schema["properties"]["max_findings"]["maximum"] == 200


@pytest.mark.parametrize("mode", MODES)
def test_scan_finds_bugs_pages_and_reports_progress(server, mode: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(p, total, message):
        progress.append((p, total, message))

    async def go():
        async with Client(server, mode=mode) as c:
            full = await c.call_tool("scan", {"paths": ["src"]}, progress_callback=on_progress)
            page1 = await c.call_tool("scan", {"paths": ["src"], "max_findings": 1})
            page2 = await c.call_tool("scan", {"paths": ["src"], "max_findings": 1, "offset": 1})
            only = await c.call_tool("scan", {"paths": ["src/train.py"], "select": ["nan-equality-check"]})
            errs = await c.call_tool("scan", {"paths": ["src"], "min_severity": "error", "ignore": ["loss"]})
            clean = await c.call_tool("scan", {"paths": ["src/util.py"]})
            return full, page1, page2, only, errs, clean

    full, page1, page2, only, errs, clean = run(go)
    assert not full.is_error
    report = full.structured_content
    rules = {f["rule"] for f in report["findings"]}
    assert {"softmax-into-logit-loss", "nan-equality-check"} <= rules
    assert all(f["location"]["path"] == "src/train.py" for f in report["findings"])
    assert json.loads(full.content[0].text)["findings"] == _without_none(report["findings"])
    assert page1.structured_content["truncated"] is True
    assert page1.structured_content["summary"]["stats"]["next_offset"] == 1
    assert page2.structured_content["findings"][0]["rule"] == report["findings"][1]["rule"]
    assert {f["rule"] for f in only.structured_content["findings"]} == {"nan-equality-check"}
    assert {f["rule"] for f in errs.structured_content["findings"]} == {"nan-equality-check"}
    assert clean.structured_content["findings"] == [] and not clean.structured_content["truncated"]
    # the scan never writes into the served project (its cache goes to XDG_CACHE_HOME)
    assert not (Path(report["summary"]["stats"]["cache"]).is_relative_to(Path(server_root(server))))


def _without_none(value):
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def server_root(server) -> str:
    # The root the server was built with, as the tools see it (for assertions only).
    return str(Path(os.environ["XDG_CACHE_HOME"]).parent / "project")


def test_scanning_the_root_never_reads_files_outside_it(server, project: Path) -> None:
    """A symlinked folder (and file) inside the root that leads outside it, to code with
    bugs: the scan does not read it, so no finding, and an error entry says why."""
    (project / "src" / "same_code.py").symlink_to(project / "src" / "train.py")  # a link that stays inside is followed

    async def go():
        async with Client(server) as c:
            return await c.call_tool("scan", {})

    report = run(go).structured_content
    paths = {f["location"]["path"] for f in report["findings"]}
    assert paths == {"src/train.py", "src/same_code.py"}  # not link_out.py, not linked_dir/leak.py
    errors = {e["path"]: e for e in report["errors"]}
    assert set(errors) == {"link_out.py", "linked_dir"}
    for error in errors.values():
        assert error["kind"] == "outside-root"
        assert "symbolic link that leads outside the served root; it was not read" in error["message"]
    # nothing about the outside is said: not the findings there, not where the links point
    shown = json.dumps({"findings": report["findings"], "errors": report["errors"], "text": report["summary"]["text"]})
    assert "elsewhere" not in shown and "outside.py" not in shown and str(project.parent) not in shown
    assert "withheld_outside_root" not in report["summary"]["stats"]  # the engine never read them: nothing to withhold


def test_withholding_is_a_second_line_behind_the_engine(tmp_path: Path) -> None:
    """Should the engine ever report a file outside the root, the server still drops it."""
    from mlsleuth.report import ErrorEntry, Finding, Location, Report
    from mlsleuth.serving.paths import withhold_outside

    root = tmp_path / "root"
    root.mkdir()
    (root / "in.py").write_text("x = 1\n")
    (tmp_path / "secret.py").write_text("x = 1\n")
    (root / "out.py").symlink_to(tmp_path / "secret.py")

    def finding(path):
        return Finding(rule="r", category="loss", severity="error", message="m", location=Location(path=path, line=1))

    report = Report(
        tool="scan",
        findings=[finding("in.py"), finding("out.py"), finding(str(tmp_path / "secret.py"))],
        errors=[ErrorEntry(kind="syntax-error", message="bad", path="out.py"),
                ErrorEntry(kind="outside-root", message=f"resolves to {tmp_path / 'secret.py'}", path="out.py", detail=str(tmp_path))],
    ).finalize()
    assert withhold_outside(report, root) == 3
    assert [f.location.path for f in report.findings] == ["in.py"]
    assert [(e.kind, e.path) for e in report.errors] == [("outside-root", "out.py")]
    assert str(tmp_path) not in report.errors[0].message and report.errors[0].detail is None
    assert report.summary.stats["withheld_outside_root"] == 3


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"paths": ["../outside.py"]}, "outside the served root"),
        ({"paths": ["link_out.py"]}, "outside the served root"),
        ({"paths": ["/etc/passwd"]}, "absolute path outside the served root"),
        ({"paths": ["src/\u0000x.py"]}, "NUL byte"),
        ({"paths": ["src/missing.py"]}, "does not exist"),
        ({"paths": 3}, "valid list"),
        ({"max_findings": 0}, "max_findings"),
        ({"select": ["no-such-rule"]}, "unknown rule or category"),
        ({"paths": ["src"], "offset": 999}, "past the last finding"),
    ],
)
def test_scan_refuses_bad_input_with_actionable_errors(server, mode: str, args: dict, needle: str) -> None:
    async def go():
        async with Client(server, mode=mode) as c:
            return await c.call_tool("scan", args)

    result = run(go)
    assert result.is_error
    assert needle in result.content[0].text


@pytest.mark.parametrize("mode", MODES)
def test_rules_tools(server, mode: str) -> None:
    docs = load_all()
    some_id = next(iter(docs))

    async def go():
        async with Client(server, mode=mode) as c:
            everything = await c.call_tool("list_rules", {})
            loss = await c.call_tool("list_rules", {"category": "loss"})
            scan_only = await c.call_tool("list_rules", {"tool": "scan"})
            bad_tool = await c.call_tool("list_rules", {"tool": "lint"})
            bad_cat = await c.call_tool("list_rules", {"category": "vibes"})
            one = await c.call_tool("explain_rule", {"rule_id": some_id})
            typo = await c.call_tool("explain_rule", {"rule_id": "nan-equality"})
            empty = await c.call_tool("explain_rule", {"rule_id": ""})
            twin = await c.call_tool("explain_rule", {"rule_id": "missing-zero-grad"})
            return everything, loss, scan_only, bad_tool, bad_cat, one, typo, empty, twin

    everything, loss, scan_only, bad_tool, bad_cat, one, typo, empty, twin = run(go)
    assert twin.structured_content["same_bug_as"] == ["zero-grad-missing"]
    ids = list(everything.structured_content["rules"])
    assert ids == list(docs) and everything.structured_content["count"] == len(docs)
    assert loss.structured_content["rules"] and all(docs[i].category == "loss" for i in loss.structured_content["rules"])
    assert all(docs[i].tool == "scan" for i in scan_only.structured_content["rules"])
    assert bad_tool.is_error and "use one of" in bad_tool.content[0].text
    assert bad_cat.is_error
    assert one.structured_content["how_to_confirm"] == docs[some_id].confirm
    assert typo.is_error and "nan-equality-check" in typo.content[0].text
    assert empty.is_error


@pytest.mark.parametrize("mode", MODES)
def test_every_skill_file_and_rule_doc_is_a_resource(server, mode: str) -> None:
    docs = skill_files.list_docs()
    rule_docs = load_all()

    async def go():
        async with Client(server, mode=mode) as c:
            listed = {str(r.uri): r for r in (await c.list_resources()).resources}
            templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
            bodies = {}
            for doc in docs:
                res = await c.read_resource(doc.uri)
                bodies[doc.uri] = res.contents[0]
            rule_id = next(iter(rule_docs))
            rule = await c.read_resource(f"mlsleuth://rules/{rule_id}")
            errors = {}
            for uri in ("mlsleuth://refs/no-such-chapter", "mlsleuth://rules/no-such-rule", "mlsleuth://refs/..%2F..%2Fpyproject", "mlsleuth://nope"):
                try:
                    await c.read_resource(uri)
                except Exception as exc:  # noqa: BLE001 - the client raises MCPError
                    errors[uri] = str(exc)
            return listed, templates, bodies, rule_id, rule, errors

    listed, templates, bodies, rule_id, rule, errors = run(go)
    assert {d.uri for d in docs} <= set(listed)
    assert "mlsleuth://skill" in listed
    assert {"mlsleuth://refs/{name}", "mlsleuth://rl/{name}", "mlsleuth://pinn/{name}", "mlsleuth://rules/{rule_id}"} <= templates
    for doc in docs:
        assert bodies[doc.uri].text == doc.path.read_text(encoding="utf-8")
        assert bodies[doc.uri].mime_type == "text/markdown"
    assert rule.contents[0].text.startswith(f"# `{rule_id}`")
    assert "How to confirm" in rule.contents[0].text
    assert set(errors) == {"mlsleuth://refs/no-such-chapter", "mlsleuth://rules/no-such-rule", "mlsleuth://refs/..%2F..%2Fpyproject", "mlsleuth://nope"}
    assert "available:" in errors["mlsleuth://refs/no-such-chapter"]
    assert "list_rules" in errors["mlsleuth://rules/no-such-rule"]


def test_chapters_added_after_start_are_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    skill = tmp_path / "skill"
    (skill / "refs").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: mlsleuth\ndescription: d\n---\n# S\n")
    monkeypatch.setenv(skill_files.SKILL_DIR_ENV, str(skill))
    srv = build_server(project)
    (skill / "refs" / "late.md").write_text("# Late chapter\n")

    async def go():
        async with Client(srv) as c:
            return (await c.read_resource("mlsleuth://refs/late")).contents[0].text

    assert run(go) == "# Late chapter\n"


def test_missing_skill_files_give_a_clear_resource_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(skill_files.SKILL_DIR_ENV, str(empty))
    srv = build_server(project)

    async def go():
        async with Client(srv) as c:
            with pytest.raises(Exception, match="does not contain SKILL.md"):
                await c.read_resource("mlsleuth://skill")
            return await c.call_tool("list_rules", {})

    assert not run(go).is_error  # the tools still work


@pytest.mark.parametrize("mode", MODES)
def test_debug_training_prompt(server, mode: str) -> None:
    async def go():
        async with Client(server, mode=mode) as c:
            prompts = {p.name: p for p in (await c.list_prompts()).prompts}
            with_path = await c.get_prompt("debug_training", {"symptom": "loss stuck at 2.30", "code_path": "src/train.py"})
            without = await c.get_prompt("debug_training", {"symptom": "NaN after 300 steps"})
            return prompts, with_path, without

    prompts, with_path, without = run(go)
    args = {a.name: a for a in prompts["debug_training"].arguments}
    assert args["symptom"].required and not args["code_path"].required
    text = with_path.messages[0].content.text
    assert "loss stuck at 2.30" in text and "`src/train.py`" in text
    for step in ("scan", "hypothes", "cheapest", "explain_rule"):
        assert step in text
    steps = [text.index(f"\n{n}. ") for n in range(1, 6)]
    assert steps == sorted(steps)
    assert "Collect clues" in text[steps[0] : steps[1]]
    assert "hypotheses" in text[steps[1] : steps[2]]
    assert "cheapest" in text[steps[2] : steps[3]]
    assert "change code" in text[steps[4] :]
    assert "NaN after 300 steps" in without.messages[0].content.text


# -- the generic runner for user-code tools (PreparedRun) -----------------------------------------
def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.parametrize("mode", MODES)
def test_prepared_run_success_failure_and_progress(server, mode: str, tmp_path: Path) -> None:
    events: list[float] = []

    async def on_progress(p, total, message):
        events.append(p)

    async def go():
        async with Client(server, mode=mode) as c:
            (tmp_path / "ok").mkdir()
            (tmp_path / "bad").mkdir()
            ok = await c.call_tool("probe_child", {"workdir": str(tmp_path / "ok"), "seconds": 1.6}, progress_callback=on_progress)
            bad = await c.call_tool("probe_child", {"workdir": str(tmp_path / "bad"), "seconds": 0.2, "mode": "fail"})
            return ok, bad

    ok, bad = run(go)
    assert not ok.is_error and ok.structured_content["findings"][0]["measurements"] == {"steps": 16}
    assert events and events == sorted(events) and len(set(events)) == len(events)
    assert not bad.is_error  # a crash of user code is a report, not a tool failure
    err = bad.structured_content["errors"][0]
    assert "exited with status 1" in err["message"] and "user code exploded" in err["detail"]


@pytest.mark.parametrize("mode", MODES)
def test_cancelling_a_prepared_run_kills_the_process_group(server, mode: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids.txt"

    async def go():
        async with Client(server, mode=mode) as c:
            with anyio.move_on_after(30) as outer:
                async with anyio.create_task_group() as tg:
                    async def call():
                        await c.call_tool("probe_child", {"workdir": str(tmp_path), "seconds": 60})

                    tg.start_soon(call)
                    while not pidfile.exists():
                        await anyio.sleep(0.05)
                    tg.cancel_scope.cancel()
            assert not outer.cancel_called
            # the server keeps serving after the cancel
            return await c.call_tool("list_rules", {"tool": "scan"})

    after = run(go)
    assert not after.is_error
    pids = [int(p) for p in pidfile.read_text().split()]
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), f"still running: {[p for p in pids if _alive(p)]}"


def test_prepared_run_timeout_becomes_a_report(server, tmp_path: Path) -> None:
    async def go():
        async with Client(server) as c:
            return await c.call_tool("probe_child", {"workdir": str(tmp_path), "seconds": 30, "timeout_s": 0.8})

    result = run(go)
    assert not result.is_error
    assert "timed out" in result.structured_content["errors"][0]["message"]
    pids = [int(p) for p in (tmp_path / "pids.txt").read_text().split()]
    time.sleep(0.3)
    assert not any(_alive(p) for p in pids)


def test_heavy_modules_are_not_imported_by_the_server() -> None:
    import subprocess

    code = (
        "import sys; from mlsleuth.cli import build_parser; build_parser(); "
        "from mlsleuth.mcp_server import build_server; build_server('.'); "
        "heavy = [m for m in ('torch', 'numpy', 'scipy', 'matplotlib', 'pandas') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_scan_with_hundreds_of_findings_stays_within_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "big"
    root.mkdir()
    for i in range(120):
        (root / f"m{i:03d}.py").write_text(BUGGY)  # 2+ findings each
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    srv = build_server(root)

    async def go():
        async with Client(srv) as c:
            pages, offset = [], 0
            while True:
                r = await c.call_tool("scan", {"max_findings": 200, "offset": offset})
                pages.append(r)
                stats = r.structured_content["summary"]["stats"]
                if not r.structured_content["truncated"]:
                    return pages
                offset = stats["next_offset"]

    pages = run(go)
    total = pages[0].structured_content["summary"]["stats"]["total_findings"]
    assert total >= 240 and len(pages) >= 2
    seen = [(f["location"]["path"], f["location"]["line"], f["rule"]) for p in pages for f in p.structured_content["findings"]]
    assert len(seen) == total and len(set(seen)) == total  # every finding exactly once
    for p in pages:
        structured = len(json.dumps(p.structured_content, separators=(",", ":")))
        assert structured <= 41_000
        assert len(p.content[0].text) < structured  # the text copy omits empty fields


@pytest.mark.parametrize("mode", MODES)
def test_template_arguments_complete(server, mode: str) -> None:
    from mcp.types import ResourceTemplateReference

    chapters = sorted(d.name for d in skill_files.list_docs() if d.section == "refs")
    rule_ids = list(load_all())

    async def go():
        async with Client(server, mode=mode) as c:
            refs = await c.complete(ResourceTemplateReference(type="ref/resource", uri="mlsleuth://refs/{name}"), {"name": "name", "value": ""})
            rules = await c.complete(ResourceTemplateReference(type="ref/resource", uri="mlsleuth://rules/{rule_id}"), {"name": "rule_id", "value": "nan-"})
            return refs, rules

    refs, rules = run(go)
    assert sorted(refs.completion.values) == chapters
    assert rules.completion.values == [r for r in rule_ids if r.startswith("nan-")] and rules.completion.values
