"""``mlsleuth nan --nproc-per-node N``: the report of a world of ranks.

The rank launcher (``runtime/child/rank_launcher.py``) stops every rank once one finds a
non-finite value, then runs the whole world again on a fresh rendezvous port up to the failing
step with the operation-level locator armed. Here the failing rank's replay becomes its
``replay_run`` (as a single-process run's own replay would be), every rank's findings are
merged and labelled by rank, and the ranks stopped because of the failing one say so.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
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
    at = next((i for i, e in enumerate(entries) if e.get("rank") == failing), None)  # a merged world may lack a rank
    if isinstance(failing, int) and at is not None and entries[at].get("result"):
        res = dict(entries[at]["result"])
        failure = ((res.get("observers") or {}).get("nan") or {}).get("failure") or {}
        step = int(failure.get("step") or 0)
        replay = payload.get("replay")
        if replay:
            res["replay_run"] = replay_run_of(next((e for e in replay if e.get("rank") == failing), None), step)
        elif payload.get("replay_skipped"):
            res["replay_run"] = {"status": "replay-skipped", "error": payload["replay_skipped"]}
        elif (payload.get("config") or {}).get("replay", True):
            res["replay_run"] = {"status": "replay-skipped", "error": "too little of the timeout was left to replay the world"}
        entries[at] = {**entries[at], "result": res}
    for e in entries:  # ranks stopped because another found the value: not a separate failure
        status = (e.get("result") or {}).get("status")
        if e.get("rank") != failing and failing is not None and (e.get("why_killed") or status == "stopped-by-peer"):
            e["why_killed"] = f"rank {failing} found the first non-finite value and every rank was stopped"
    world = {**payload, "ranks": entries}

    def single(child_result: Any):
        report = build_single(child_result, info=info, path=path, command=command)
        if failure and child_result.result is not entries[at].get("result"):
            report.findings = []  # another rank's value came first; this rank only received it (or was stopped)
        return report

    combined = dataclasses.replace(result, result=world)
    report, stats = multirank.build_ranks_report(combined, tool="nan", path=path, per_rank=single, info=info)
    report.errors = [e for e in report.errors if not (e.kind == "rank-stopped" and "non-finite" in e.message)]
    if failure:
        stats.update({"failing_rank": failing, "failure_step": failure.get("step")})
    stats["steps_watched"] = {r: s.get("steps") for r, s in stats["ranks"].items()}
    ports = sorted({e["port"] for e in [*entries, *(payload.get("replay") or [])] if isinstance(e.get("port"), int)})
    if ports:  # the first run's and the replay's rendezvous ports: every rank has ended, so they are free again
        stats["rendezvous_ports"] = ports
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


# -- under an existing launcher (torchrun, srun) -------------------------------------------------------
PHASE_ORDER = {"data": 0, "forward": 1, "loss": 2, "backward": 3, "optimizer": 4}
LAUNCHER_NO_REPLAY = ("the ranks were started by torchrun/srun, which mlsleuth cannot restart; run "
                      "`mlsleuth nan --nproc-per-node N` to let mlsleuth replay the whole world and name the operation")


def first_failure(entries: list[dict[str, Any]]) -> int | None:
    """The rank whose non-finite value came first: the lowest step, then the earliest part of that step (a value
    born in one rank's forward reaches the others only through the gradient all-reduce in backward). The rank
    launcher (``runtime/child/rank_launcher.py``) chooses the same way."""
    found = []
    for e in entries:
        failure = (((e.get("result") or {}).get("observers") or {}).get("nan") or {}).get("failure")
        if failure and isinstance(failure.get("step"), int):
            found.append((failure["step"], PHASE_ORDER.get(failure.get("phase"), 5), e["rank"]))
    return min(found)[2] if found else None


def ranks_folder(workdir: Path) -> Path:
    """Where the ranks of one torchrun/srun launch of ``nan`` leave their results (apart from ``trace``'s)."""
    return workdir / multirank.RANKS_FOLDER / f"nan-{multirank.world_key()}"


def under_launcher(result: Any, *, rank_world: tuple[int, int], folder: Path, started: float, wait_s: float,
                   info: dict, path: str, command: str, build_single: Any):
    """This mlsleuth is one rank of torchrun/srun: hand the rank's outcome to rank 0, which picks the rank whose
    value came first and prints one report (no replay: a launcher's world cannot be restarted from here)."""
    from mlsleuth.process_runner import ChildResult
    from mlsleuth.report import ErrorEntry

    world_size = rank_world[1]
    out, entries = multirank.hand_to_rank_zero(result, tool="nan", rank_world=rank_world, folder=folder,
                                               started=started, wait_s=wait_s)
    if out is not None:
        return out
    payload = {**multirank.world_payload(entries, world_size), "replay": None, "replay_skipped": LAUNCHER_NO_REPLAY}
    failing = first_failure(entries)
    if failing is not None:
        payload["failing_rank"] = failing
    combined = ChildResult(returncode=0, duration_s=result.duration_s, result=payload)
    report = world_report(combined, info=info, path=path, command=command, build_single=build_single)
    missing = sorted(set(range(world_size)) - {e["rank"] for e in entries})
    if missing:
        report.errors.append(ErrorEntry(kind="rank-missing", path=path,
                                        message=f"no result from rank(s) {missing} within {wait_s:.0f}s; the first non-finite "
                                                f"value may have come from a missing rank"))
        report.finalize(stats=report.summary.stats)
    return report


def now() -> float:
    return time.time()
