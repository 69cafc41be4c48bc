"""The agent A/B benchmark in evals/agent/: case folders, answer keys, grader and harness."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

AGENT_DIR = Path(__file__).resolve().parents[2] / "evals" / "agent"
sys.path.insert(0, str(AGENT_DIR))

import agentbench as bench

CASE_IDS = sorted(p.name for p in bench.CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith("."))  # not a cache a scan left


def test_enough_cases_and_half_multi_file():
    cases = bench.all_cases()
    assert len(cases) >= 12
    multi = [c for c in cases if c.key["multi_file"]]
    assert len(multi) * 2 >= len(cases)
    assert all(c.key["lines_total"] >= 300 for c in multi)
    assert sum(c.key["misleading_symptom"] for c in cases) >= 4
    assert len({c.key["category"] for c in cases}) == len(cases)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_folder_complete_and_key_valid(case_id):
    case_dir = bench.CASES_DIR / case_id
    assert bench.validate_case(case_dir) == []
    case = bench.load_case(case_dir)
    assert case.message.strip()
    counted = sum(len(p.read_text().splitlines()) for p in case.project.rglob("*")
                  if p.is_file() and p.suffix in {".py", ".yaml", ".yml", ".md", ".json", ".txt", ".cfg", ".toml"}
                  and "__pycache__" not in p.parts)
    assert counted == case.key["lines_total"]
    n_py = len(list(case.project.rglob("*.py")))
    assert (n_py > 1) == case.key["multi_file"]


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_keywords_accept_the_explanation_and_reject_the_users_theory(case_id):
    key = bench.load_case(case_id).key
    f = key["root_cause"]["file"]
    assert bench.grade_root_cause(key, f"In {f}: {key['root_cause']['explanation']}")["root_cause_right"]
    message = bench.load_case(case_id).message
    assert not bench.grade_root_cause(key, f"I looked at {f}. {message}")["root_cause_right"]


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_reference_fix_applies_and_meets_the_key(case_id, tmp_path):
    case = bench.load_case(case_id)
    work = bench.copy_project(case, tmp_path / "work")
    bench.apply_patch(case.dir / "reference_fix.patch", work)
    fx = bench.grade_fix(case, work, run_checks=False)
    assert all(fx["must_change"]), fx
    assert fx["must_not_change_edited"] == []
    assert fx["no_unrelated_edits"], fx["unrelated_files"]


def test_root_cause_grading():
    key = bench.load_case("softmax-into-ce").key
    f, (lo, hi) = key["root_cause"]["file"], key["root_cause"]["lines"]
    assert bench.grade_root_cause(key, f"Bug at {f}:{lo}.")["root_cause_right"]
    assert bench.grade_root_cause(key, f"See line {hi} of {f}.")["root_cause_right"]
    assert not bench.grade_root_cause(key, f"Bug at {f}:{hi + 40}.")["root_cause_right"]
    assert not bench.grade_root_cause(key, "The learning rate is too low.")["root_cause_right"]
    by_concept = bench.grade_root_cause(key, f"In {f} the model applies softmax before CrossEntropyLoss.")
    assert by_concept["root_cause_right"] and by_concept["method"] == "file+keywords"

    focal = bench.load_case("focal-loss-nan").key
    lo = focal["root_cause"]["lines"][0]
    for cite in (f"`tagger/losses.py:{lo}`", f"losses.py, line {lo}", f"line {lo} of `tagger/losses.py`",
                 f"tagger/losses.py (lines {lo}-{lo + 1})", f"[losses.py#L{lo}](x)"):
        assert bench.grade_root_cause(focal, f"The bug: {cite}.")["line_match"], cite
    blames_lr = f"tagger/losses.py looks fine; the LR set at train.py line {lo + 2} is too high."
    assert not bench.grade_root_cause(focal, blames_lr)["root_cause_right"]


def test_fix_grading_flags_forbidden_and_unrelated_edits(tmp_path):
    case = bench.load_case("charlm-causal-mask")
    work = bench.copy_project(case, tmp_path / "work")
    bench.apply_patch(case.dir / "reference_fix.patch", work)
    data = work / "charlm" / "data.py"
    data.write_text(data.read_text() + "\n# touched\n")
    (work / "debug_mask.py").write_text("print('debug')\n")
    (work / "runs").mkdir()
    (work / "runs" / "metrics.json").write_text("{}")
    fx = bench.grade_fix(case, work, run_checks=False)
    assert fx["must_not_change_edited"] == ["charlm/data.py"]
    assert fx["unrelated_files"] == ["charlm/data.py"]
    assert fx["new_files"] == ["debug_mask.py"]
    assert not fx["fix_right"]


def test_unfixed_project_is_not_a_fix(tmp_path):
    case = bench.load_case("zero-grad-order")
    work = bench.copy_project(case, tmp_path / "work")
    fx = bench.grade_fix(case, work, run_checks=False)
    assert not fx["fix_right"] and fx["changed_files"] == []


def test_count_commands():
    jsonl = "\n".join(json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": n, "input": {}}]}}) for n in ["Bash", "Read", "Bash"])
    assert bench.count_commands(jsonl) == 2
    assert bench.count_commands("$ python train.py\nok\n$ ls\n") == 2
    assert bench.count_commands("no commands here") is None
    assert bench.transcript_minutes(jsonl + "\n" + json.dumps({"type": "result", "duration_ms": 90000})) == 1.5
    assert bench.transcript_minutes("plain text") is None


@pytest.mark.slow
def test_harness_with_oracle_and_null_agents(tmp_path):
    import run_ab

    oracle = f"{sys.executable} {AGENT_DIR / 'tools' / 'oracle_agent.py'} {{case}} {{workdir}}"
    out = tmp_path / "oracle"
    run_ab.main(["--agent-cmd", oracle, "--cases", "softmax-into-ce", "--arm", "skill", "--arm", "plain",
                 "--no-check", "--out", str(out)])
    res = json.loads((out / "results.json").read_text())
    assert len(res["results"]) == 2
    assert all(r["root_cause_right"] and r["fix_right"] for r in res["results"])
    assert res["summary"]["single-file"]["skill"]["fix_right"] == "100%"
    assert "| softmax-into-ce |" in (out / "results.md").read_text()

    out_null = tmp_path / "null"
    run_ab.main(["--agent-cmd", oracle + " --null", "--cases", "softmax-into-ce", "--arm", "plain",
                 "--no-check", "--out", str(out_null)])
    res = json.loads((out_null / "results.json").read_text())
    assert not res["results"][0]["root_cause_right"] and not res["results"][0]["fix_right"]

    regraded = tmp_path / "regraded"
    shutil.copytree(out / "runs", tmp_path / "finished")
    run_ab.main(["--grade-dir", str(tmp_path / "finished"), "--no-check", "--out", str(regraded)])
    res = json.loads((regraded / "results.json").read_text())
    assert sorted(r["arm"] for r in res["results"]) == ["plain", "skill"]
    assert all(r["fix_right"] for r in res["results"])


@pytest.mark.slow
def test_prepared_runs_for_outside_agents_are_graded_with_their_bookkept_minutes(tmp_path):
    import run_ab

    prepared = tmp_path / "prepared"
    run_ab.main(["--prepare-dir", str(prepared), "--cases", "softmax-into-ce", "--runs", "1",
                 "--mlsleuth-cmd", f"{sys.executable} -m mlsleuth"])
    skill, plain = prepared / "softmax-into-ce__skill__1", prepared / "softmax-into-ce__plain__1"
    skill_prompt, plain_prompt = (skill / "prompt.md").read_text(), (plain / "prompt.md").read_text()
    assert "mlsleuth (" in skill_prompt and "SKILL.md" in skill_prompt and "mlsleuth" not in plain_prompt
    assert (skill / "work" / ".claude" / "skills" / "mlsleuth" / "SKILL.md").is_file()
    assert str(skill / "t0") in skill_prompt and "fault classifier" in plain_prompt
    # an "agent" that applies the reference fix, answers, and keeps the timestamps the prompt asks for
    for run in (skill, plain):
        bench.apply_patch(AGENT_DIR / "cases" / "softmax-into-ce" / "reference_fix.patch", run / "work")
        (run / "work" / "ANSWER.md").write_text("train_classifier.py:30 ends the model in nn.Softmax before CrossEntropyLoss")
        (run / "t0").write_text("1000\n")
        (run / "t1").write_text("1090\n")
    out = tmp_path / "graded"
    run_ab.main(["--grade-dir", str(prepared), "--no-check", "--out", str(out)])
    res = json.loads((out / "results.json").read_text())
    assert sorted(r["arm"] for r in res["results"]) == ["plain", "skill"]
    assert all(r["root_cause_right"] and r["fix_right"] and r["minutes"] == 1.5 for r in res["results"])


@pytest.mark.slow
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_shows_symptom_and_reference_fix_removes_it(case_id):
    import verify_cases

    result = verify_cases.verify(bench.load_case(case_id))
    assert result["ok"], result


def test_root_cause_also_places_count():
    # a root cause that lives in two files: naming the partner file with its lines counts, an unrelated one does not
    key = {"root_cause": {"file": "pkg/model.py", "lines": [26, 27], "keywords": [["batch_first"]],
                          "also": [{"file": "pkg/layers.py", "lines": [81, 85]}]}}
    assert bench.grade_root_cause(key, "The default in pkg/layers.py:81 is the cause.")["root_cause_right"]
    assert bench.grade_root_cause(key, "layers.py keeps batch_first off by default.")["method"] == "file+keywords"
    assert not bench.grade_root_cause(key, "The cause is in pkg/layers.py:140.")["root_cause_right"]
    assert not bench.grade_root_cause(key, "pkg/train.py:81 sets batch_first wrong.")["root_cause_right"]
    assert bench.grade_root_cause(key, "pkg/model.py:27 builds the blocks.")["line_match"]


def test_audit_answers_are_graded_on_their_main_finding_alone():
    # a review request has no symptom, so an answer could list every suspicion it has: only the
    # finding the agent puts first counts, and a bug named in passing under other observations does not
    key = {"audit": True, "root_cause": {"file": "pkg/data.py", "lines": [40, 41], "keywords": [["split"]]}}
    first = "## Main finding\n\npkg/data.py:40 splits rows before grouping by patient.\n\n## Other observations\n\nnone\n"
    graded = bench.grade_root_cause(key, first)
    assert graded["root_cause_right"] and graded["graded_on"] == "main finding"
    in_passing = ("# Review\n\n## Main finding\n\nThe LR in pkg/config.py:12 is high.\n\n"
                  "## Other observations\n\n- pkg/data.py:40 splits rows; maybe fine.\n")
    assert not bench.grade_root_cause(key, in_passing)["root_cause_right"]
    # a deeper heading inside the main finding stays part of it
    nested = "## Main finding\n\nSee below.\n\n### Where\n\npkg/data.py:41\n\n## Other observations\n\n"
    assert bench.grade_root_cause(key, nested)["root_cause_right"]
    # with no such section the whole answer is read, and the grade says so
    loose = bench.grade_root_cause(key, "pkg/data.py:40 is wrong.")
    assert loose["root_cause_right"] and loose["graded_on"].startswith("answer (no Main finding")
    # a case that is not an audit keeps reading the whole answer
    assert bench.grade_root_cause({**key, "audit": False}, in_passing)["root_cause_right"]


def test_audit_cases_get_the_review_instructions():
    import run_ab

    class Fake:
        message = "Please review the training code before the long run."

        def __init__(self, audit):
            self.key = {"audit": audit}

    assert "## Main finding" in run_ab.build_prompt(Fake(True))
    assert "## Main finding" not in run_ab.build_prompt(Fake(False))
    assert "root cause (file and line numbers)" in run_ab.build_prompt(Fake(False))
