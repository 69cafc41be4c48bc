"""A/B harness: run an agent CLI on the benchmark cases with and without the mlsleuth skill.

Run mode (default):

    python evals/agent/run_ab.py --agent-cmd 'claude -p "$(cat {prompt_file})" --output-format stream-json --verbose' \
        --arm skill --arm plain --runs 3 --out evals/agent/results/claude

Placeholders in --agent-cmd (substituted shell-quoted, the command runs through bash in the workdir):
    {prompt_file}  file holding the prompt (the user's message plus the answer instructions)
    {workdir}      the run's fresh copy of the case's project/ (also the command's cwd)
    {answer_file}  where the agent should write its final answer ({workdir}/ANSWER.md)
    {case}, {arm}, {run}  case id, arm name, run index

Arms: `skill` installs the mlsleuth skill into the workdir first (`mlsleuth install-skill --dest
{workdir}/<skill-dest>`, default .claude/skills, where Claude Code looks for project skills);
`plain` installs nothing and, unless --plain-cli keep, puts a stub `mlsleuth` that fails first on PATH.

Every run: copy project/ to <out>/runs/<case>__<arm>__<n>/work, write the prompt, run the command
with a timeout, keep stdout+stderr as transcript.txt, take the answer from ANSWER.md (or the
transcript's tail), grade, and append to <out>/results.json; <out>/results.md has the table.

Grade-only mode, for runs done by hand or by other agent systems:

    python evals/agent/run_ab.py --grade-dir DIR [--out OUT]

DIR holds one folder per run named <case>__<arm>__<n> (or any name with a meta.json
{"case": ..., "arm": ...}) containing work/ (the edited project), answer.md or work/ANSWER.md,
optionally transcript.* and report.json ({"minutes": ..., "commands": ...}).
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agentbench import (
    all_cases,
    copy_project,
    grade_run,
    load_case,
    markdown_table,
    read_self_report,
    summarize,
)

ANSWER_INSTRUCTIONS = """

---
You are working in a copy of the user's project (the current directory). Investigate, fix the
problem in the code, and check your fix by running the project. When you are done, write your final
answer to {answer_name} in the project root: the root cause (file and line numbers), why it
produces the symptom, and what you changed. Optionally also write agent_report.json with
{{"minutes": <minutes spent>, "commands": <shell commands run>}}.
"""

AUDIT_INSTRUCTIONS = """

---
You are working in a copy of the user's project (the current directory). Review it as the user asks.
If you find a bug that changes the results, fix it in the code and check your fix by running the
project. When you are done, write your final answer to {answer_name} in the project root. Start it
with a section headed `## Main finding`: the one problem you are most confident changes the results
(file and line numbers, why it matters, what you changed), or that you found none. Put anything else
under `## Other observations`. Optionally also write agent_report.json with
{{"minutes": <minutes spent>, "commands": <shell commands run>}}.
"""

STUB = "#!/bin/sh\necho 'mlsleuth: command not found' >&2\nexit 127\n"


def build_prompt(case, answer_name: str = "ANSWER.md") -> str:
    """The user's message and the answer instructions: a review request (an audit case, which reports
    no symptom) asks for the main finding first, so the grader reads that section alone."""
    instructions = AUDIT_INSTRUCTIONS if case.key.get("audit") else ANSWER_INSTRUCTIONS
    return case.message.rstrip() + instructions.format(answer_name=answer_name)


def install_skill(workdir: Path, dest: str, cmd: str) -> None:
    target = workdir / dest
    r = subprocess.run(shlex.split(cmd) + ["install-skill", "--dest", str(target)], check=False,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"skill install failed: {r.stdout}{r.stderr}")


def read_answer(run_dir: Path, transcript: str) -> str:
    for p in (run_dir / "answer.md", run_dir / "work" / "ANSWER.md", run_dir / "ANSWER.md"):
        if p.is_file():
            return p.read_text(errors="replace")
    return transcript[-6000:]


def read_transcript(run_dir: Path) -> str:
    for p in sorted(run_dir.glob("transcript*")):
        if p.is_file():
            return p.read_text(errors="replace")
    return ""


def run_one(case, arm: str, index: int, args, out: Path) -> dict:
    run_dir = out / "runs" / f"{case.id}__{arm}__{index}"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    workdir = copy_project(case, run_dir / "work")
    if args.git_init:
        subprocess.run("git init -q && git add -A && git -c user.email=bench@local -c user.name=bench "
                       "commit -qm initial", shell=True, cwd=workdir, check=False)
    env = dict(os.environ)
    if arm == "skill":
        install_skill(workdir, args.skill_dest, args.mlsleuth_cmd)
    elif args.plain_cli == "hide":
        stub_dir = run_dir / "stub-bin"
        stub_dir.mkdir()
        (stub_dir / "mlsleuth").write_text(STUB)
        (stub_dir / "mlsleuth").chmod(0o755)
        env["PATH"] = f"{stub_dir}{os.pathsep}{env.get('PATH', '')}"
    prompt_file = run_dir / "prompt.md"
    prompt_file.write_text(build_prompt(case))
    answer_file = workdir / "ANSWER.md"
    subs = {"prompt_file": prompt_file, "workdir": workdir, "answer_file": answer_file,
            "case": case.id, "arm": arm, "run": index}
    command = args.agent_cmd.format(**{k: shlex.quote(str(v)) for k, v in subs.items()})
    (run_dir / "meta.json").write_text(json.dumps({"case": case.id, "arm": arm, "run": index, "command": command}))
    t0 = time.time()
    timed_out = False
    with open(run_dir / "transcript.txt", "w") as tf:
        try:
            proc = subprocess.run(["bash", "-c", command], check=False, cwd=workdir, env=env, stdout=tf,
                                  stderr=subprocess.STDOUT, timeout=args.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc, timed_out = None, True
    minutes = (time.time() - t0) / 60
    meta = json.loads((run_dir / "meta.json").read_text())
    meta.update({"minutes": minutes, "exit_code": rc, "timed_out": timed_out})
    (run_dir / "meta.json").write_text(json.dumps(meta, indent=2))
    if arm == "skill":
        shutil.rmtree(workdir / args.skill_dest, ignore_errors=True)
    result = grade_dir(run_dir, case, arm, minutes=minutes, args=args)
    result.update({"run": index, "exit_code": rc, "timed_out": timed_out})
    return result


def skills_listing(skills_root: Path) -> str:
    """The installed skills as an agent's harness lists them: name, where its SKILL.md is, and description."""
    lines = []
    for skill_md in sorted(skills_root.glob("*/SKILL.md")):
        fields = {}
        for line in skill_md.read_text().split("---")[1].splitlines():
            key, _, value = line.partition(":")
            if value:
                fields[key.strip()] = value.strip()
        lines.append(f"- {fields.get('name', skill_md.parent.name)} ({skill_md}): {fields.get('description', '')}")
    return "\n".join(lines)


PREPARED_HEADER = """You are a coding agent helping a user with their project. The project is the folder {workdir}. Always
`cd {workdir}` first and work only there: do not open, list or search other folders of this machine.
Bookkeeping (not part of the task): run `date +%s > {run_dir}/t0` as your very first command and
`date +%s > {run_dir}/t1` as your very last, and say in your final message how many shell commands you ran.

"""

SKILLS_HEADER = """Skills available in this project (a skill is a folder of instructions; load one by reading its
SKILL.md when its description matches the task):
{listing}
The `mlsleuth` command line tool these skills mention is installed.

"""


def prepare_runs(root: Path, args) -> list[Path]:
    """Run folders for agents driven outside this harness (by hand, or by another agent system): each gets
    work/ (a fresh copy of the project, with the skills installed in the skill arm), prompt.md and meta.json.
    Grade them afterwards with --grade-dir; report.json ({"commands": N}) may be added from the agent's report."""
    made = []
    for case in all_cases(args.cases):
        for i in range(1, args.runs + 1):
            for arm in args.arm or ["skill", "plain"]:
                run_dir = root / f"{case.id}__{arm}__{i}"
                if run_dir.exists():
                    raise SystemExit(f"{run_dir} exists: choose an empty --prepare-dir or remove it")
                run_dir.mkdir(parents=True)
                workdir = copy_project(case, run_dir / "work")
                prompt = PREPARED_HEADER.format(workdir=workdir, run_dir=run_dir)
                if args.prompt_note:
                    prompt += args.prompt_note.strip() + "\n\n"
                if arm == "skill":
                    install_skill(workdir, args.skill_dest, args.mlsleuth_cmd)
                    prompt += SKILLS_HEADER.format(listing=skills_listing(workdir / args.skill_dest))
                (run_dir / "prompt.md").write_text(prompt + "The user's message:\n\n" + build_prompt(case))
                (run_dir / "meta.json").write_text(json.dumps({"case": case.id, "arm": arm, "run": i}))
                made.append(run_dir)
    return made


def bookkept_minutes(run_dir: Path) -> float | None:
    """Minutes between the t0 and t1 timestamps a prepared run's agent wrote, if both are there."""
    try:
        t0 = float((run_dir / "t0").read_text().strip())
        t1 = float((run_dir / "t1").read_text().strip())
    except (OSError, ValueError):
        return None
    return (t1 - t0) / 60 if t1 >= t0 else None


def grade_dir(run_dir: Path, case, arm: str, minutes=None, args=None) -> dict:
    transcript = read_transcript(run_dir)
    answer = read_answer(run_dir, transcript)
    report = read_self_report(run_dir / "report.json") or read_self_report(run_dir / "work" / "agent_report.json")
    g = grade_run(case, answer, run_dir / "work", transcript, report, minutes,
                  run_checks=not getattr(args, "no_check", False),
                  line_slack=getattr(args, "line_slack", 3))
    g.update({"arm": arm, "run_dir": str(run_dir)})
    (run_dir / "grade.json").write_text(json.dumps(g, indent=2))
    return g


def write_outputs(results: list[dict], out: Path) -> None:
    keys = {c.id: c.key for c in all_cases()}
    summary = summarize(results, keys)
    (out / "results.json").write_text(json.dumps({"results": results, **summary}, indent=2))
    (out / "results.md").write_text(markdown_table(summary, keys))
    print((out / "results.md").read_text())


def grade_existing(grade_root: Path, args) -> list[dict]:
    results = []
    for run_dir in sorted(p for p in grade_root.iterdir() if p.is_dir()):
        meta = {}
        if (run_dir / "meta.json").is_file():
            meta = json.loads((run_dir / "meta.json").read_text())
        parts = run_dir.name.split("__")
        case_id = meta.get("case") or parts[0]
        arm = meta.get("arm") or (parts[1] if len(parts) > 1 else "unknown")
        if not (run_dir / "work").is_dir():
            print(f"skip {run_dir}: no work/ folder", file=sys.stderr)
            continue
        case = load_case(case_id)
        report = read_self_report(run_dir / "report.json")
        minutes = meta.get("minutes", report.get("minutes"))
        if minutes is None:
            minutes = bookkept_minutes(run_dir)
        g = grade_dir(run_dir, case, arm, minutes=minutes, args=args)
        g["run"] = meta.get("run", parts[2] if len(parts) > 2 else 0)
        results.append(g)
        print(f"{case_id:26s} {arm:6s} root_cause={g['root_cause_right']} fix={g['fix_right']}", file=sys.stderr)
    return results


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent-cmd", help="command template; see the placeholders above")
    p.add_argument("--arm", action="append", choices=["skill", "plain"], help="repeatable; default both")
    p.add_argument("--runs", type=int, default=1, help="runs per case and arm")
    p.add_argument("--cases", nargs="*", help="case ids (default: all)")
    p.add_argument("--out", default="evals/agent/results/latest")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per agent run")
    p.add_argument("--skill-dest", default=".claude/skills", help="skills folder inside the workdir")
    p.add_argument("--mlsleuth-cmd", default="mlsleuth", help="how to call the mlsleuth CLI")
    p.add_argument("--plain-cli", choices=["hide", "keep"], default="hide",
                   help="plain arm: hide the mlsleuth CLI behind a failing stub (default) or keep it")
    p.add_argument("--git-init", action="store_true", help="make each workdir a git repo with one commit")
    p.add_argument("--no-check", action="store_true", help="grade without running check.py")
    p.add_argument("--line-slack", type=int, default=3)
    p.add_argument("--grade-dir", help="grade-only mode: folder of finished runs")
    p.add_argument("--prepare-dir", help="prepare-only mode: make run folders (work/, prompt.md) for agents driven "
                   "outside this harness, then grade them with --grade-dir")
    p.add_argument("--prompt-note", default="", help="prepare-only mode: a note about the machine for every prompt "
                   "(e.g. how many cores it has), the same in both arms")
    args = p.parse_args(argv)

    if args.prepare_dir:
        made = prepare_runs(Path(args.prepare_dir), args)
        print(f"prepared {len(made)} run folder(s) under {args.prepare_dir}: give each agent its prompt.md")
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.grade_dir:
        results = grade_existing(Path(args.grade_dir), args)
    else:
        if not args.agent_cmd:
            p.error("--agent-cmd is required unless --grade-dir is given")
        arms = args.arm or ["skill", "plain"]
        results = []
        for case in all_cases(args.cases):
            for i in range(args.runs):
                for arm in arms:
                    print(f"== {case.id} / {arm} / run {i}", file=sys.stderr)
                    results.append(run_one(case, arm, i, args, out))
                    write_outputs(results, out)
    write_outputs(results, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
