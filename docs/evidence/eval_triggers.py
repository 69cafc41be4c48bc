"""Evaluate the skill's description against trigger_cases.json with any agent.

For every request in ``trigger_cases.json`` the script builds one question: the
skill's name and description (read from SKILL.md's frontmatter), the request,
and "would you load this skill? answer YES or NO". It sends the question on
standard input to a command you choose (any agent CLI that reads a prompt from
stdin and prints an answer), reads the first YES or NO in the answer, and
reports how often the agent loaded the skill when it should (recall) and left
it alone when it should (specificity).

    python docs/evidence/eval_triggers.py --agent "claude -p"
    python docs/evidence/eval_triggers.py --dry-run > questions.jsonl

``--dry-run`` prints the questions as JSON lines instead of asking, for agents
that are easier to drive from elsewhere. Exit status: 0 after a full run, 2 on
bad arguments or an agent that cannot be started.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CASES = Path(__file__).resolve().parent / "trigger_cases.json"

QUESTION = """You can load a skill, a set of instructions for a particular kind of task.

Skill name: {name}
Skill description: {description}

A user sends this request:
<<<
{request}
>>>

Would you load this skill to handle the request? Answer with a single word, YES or NO."""


def read_frontmatter(skill: Path) -> dict[str, str]:
    text = skill.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise SystemExit(f"{skill}: no frontmatter block at the top of the file")
    fields = {}
    for line in text[4:].split("\n---\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        if key.strip():
            fields[key.strip()] = value.strip()
    for key in ("name", "description"):
        if not fields.get(key):
            raise SystemExit(f"{skill}: frontmatter has no {key!r}")
    return fields


def questions(skill: Path, cases_file: Path) -> list[dict]:
    meta = read_frontmatter(skill)
    cases = json.loads(cases_file.read_text(encoding="utf-8"))
    out = []
    for expected, key in ((True, "should_trigger"), (False, "should_not_trigger")):
        for request in cases[key]:
            prompt = QUESTION.format(name=meta["name"], description=meta["description"], request=request)
            out.append({"request": request, "expected": expected, "prompt": prompt})
    return out


def parse_answer(text: str) -> bool | None:
    """True for YES, False for NO, None when the answer has neither word."""
    m = re.search(r"\b(YES|NO)\b", text, re.IGNORECASE)
    return None if m is None else m.group(1).upper() == "YES"


def ask(command: list[str], prompt: str, timeout: float) -> str:
    run = subprocess.run(command, input=prompt, capture_output=True, text=True, timeout=timeout, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"exit status {run.returncode}: {run.stderr.strip()[-300:]}")
    return run.stdout


def summarise(results: list[dict]) -> dict:
    pos = [r for r in results if r["expected"]]
    neg = [r for r in results if not r["expected"]]
    return {
        "should_trigger": len(pos),
        "loaded_when_it_should": sum(r["answer"] is True for r in pos),
        "should_not_trigger": len(neg),
        "left_alone_when_it_should": sum(r["answer"] is False for r in neg),
        "unparsed_or_failed": sum(r["answer"] is None for r in results),
        "recall": sum(r["answer"] is True for r in pos) / len(pos) if pos else None,
        "specificity": sum(r["answer"] is False for r in neg) / len(neg) if neg else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", help='command that reads a prompt on stdin and prints an answer, e.g. "claude -p"')
    ap.add_argument("--skill", type=Path, default=ROOT / "SKILL.md", help="the SKILL.md whose description is tested")
    ap.add_argument("--cases", type=Path, default=CASES, help="the trigger cases (JSON)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per question")
    ap.add_argument("--dry-run", action="store_true", help="print the questions as JSON lines and stop")
    args = ap.parse_args(argv)
    for path in (args.skill, args.cases):
        if not path.is_file():
            ap.error(f"{path} does not exist")
    items = questions(args.skill, args.cases)
    if args.dry_run:
        for item in items:
            print(json.dumps(item, ensure_ascii=False))
        return 0
    if not args.agent:
        ap.error("give --agent COMMAND, or --dry-run to print the questions")
    command = shlex.split(args.agent)
    results = []
    for item in items:
        try:
            answer = parse_answer(ask(command, item["prompt"], args.timeout))
            error = None
        except FileNotFoundError:
            print(f"eval_triggers: cannot start the agent command {command[0]!r}", file=sys.stderr)
            return 2
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            answer, error = None, str(exc)
        results.append({"request": item["request"], "expected": item["expected"], "answer": answer, "error": error})
        mark = "ok " if answer == item["expected"] else "MISS"
        print(f"{mark} expected={'YES' if item['expected'] else 'NO '} got={answer} {item['request'][:70]}")
    print(json.dumps(summarise(results), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
