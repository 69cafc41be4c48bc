"""``mlsleuth nan --nproc-per-node N``: the report of a world of ranks.

The rank launcher (``runtime/child/rank_launcher.py``) stops every rank once one finds a
non-finite value, then runs the whole world again on a fresh rendezvous port up to the failing
step with the operation-level locator armed. Here the failing rank's replay becomes its
``replay_run`` (as a single-process run's own replay would be), every rank's findings are
merged and labelled by rank, and the ranks stopped because of the failing one say so.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mlsleuth.runtime import multirank


def replay_run_of(entry: dict[str, Any] | None, step: int) -> dict[str, Any]:
    """A replayed rank's entry in the shape of ``nan_main.replay_script``'s result."""
    result = (entry or {}).get("result")
    if not result:
        why = (entry or {}).get("why_killed") or "it wrote no result"
        return {"status": "replay-failed", "error": f"the replay of the failing rank ended without a result ({why})",
                "stderr": ((entry or {}).get("stderr_tail") or "")[-3000:] or None}
    return {"status": result.get("status"), "steps": result.get("steps"), "exception": result.get("exception"),
            "observer_errors": result.get("observer_errors", []), "nan": (result.get("observers") or {}).get("nan"),
            "replayed": {"from": "script-start", "first": 0, "failing": step, "checked": [0, step - 1] if step > 0 else None,
                         "instrumented": step, "steps_run": result.get("steps")}}


def world_report(result: Any, *, info: dict, path: str, command: str, build_single: Any):
    from mlsleuth.runtime.nan.checks import MAIN_RULES

    payload = dict(result.result or {})
    entries = [dict(e) for e in payload.get("ranks") or []]
    failing = payload.get("failing_rank")
    failure = None
    if isinstance(failing, int) and 0 <= failing < len(entries) and entries[failing].get("result"):
        res = dict(entries[failing]["result"])
        failure = ((res.get("observers") or {}).get("nan") or {}).get("failure") or {}
        step = int(failure.get("step") or 0)
        replay = payload.get("replay")
        if replay:
            res["replay_run"] = replay_run_of(next((e for e in replay if e.get("rank") == failing), None), step)
        elif (payload.get("config") or {}).get("replay", True):
            res["replay_run"] = {"status": "replay-skipped", "error": "too little of the timeout was left to replay the world"}
        entries[failing] = {**entries[failing], "result": res}
    for e in entries:  # ranks stopped because another found the value: not a separate failure
        status = (e.get("result") or {}).get("status")
        if e.get("rank") != failing and failing is not None and (e.get("why_killed") or status == "stopped-by-peer"):
            e["why_killed"] = f"rank {failing} found the first non-finite value and every rank was stopped"
    world = {**payload, "ranks": entries}

    def single(child_result: Any):
        report = build_single(child_result, info=info, path=path, command=command)
        if failure and child_result.result is not entries[failing].get("result"):
            report.findings = []  # another rank's value came first; this rank only received it (or was stopped)
        return report

    combined = dataclasses.replace(result, result=world)
    report, stats = multirank.build_ranks_report(combined, tool="nan", path=path, per_rank=single, info=info)
    report.errors = [e for e in report.errors if not (e.kind == "rank-stopped" and "non-finite" in e.message)]
    if failure:
        stats.update({"failing_rank": failing, "failure_step": failure.get("step")})
    stats["steps_watched"] = {r: s.get("steps") for r, s in stats["ranks"].items()}
    report.finalize(stats=stats)
    main = next((f for f in report.findings if f.rule in MAIN_RULES), None)
    if main is not None:
        head = f"first non-finite value on rank {failing}: {main.location.runtime_label()}"
    elif failure:
        head = f"rank {failing} found the first non-finite value at step {failure.get('step')}"
    else:
        head = f"no non-finite value on any of the {stats['world_size']} rank(s)"
    if report.errors:
        head += f"; {len(report.errors)} error(s)"
    report.summary.text = head
    return report
