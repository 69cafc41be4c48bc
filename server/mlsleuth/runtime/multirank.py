"""Multi-process (DDP/FSDP) runs: one report for a whole world of ranks.

Two ways a world comes about:

* ``--nproc-per-node N``: the tool's child becomes a rank launcher
  (``runtime/child/rank_launcher.py``) that starts N ranks in its own process group and
  returns ``{"status": "ranks", "ranks": [...]}``; :func:`build_ranks_report` turns that into
  one report;
* an existing launcher (torchrun, srun) starts ``mlsleuth trace`` once per rank
  (``RANK``/``WORLD_SIZE`` set): each rank's mlsleuth runs its own child, writes its rank
  entry to a shared folder (:func:`write_rank_entry`), and rank 0 waits for the others
  and merges (:func:`gather_rank_entries`); ``mlsleuth trace --merge DIR`` merges a folder later.

Findings are labelled by rank: one seen on every rank is reported once as ``[all ranks]``,
others as ``[rank 1]`` (``measurements["ranks"]`` holds the list, or ``"all"``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_NPROC = 64
RANKS_FOLDER = ".mlsleuth/ranks"


def check_nproc(nproc: Any) -> None:
    from mlsleuth.runtime.common import RuntimeInputError

    if nproc is None:
        return
    if not isinstance(nproc, int) or isinstance(nproc, bool) or not 1 <= nproc <= MAX_NPROC:
        raise RuntimeInputError(f"--nproc-per-node must be an integer between 1 and {MAX_NPROC}, got {nproc!r}")


def is_world(payload: dict[str, Any] | None) -> bool:
    return bool(payload) and payload.get("status") == "ranks" and isinstance(payload.get("ranks"), list)


def rank_child_result(entry: dict[str, Any]):
    """A rank's entry as the :class:`ChildResult` a single-process run would have given."""
    from mlsleuth.process_runner import ChildResult

    why = entry.get("why_killed") or ""
    return ChildResult(returncode=entry.get("returncode"), duration_s=float(entry.get("duration_s") or 0.0),
                       timed_out=bool(entry.get("timed_out")) or "timeout" in why, result=entry.get("result"),
                       last_step=entry.get("last_step"), stdout_tail=entry.get("stdout_tail") or "",
                       stderr_tail=entry.get("stderr_tail") or "")


def label(ranks: list[int], world_size: int) -> str:
    if len(ranks) == world_size and world_size > 1:
        return "all ranks"
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def _key(finding: Any) -> tuple:
    loc = finding.location
    return (finding.rule, loc.path, loc.line, loc.module, loc.parameter, loc.function, loc.op)


def merge_findings(per_rank: list[tuple[int, list]], world_size: int) -> list:
    """One finding per (check, place): labelled with the ranks that found it."""
    groups: dict[tuple, list[tuple[int, Any]]] = {}
    for rank, findings in per_rank:
        for f in findings:
            groups.setdefault(_key(f), []).append((rank, f))
    merged = []
    for members in groups.values():
        ranks = sorted({r for r, _ in members})
        first = min(members, key=lambda m: m[0])[1]
        tag = label(ranks, world_size)
        measurements = {**first.measurements, "ranks": "all" if tag == "all ranks" else ranks}
        merged.append(first.model_copy(update={"message": f"[{tag}] {first.message}", "measurements": measurements}))
    return merged


def merge_errors(per_rank: list[tuple[int, list]], world_size: int) -> list:
    groups: dict[tuple, list[tuple[int, Any]]] = {}
    for rank, errors in per_rank:
        for e in errors:
            groups.setdefault((e.kind, e.message), []).append((rank, e))
    out = []
    for members in groups.values():
        ranks = sorted({r for r, _ in members})
        first = members[0][1]
        out.append(first.model_copy(update={"message": f"[{label(ranks, world_size)}] {first.message}"}))
    return out


def stopped_error(entry: dict[str, Any], path: str | None):
    from mlsleuth.report import ErrorEntry

    steps = entry.get("last_step")
    where = f"after {steps} completed step(s)" if isinstance(steps, int) else "before its first completed step"
    kind = "timeout" if "timeout" in (entry.get("why_killed") or "") else "rank-stopped"
    return ErrorEntry(kind=kind, path=path, message=f"stopped by mlsleuth {where}: {entry.get('why_killed')}",
                      detail=(entry.get("stderr_tail") or "")[-3000:] or None)


def build_ranks_report(result: Any, *, tool: str, path: str | None, per_rank: Callable[[Any], Any],
                       cross: Callable[[list[dict[str, Any]], int], list] | None = None, info: dict[str, Any] | None = None):
    """One report for the world in ``result.result`` (the rank launcher's payload).

    ``per_rank(child_result)`` is the tool's single-process report builder; ``cross(entries, world_size)``
    the cross-rank checks' findings.
    """
    from mlsleuth.report import Report
    from mlsleuth.runtime.common import child_errors

    payload = result.result or {}
    entries = payload.get("ranks") or []
    world_size = int(payload.get("world_size") or len(entries) or 1)
    report = Report(tool=tool)
    if result.timed_out or result.cancelled:  # the launcher itself was killed: say so once
        report.errors.extend(child_errors(result, tool=tool, path=path, interpreter=(info or {}).get("interpreter", "")))
    finding_sets, error_sets, statuses = [], [], {}
    for entry in entries:
        rank = int(entry.get("rank", 0))
        sub = per_rank(rank_child_result(entry))
        finding_sets.append((rank, list(sub.findings)))
        errors = [e for e in sub.errors if not (entry.get("why_killed") and e.kind in ("crash", "no-result", "timeout", "out-of-memory"))]
        if entry.get("why_killed") and entry.get("ended") != "lingered":
            errors.append(stopped_error(entry, path))
        error_sets.append((rank, errors))
        statuses[str(rank)] = {"status": (entry.get("result") or {}).get("status") or ("stopped" if entry.get("why_killed") else "no result"),
                               "steps": (entry.get("result") or {}).get("steps", entry.get("last_step"))}
    report.findings.extend(merge_findings(finding_sets, world_size))
    if cross is not None:
        report.findings.extend(cross(entries, world_size))
    report.errors.extend(merge_errors(error_sets, world_size))
    stats = dict(info or {})
    stats.update({"world_size": world_size, "ranks": statuses, "duration_s": round(result.duration_s, 3)})
    return report, stats


# -- under an existing launcher (torchrun, srun) -------------------------------------------------------
def external_world(env: dict[str, str] | None = None) -> tuple[int, int] | None:
    """``(rank, world_size)`` when this mlsleuth runs as one rank of torchrun/srun, else None."""
    env = dict(os.environ) if env is None else env
    for rank_key, size_key in (("RANK", "WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        rank, size = env.get(rank_key, ""), env.get(size_key, "")
        if rank.isdigit() and size.isdigit() and int(size) >= 1:
            return int(rank), int(size)
    return None


def world_key(env: dict[str, str] | None = None) -> str:
    """A name shared by every rank of one launch (and not by the next one)."""
    env = dict(os.environ) if env is None else env
    parts = [env.get("TORCHELASTIC_RUN_ID") or env.get("SLURM_JOB_ID") or "run", env.get("MASTER_ADDR", "local"), env.get("MASTER_PORT", "0")]
    return "-".join("".join(c if c.isalnum() or c in "._" else "_" for c in p) for p in parts)[:120]


def rank_entry_from(result: Any, rank: int) -> dict[str, Any]:
    """What one rank's mlsleuth hands to rank 0: its child's outcome, in the rank launcher's shape."""
    return {"rank": rank, "returncode": result.returncode, "result": result.result, "last_step": result.last_step,
            "ended": "killed" if result.timed_out else "exited",
            "why_killed": "the run's timeout was reached while this rank still ran" if result.timed_out else None,
            "stacks": None, "duration_s": round(result.duration_s, 3), "timed_out": result.timed_out,
            "stdout_tail": result.stdout_tail[-4000:], "stderr_tail": result.stderr_tail[-4000:], "written_at": time.time()}


def write_rank_entry(folder: Path, entry: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"rank{entry['rank']}.json"
    tmp = folder / f".rank{entry['rank']}.json.tmp"
    tmp.write_text(json.dumps(entry), encoding="utf-8")
    os.replace(tmp, target)
    return target


def read_rank_entries(folder: Path, *, newer_than: float | None = None) -> list[dict[str, Any]]:
    entries = []
    for path in sorted(folder.glob("rank*.json")):
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("rank"), int):
            continue
        if newer_than is not None and float(entry.get("written_at") or 0) < newer_than:
            continue  # left over from an earlier launch
        entries.append(entry)
    return entries


def gather_rank_entries(folder: Path, world_size: int, *, wait_s: float, newer_than: float | None) -> list[dict[str, Any]]:
    """Rank 0: wait up to ``wait_s`` for every rank's entry in ``folder``; returns those that came."""
    deadline = time.monotonic() + wait_s
    while True:
        entries = read_rank_entries(folder, newer_than=newer_than)
        if len({e["rank"] for e in entries}) >= world_size or time.monotonic() >= deadline:
            return entries
        time.sleep(0.2)


def world_payload(entries: list[dict[str, Any]], world_size: int) -> dict[str, Any]:
    """The rank launcher's payload shape, from entries the ranks wrote themselves."""
    return {"status": "ranks", "world_size": world_size, "ranks": sorted(entries, key=lambda e: e["rank"]),
            "steps": max((e.get("last_step") or 0 for e in entries), default=0)}


def hand_to_rank_zero(result: Any, *, tool: str, rank_world: tuple[int, int], folder: Any, started: float,
                      wait_s: float) -> tuple[Any, list[dict[str, Any]] | None]:
    """One rank of a torchrun/srun launch writes its outcome; rank 0 gathers every rank's.

    Returns ``(report, None)`` on the other ranks (a short report saying where the result went) and
    ``(None, entries)`` on rank 0, which merges them."""
    from mlsleuth.report import Report

    rank_id, world_size = rank_world
    written = write_rank_entry(folder, rank_entry_from(result, rank_id))
    if rank_id != 0:
        out = Report(tool=tool)
        out.finalize(stats={"rank": rank_id, "world_size": world_size, "rank_result": str(written)})
        out.summary.text = f"rank {rank_id} of {world_size}: result written to {written}; rank 0 prints the merged report"
        return out, None
    return None, gather_rank_entries(folder, world_size, wait_s=wait_s, newer_than=started - 60)
