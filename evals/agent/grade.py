"""Grade one agent run on one case.

    python evals/agent/grade.py CASE --answer ANSWER.md --workdir EDITED_PROJECT
        [--transcript transcript.jsonl] [--report report.json] [--minutes M] [--no-check]

CASE is a case id (folder under evals/agent/cases/) or a case folder. Prints the grade as JSON:
root_cause_right, fix_right, no_unrelated_edits, minutes, commands, and the details behind them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agentbench import grade_run, load_case, read_self_report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case")
    p.add_argument("--answer", required=True, help="file with the agent's final answer (text/markdown)")
    p.add_argument("--workdir", required=True, help="the agent's edited copy of project/")
    p.add_argument("--transcript", help="transcript file (JSON lines from an agent CLI, or plain text)")
    p.add_argument("--report", help='self-report JSON {"minutes": ..., "commands": ...}')
    p.add_argument("--minutes", type=float, help="wall-clock minutes measured by the caller")
    p.add_argument("--no-check", action="store_true", help="skip running check.py (fix_right then ignores it)")
    p.add_argument("--line-slack", type=int, default=3, help="lines of tolerance around the key's range")
    args = p.parse_args(argv)

    case = load_case(args.case)
    answer = Path(args.answer).read_text(errors="replace")
    transcript = Path(args.transcript).read_text(errors="replace") if args.transcript else ""
    result = grade_run(case, answer, Path(args.workdir), transcript, read_self_report(args.report),
                       args.minutes, run_checks=not args.no_check, line_slack=args.line_slack)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
