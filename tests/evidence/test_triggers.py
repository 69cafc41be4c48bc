"""docs/evidence/trigger_cases.json: requests for evaluating when the skill should load.

The file is for running against a real agent (docs/evidence/eval_triggers.py does
that with any agent CLI); these tests keep it well formed, keep the two lists
from overlapping or drifting away from the description, and check the
evaluation script's scoring with a fake agent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "docs" / "evidence" / "trigger_cases.json"


def load():
    return json.loads(CASES.read_text(encoding="utf-8"))


def test_shape_and_size():
    data = load()
    assert set(data) == {"about", "should_trigger", "should_not_trigger"}
    for key in ("should_trigger", "should_not_trigger"):
        cases = data[key]
        assert len(cases) >= 20, f"{key}: need at least 20 cases"
        assert all(isinstance(c, str) and 15 <= len(c) <= 300 for c in cases), key
        assert len({c.strip().lower() for c in cases}) == len(cases), f"{key}: duplicates"


def test_lists_do_not_overlap():
    data = load()
    assert not {c.lower() for c in data["should_trigger"]} & {c.lower() for c in data["should_not_trigger"]}


def test_positive_cases_cover_the_symptoms_the_description_names():
    text = " ".join(load()["should_trigger"]).lower()
    for symptom in ("nan", "not decreasing", "2.302", "diverges", "validation", "seed", "sweep",
                    "audit", "ppo", "physics-informed", "stuck"):
        assert symptom in text, f"no trigger case for {symptom!r}"


def test_near_misses_are_ml_adjacent_not_only_unrelated():
    misses = " ".join(load()["should_not_trigger"]).lower()
    for topic in ("pytorch", "model", "tokenizer", "checkpoint"):
        assert topic in misses, f"near misses should include ordinary {topic} work"


# --------------------------------------------------------------------------- the evaluation script

SCRIPT = ROOT / "docs" / "evidence" / "eval_triggers.py"

FAKE_AGENT = r'''
import re, sys
prompt = sys.stdin.read()
request = re.search(r"<<<\n(.*)\n>>>", prompt, re.S).group(1).lower()
print("YES" if ("loss" in request or "nan" in request) else "No, not needed.")
'''


def run_script(*args, timeout=120):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_dry_run_prints_one_question_per_case():
    run = run_script("--dry-run")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    data = load()
    assert len(lines) == len(data["should_trigger"]) + len(data["should_not_trigger"])
    assert all("Skill name: mlsleuth" in q["prompt"] and q["request"] in q["prompt"] for q in lines)


def test_scores_a_fake_agent_exactly(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(FAKE_AGENT, encoding="utf-8")
    run = run_script("--agent", f"{sys.executable} {agent}")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout[run.stdout.index("{"):])
    data = load()

    def says_yes(request):
        return "loss" in request.lower() or "nan" in request.lower()

    assert summary["loaded_when_it_should"] == sum(says_yes(r) for r in data["should_trigger"])
    assert summary["left_alone_when_it_should"] == sum(not says_yes(r) for r in data["should_not_trigger"])
    assert summary["unparsed_or_failed"] == 0


def test_failing_agent_is_counted_not_crashed(tmp_path):
    agent = tmp_path / "broken.py"
    agent.write_text("import sys; sys.exit(3)\n", encoding="utf-8")
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"should_trigger": ["loss is nan"], "should_not_trigger": ["write a sql query"]}))
    run = run_script("--agent", f"{sys.executable} {agent}", "--cases", str(cases))
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout[run.stdout.index("{"):])
    assert summary["unparsed_or_failed"] == 2 and summary["recall"] == 0.0


def test_missing_agent_command_is_a_clear_error():
    run = run_script("--agent", "no-such-agent-command-xyz")
    assert run.returncode == 2 and "cannot start the agent command" in run.stderr
    run = run_script()
    assert run.returncode == 2 and "--agent" in run.stderr
