"""A stand-in "agent" for testing the harness: applies the case's reference fix (oracle) or does
nothing (null), and writes ANSWER.md plus a transcript-like stdout.

    python evals/agent/run_ab.py --agent-cmd 'python evals/agent/tools/oracle_agent.py {case} {workdir}' ...
    python evals/agent/tools/oracle_agent.py CASE WORKDIR [--null]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agentbench import apply_patch, load_case


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    case, workdir = load_case(argv[0]), Path(argv[1])
    null = "--null" in argv
    print(json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]}}))
    if null:
        (workdir / "ANSWER.md").write_text("I could not find the problem; maybe lower the learning rate.\n")
        return 0
    apply_patch(case.dir / "reference_fix.patch", workdir)
    print(json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Bash", "input": {"command": "patch -p1"}}]}}))
    rc = case.key["root_cause"]
    (workdir / "ANSWER.md").write_text(
        f"Root cause: {rc['file']}:{rc['lines'][0]}-{rc['lines'][1]}. {rc['explanation']}\n\n"
        f"Fix: {case.key['fix']['description']}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
