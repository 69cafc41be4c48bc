"""Verify every benchmark case: the project shows the symptom, the reference fix removes it.

For each case: the folder is complete and its key valid; check.py on a copy of project/ gives
the key's buggy_pass (false); check.py on a copy with reference_fix.patch applied gives
fixed_pass (true); the reference fix satisfies the key's must_change rules and leaves the
must_not_change files alone; an answer citing the root-cause file:line grades as right.

    python evals/agent/verify_cases.py [CASE_ID ...] [--jobs 2] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agentbench import (
    all_cases,
    apply_patch,
    copy_project,
    grade_fix,
    grade_root_cause,
    run_check,
    validate_case,
)


def verify(case, timeout: float = 600) -> dict:
    t0 = time.time()
    out = {"case": case.id, "problems": validate_case(case.dir)}
    if out["problems"]:
        out["ok"] = False
        return out
    expect = case.key.get("check", {"buggy_pass": False, "fixed_pass": True})
    with tempfile.TemporaryDirectory(prefix=f"verify_{case.id}_") as tmp:
        buggy = copy_project(case, Path(tmp) / "buggy")
        fixed = copy_project(case, Path(tmp) / "fixed")
        apply_patch(case.dir / "reference_fix.patch", fixed)
        out["buggy"] = run_check(case, buggy, timeout)
        out["fixed"] = run_check(case, fixed, timeout)
        fx = grade_fix(case, fixed, run_checks=False)
        out["reference_fix_rules"] = fx["must_change"]
        out["reference_fix_forbidden_edits"] = fx["must_not_change_edited"]
    rc = case.key["root_cause"]
    cite = f"The bug is in {rc['file']}:{rc['lines'][0]}."
    out["citation_grades_right"] = grade_root_cause(case.key, cite)["root_cause_right"]
    out["ok"] = (out["buggy"].get("pass") is expect["buggy_pass"] and out["fixed"].get("pass") is expect["fixed_pass"]
                 and all(out["reference_fix_rules"]) and not out["reference_fix_forbidden_edits"]
                 and out["citation_grades_right"])
    out["seconds"] = round(time.time() - t0, 1)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cases", nargs="*", help="case ids (default: all)")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--timeout", type=float, default=600, help="seconds per check.py run")
    p.add_argument("--json", help="write the full results here")
    args = p.parse_args(argv)
    cases = all_cases(args.cases or None)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda c: verify(c, args.timeout), cases))
    for r in results:
        status = "OK  " if r["ok"] else "FAIL"
        detail = "; ".join(r["problems"]) if r["problems"] else (
            f"buggy {r['buggy'].get('metric')}={r['buggy'].get('value')} pass={r['buggy'].get('pass')} | "
            f"fixed value={r['fixed'].get('value')} pass={r['fixed'].get('pass')} | {r.get('seconds')}s"
            + (f" | {r['buggy'].get('error') or r['fixed'].get('error')}" if r['buggy'].get('error') or r['fixed'].get('error') else ""))
        print(f"{status} {r['case']:26s} {detail}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    bad = [r["case"] for r in results if not r["ok"]]
    print(f"{len(results) - len(bad)}/{len(results)} cases verified" + (f"; failing: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
