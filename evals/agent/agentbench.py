"""Shared code of the agent A/B benchmark: cases, diffs, checks and grading.

The command-line entry points are grade.py, verify_cases.py and run_ab.py next to this file.
Only the standard library is used here (check.py scripts need torch, like the projects).
"""
from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

AGENT_DIR = Path(__file__).resolve().parent
CASES_DIR = AGENT_DIR / "cases"

KEY_FIELDS = {
    "id": str, "title": str, "inspired_by_url": str, "category": str, "root_cause": dict, "fix": dict,
    "multi_file": bool, "misleading_symptom": bool, "lines_total": int,
}
CASE_FILES = ["project", "message.md", "answer_key.json", "check.py", "reference_fix.patch"]

# Paths an agent run may leave behind that are not edits of the project.
IGNORED_DIRS = {"__pycache__", "runs", "checkpoints", ".git", ".skills", ".claude", ".pytest_cache", ".mlsleuth_cache",
                ".ipynb_checkpoints", ".mypy_cache", ".ruff_cache", "wandb", "lightning_logs", ".venv"}
IGNORED_FILES = {"ANSWER.md", "agent_report.json", ".agent_report.json"}
SOURCE_SUFFIXES = {".py", ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".md", ".txt", ".sh", ".ipynb"}


# ----------------------------------------------------------------------------------------- cases
@dataclass
class Case:
    dir: Path
    key: dict

    @property
    def id(self) -> str:
        return self.key["id"]

    @property
    def project(self) -> Path:
        return self.dir / "project"

    @property
    def message(self) -> str:
        return (self.dir / "message.md").read_text()


def load_case(case: str | Path) -> Case:
    d = Path(case)
    if not d.is_dir():
        d = CASES_DIR / str(case)
    return Case(d, json.loads((d / "answer_key.json").read_text()))


def all_cases(ids: list[str] | None = None) -> list[Case]:
    dirs = sorted(p for p in CASES_DIR.iterdir() if (p / "answer_key.json").exists())
    cases = [load_case(p) for p in dirs]
    if ids:
        wanted = set(ids)
        unknown = wanted - {c.id for c in cases}
        if unknown:
            raise SystemExit(f"unknown case id(s): {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c.id in wanted]
    return cases


def validate_case(case_dir: Path) -> list[str]:
    """Problems with a case folder (empty list when complete and its key is valid)."""
    problems = []
    for name in CASE_FILES:
        if not (case_dir / name).exists():
            problems.append(f"missing {name}")
    if problems:
        return problems
    try:
        key = json.loads((case_dir / "answer_key.json").read_text())
    except json.JSONDecodeError as e:
        return [f"answer_key.json is not JSON: {e}"]
    for name, typ in KEY_FIELDS.items():
        if not isinstance(key.get(name), typ):
            problems.append(f"key field {name!r} missing or not {typ.__name__}")
    if problems:
        return problems
    if key["id"] != case_dir.name:
        problems.append(f"key id {key['id']!r} != folder name {case_dir.name!r}")
    if not key["inspired_by_url"].startswith("https://"):
        problems.append("inspired_by_url is not an https URL")
    if not isinstance(key.get("audit", False), bool):
        problems.append("audit must be true or false (true: a review request with no symptom)")
    elif key.get("audit") and key["misleading_symptom"]:
        problems.append("an audit case reports no symptom, so misleading_symptom must be false")
    rc, fix = key["root_cause"], key["fix"]
    project = case_dir / "project"
    for name in ("file", "lines", "explanation"):
        if name not in rc:
            problems.append(f"root_cause.{name} missing")
    if "file" in rc and not (project / rc["file"]).is_file():
        problems.append(f"root_cause.file {rc['file']} is not in project/")
    elif "lines" in rc:
        lines = rc["lines"]
        n = len((project / rc["file"]).read_text().splitlines())
        if not (isinstance(lines, list) and len(lines) == 2 and 1 <= lines[0] <= lines[1] <= n):
            problems.append(f"root_cause.lines {lines} not a valid range of {rc['file']} ({n} lines)")
    for extra in rc.get("also", []):
        if not (isinstance(extra, dict) and (project / str(extra.get("file"))).is_file() and isinstance(extra.get("lines"), list)):
            problems.append(f"root_cause.also entry {extra} needs a file in project/ and its lines")
    for group in rc.get("keywords", []):
        if not (isinstance(group, list) and group and all(isinstance(k, str) for k in group)):
            problems.append("root_cause.keywords must be a list of non-empty lists of strings")
    for name in ("description", "must_change", "must_not_change"):
        if name not in fix:
            problems.append(f"fix.{name} missing")
    for rule in fix.get("must_change", []):
        if isinstance(rule, str):
            rule = {"pattern": rule}
        try:
            re.compile(rule["pattern"])
        except (KeyError, re.error) as e:
            problems.append(f"bad must_change rule {rule}: {e}")
        if rule.get("side", "any") not in ("any", "added", "removed"):
            problems.append(f"must_change side must be any/added/removed: {rule}")
    for f in fix.get("must_not_change", []):
        if not (project / f).exists():
            problems.append(f"must_not_change file {f} is not in project/")
        if f == rc.get("file"):
            problems.append(f"must_not_change lists the root-cause file {f}")
    if (case_dir / "project" / "answer_key.json").exists() or (case_dir / "project" / "check.py").exists():
        problems.append("answer key or check.py leaked into project/")
    return problems


# ----------------------------------------------------------------------------------------- diffs
def _source_files(root: Path) -> dict[str, Path]:
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if any(part in IGNORED_DIRS for part in rel.parts[:-1]) or not p.is_file():
            continue
        if rel.name in IGNORED_FILES or p.suffix not in SOURCE_SUFFIXES:
            continue
        if rel.parts and rel.parts[0] in IGNORED_DIRS:
            continue
        out[rel.as_posix()] = p
    return out


@dataclass
class ProjectDiff:
    modified: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    hunks: dict[str, list[str]] = field(default_factory=dict)  # file -> unified diff lines

    @property
    def changed(self) -> list[str]:
        return sorted(self.modified + self.added + self.deleted)

    def text(self) -> str:
        return "".join("".join(self.hunks[f]) for f in sorted(self.hunks))


def diff_projects(original: Path, edited: Path) -> ProjectDiff:
    a, b = _source_files(original), _source_files(edited)
    d = ProjectDiff()
    for rel in sorted(set(a) | set(b)):
        old = a[rel].read_text(errors="replace").splitlines(keepends=True) if rel in a else []
        new = b[rel].read_text(errors="replace").splitlines(keepends=True) if rel in b else []
        if old == new:
            continue
        (d.modified if rel in a and rel in b else d.added if rel in b else d.deleted).append(rel)
        lines = list(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}", n=2))
        d.hunks[rel] = [ln if ln.endswith("\n") else ln + "\n" for ln in lines]
    return d


def rule_matches(rule: dict | str, diff: ProjectDiff) -> bool:
    """A must_change rule holds when its pattern matches an added/removed line of the diff
    (of rule['file'] when given; side 'added', 'removed' or 'any')."""
    if isinstance(rule, str):
        rule = {"pattern": rule}
    pattern, side, file = re.compile(rule["pattern"]), rule.get("side", "any"), rule.get("file")
    for rel, lines in diff.hunks.items():
        if file and rel != file:
            continue
        for ln in lines:
            if ln.startswith(("+++", "---")):
                continue
            if ln.startswith("+") and side in ("added", "any") and pattern.search(ln[1:]):
                return True
            if ln.startswith("-") and side in ("removed", "any") and pattern.search(ln[1:]):
                return True
    return False


def apply_patch(patch_file: Path, target: Path) -> None:
    """Apply a `diff -ruN a b` patch (paths a/..., b/...) inside target."""
    cmds = [["patch", "-p1", "-s", "-i", str(patch_file)], ["git", "apply", "-p1", str(patch_file)]]
    errors = []
    for cmd in cmds:
        if shutil.which(cmd[0]) is None:
            continue
        r = subprocess.run(cmd, check=False, cwd=target, capture_output=True, text=True)
        if r.returncode == 0:
            return
        errors.append(f"{' '.join(cmd)}: {r.stdout}{r.stderr}")
    raise RuntimeError(f"could not apply {patch_file}: {errors or 'neither patch nor git found'}")


def copy_project(case: Case, dest: Path) -> Path:
    shutil.copytree(case.project, dest, ignore=shutil.ignore_patterns("__pycache__", "runs", "checkpoints"))
    return dest


# ----------------------------------------------------------------------------------------- checks
def run_check(case: Case, project_dir: Path, timeout: float = 600) -> dict:
    """Run the case's check.py on a project folder; returns its JSON plus 'error' on failure."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        r = subprocess.run([sys.executable, str(case.dir / "check.py"), str(Path(project_dir).resolve())], check=False,
                           capture_output=True, text=True, timeout=timeout, env=env,
                           cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"pass": False, "error": f"check.py timed out after {timeout}s"}
    for line in reversed(r.stdout.strip().splitlines()):
        try:
            out = json.loads(line)
            if isinstance(out, dict) and "pass" in out:
                return out
        except json.JSONDecodeError:
            continue
    return {"pass": False, "error": f"check.py exit {r.returncode}: {(r.stderr or r.stdout)[-1500:]}"}


# ----------------------------------------------------------------------------------------- grading
_RANGE = r"(\d{1,5})(?:\s*(?:-|–|to|\.\.)\s*L?(\d{1,5}))?"
# "file:12", "file:12-15", "file#L12", "file, line 12", "file (lines 12-15)", "file line 12"
_AFTER = re.compile(r"^[`'\"*]*\s*(?::|#L|,?\s*\(?\s*(?:at\s+|on\s+)?(?:lines?|L)\s*)" + _RANGE, re.IGNORECASE)
# "line 12 of file", "lines 12-15 in `file`"
_BEFORE = re.compile(r"\b(?:lines?|L)\s*" + _RANGE + r"\s*(?:of|in)\s*[`'\"*]*\s*$", re.IGNORECASE)


def _cited_lines(text: str, file: str) -> list[tuple[int, int]]:
    """Line numbers or ranges cited right next to a mention of file (its path or base name)."""
    spans = []
    names = sorted({file, Path(file).name}, key=len, reverse=True)
    for name in names:
        for m in re.finditer(re.escape(name), text, re.IGNORECASE):
            after = _AFTER.match(text[m.end() : m.end() + 40])
            before = _BEFORE.search(text[max(0, m.start() - 40) : m.start()])
            for lm in (after, before):
                if lm:
                    lo = int(lm.group(1))
                    hi = int(lm.group(2)) if lm.group(2) else lo
                    spans.append((min(lo, hi), max(lo, hi)))
    return sorted(set(spans))


def _places(rc: dict) -> list[tuple[str, int, int]]:
    """(file, first line, last line) of the root cause: the key's place, then the ``also`` places."""
    return [(rc["file"], *rc["lines"])] + [(a["file"], *a["lines"]) for a in rc.get("also", [])]


_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$", re.MULTILINE)


def main_finding(answer: str) -> str | None:
    """The text of the answer's "Main finding" section (its heading to the next heading of the
    same or a higher level), or None when the answer has no such heading.

    Audit cases ask for the one most important finding under that heading: an answer that lists
    a dozen concerns must not get credit for a bug it names only in passing."""
    heads = list(_HEADING.finditer(answer or ""))
    for i, h in enumerate(heads):
        if "main finding" in h.group(2).lower():
            level = len(h.group(1))
            end = next((n.start() for n in heads[i + 1:] if len(n.group(1)) <= level), len(answer))
            return answer[h.start():end]
    return None


def grade_root_cause(key: dict, answer: str, line_slack: int = 3) -> dict:
    rc = key["root_cause"]
    text = answer or ""
    graded_on = "answer"
    if key.get("audit"):
        section = main_finding(text)
        if section is not None:
            text, graded_on = section, "main finding"
        else:
            graded_on = "answer (no Main finding section)"
    low = text.lower()
    groups = rc.get("keywords", [])
    concepts = bool(groups) and all(any(k.lower() in low for k in g) for g in groups)
    file_named = location = False
    cited: list[tuple[int, int]] = []
    for file, lo, hi in _places(rc):
        named = file.lower() in low or Path(file).name.lower() in low
        spans = _cited_lines(text, file) if named else []
        at = any(a <= hi + line_slack and b >= lo - line_slack and (b - a) <= 40 for a, b in spans)
        if named and not file_named or at and not location:
            cited = spans
        file_named, location = file_named or named, location or (named and at)
    right = file_named and (location or concepts)
    return {"root_cause_right": right, "file_named": file_named, "line_match": location,
            "concepts_match": concepts, "cited_lines": cited[:20], "graded_on": graded_on,
            "method": "file+line" if location and file_named else "file+keywords" if right else "none"}


def grade_fix(case: Case, workdir: Path, run_checks: bool = True, check_timeout: float = 600) -> dict:
    key = case.key
    diff = diff_projects(case.project, workdir)
    rules = key["fix"]["must_change"]
    rule_results = [rule_matches(r, diff) for r in rules]
    forbidden = sorted(set(key["fix"]["must_not_change"]) & set(diff.changed))
    allowed = {f for f, _, _ in _places(key["root_cause"])} | {r["file"] for r in rules if isinstance(r, dict) and r.get("file")}
    unrelated = sorted(f for f in diff.modified + diff.deleted if f not in allowed)
    check = run_check(case, workdir, check_timeout) if run_checks else {"pass": None, "skipped": True}
    fix_right = bool(diff.changed) and all(rule_results) and not forbidden and check.get("pass") is not False
    if run_checks:
        fix_right = fix_right and check.get("pass") is True
    return {
        "fix_right": fix_right, "must_change": rule_results, "must_not_change_edited": forbidden,
        "no_unrelated_edits": not unrelated, "unrelated_files": unrelated, "new_files": diff.added,
        "changed_files": diff.changed, "check": check, "diff_lines": sum(len(h) for h in diff.hunks.values()),
    }


_TOOL_NAMES = {"bash", "shell", "run_shell_command", "exec", "execute", "terminal", "run", "local_shell",
               "exec_command", "shell_command"}


def count_commands(transcript: str) -> int | None:
    """Shell commands in a transcript: tool calls in a JSON-lines transcript (Claude Code / Codex style
    stream-json), else lines that look like a shell prompt ("$ cmd"). None when nothing is recognisable."""
    if not transcript:
        return None
    n_json, n_tool = 0, 0
    for line in transcript.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        n_json += 1
        n_tool += _count_tool_calls(obj)
    if n_json:
        return n_tool
    prompts = [ln for ln in transcript.splitlines() if re.match(r"^\s*(\$|❯|>>>\s*!)\s+\S", ln)]
    return len(prompts) if prompts else None


def transcript_minutes(transcript: str) -> float | None:
    """Duration reported inside a JSON-lines transcript (e.g. Claude Code's final
    {"type": "result", "duration_ms": ...}); None when absent."""
    for line in reversed((transcript or "").splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("duration_ms"), (int, float)):
            return obj["duration_ms"] / 60000
    return None


def _count_tool_calls(obj) -> int:
    if isinstance(obj, list):
        return sum(_count_tool_calls(o) for o in obj)
    if not isinstance(obj, dict):
        return 0
    n = 0
    kind = str(obj.get("type", "")).lower()
    name = str(obj.get("name", "")).lower()
    if kind in ("tool_use", "function_call", "tool_call", "command_execution") and (
            name in _TOOL_NAMES or kind == "command_execution"):
        n += 1
    for v in obj.values():
        if isinstance(v, (dict, list)):
            n += _count_tool_calls(v)
    return n


def read_self_report(path: Path | None) -> dict:
    if path is None or not Path(path).is_file():
        return {}
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError:
        return {}
    return {k: data[k] for k in ("minutes", "commands") if isinstance(data.get(k), (int, float))}


def grade_run(case: Case, answer: str, workdir: Path, transcript: str = "", self_report: dict | None = None,
              minutes: float | None = None, run_checks: bool = True, line_slack: int = 3,
              check_timeout: float = 600) -> dict:
    rc = grade_root_cause(case.key, answer, line_slack)
    fx = grade_fix(case, Path(workdir), run_checks, check_timeout)
    report = self_report or {}
    cmds = count_commands(transcript)
    return {
        "case": case.id,
        "root_cause_right": rc["root_cause_right"],
        "fix_right": fx["fix_right"],
        "no_unrelated_edits": fx["no_unrelated_edits"],
        "minutes": next((m for m in (minutes, transcript_minutes(transcript), report.get("minutes"))
                         if m is not None), None),
        "commands": cmds if cmds is not None else report.get("commands"),
        "root_cause": rc,
        "fix": fx,
    }


# ----------------------------------------------------------------------------------------- tables
def _pct(xs: list[bool]) -> str:
    return f"{100 * sum(bool(x) for x in xs) / len(xs):.0f}%" if xs else "-"


def _median(xs: list) -> str:
    xs = [x for x in xs if isinstance(x, (int, float))]
    return f"{statistics.median(xs):.1f}" if xs else "-"


def summarize(results: list[dict], cases: dict[str, dict]) -> dict:
    """Aggregates per (case, arm) and per (half, arm), half being multi-file / single-file."""
    def agg(rows):
        return {"n": len(rows),
                "root_cause_right": _pct([r["root_cause_right"] for r in rows]),
                "fix_right": _pct([r["fix_right"] for r in rows]),
                "no_unrelated_edits": _pct([r["no_unrelated_edits"] for r in rows]),
                "median_minutes": _median([r.get("minutes") for r in rows]),
                "median_commands": _median([r.get("commands") for r in rows])}

    arms = sorted({r["arm"] for r in results})
    per_case = {}
    for cid in sorted({r["case"] for r in results}):
        per_case[cid] = {a: agg([r for r in results if r["case"] == cid and r["arm"] == a]) for a in arms}
    halves = {}
    for half, flag in (("multi-file", True), ("single-file", False)):
        halves[half] = {a: agg([r for r in results if r["arm"] == a and cases.get(r["case"], {}).get("multi_file") is flag])
                        for a in arms}
    halves["all"] = {a: agg([r for r in results if r["arm"] == a]) for a in arms}
    return {"arms": arms, "per_case": per_case, "summary": halves}


def markdown_table(summary: dict, cases: dict[str, dict]) -> str:
    """Per case and arm, then per subset (multi-file half, single-file half, all) and arm."""
    cols = ["n", "root_cause_right", "fix_right", "no_unrelated_edits", "median_minutes", "median_commands"]
    titles = ["runs", "root cause right", "fix right", "no unrelated edits", "median minutes", "median commands"]
    out = ["| case | multi-file | misleading | arm | " + " | ".join(titles) + " |", "|---" * (4 + len(cols)) + "|"]
    for cid, by_arm in summary["per_case"].items():
        meta = cases.get(cid, {})
        for arm in summary["arms"]:
            row = [cid, "yes" if meta.get("multi_file") else "no", "yes" if meta.get("misleading_symptom") else "no", arm]
            out.append("| " + " | ".join(row + [str(by_arm[arm][c]) for c in cols]) + " |")
    out += ["", "| subset | arm | " + " | ".join(titles) + " |", "|---" * (2 + len(cols)) + "|"]
    for half, by_arm in summary["summary"].items():
        for arm in summary["arms"]:
            out.append("| " + " | ".join([half, arm] + [str(by_arm[arm][c]) for c in cols]) + " |")
    return "\n".join(out) + "\n"
