"""``mlsleuth trace`` on a multi-process run: the merged report of every rank.

``--nproc-per-node N``: the child launched the ranks; :func:`world_report` merges them.
Under torchrun/srun (``RANK``/``WORLD_SIZE`` set around mlsleuth itself): :func:`under_launcher`
writes this rank's entry to ``.mlsleuth/ranks/<launch>/`` and, on rank 0, waits for the others
and merges; :func:`merge_folder` merges such a folder afterwards (``mlsleuth trace --merge DIR``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from mlsleuth.runtime import multirank


def hang_margin(timeout_s: float) -> float:
    """Seconds before the timeout at which a rank writes where it hangs (as the rank launcher computes it)."""
    return min(max(0.15 * timeout_s, 3.0), 20.0)


def world_report(result: Any, *, info: dict, path: str, command: str, selection: Any, build_single: Any, script: str | None):
    """The report of a world whose ranks the child launched (``result.result["status"] == "ranks"``)."""
    from mlsleuth.runtime.ranking import rank
    from mlsleuth.runtime.trace.checks_ranks import (
        RanksRun,
        comparison_note,
        rank_findings,
    )

    script_dir = os.path.dirname(script) if script else None

    def cross(entries: list[dict[str, Any]], world_size: int) -> list:
        return rank_findings(RanksRun(entries, world_size=world_size, path=path, command=command, script_dir=script_dir))

    def single(child_result: Any):
        return build_single(child_result, info=info, path=path, command=command, selection=None)

    report, stats = multirank.build_ranks_report(result, tool="trace", path=path, per_rank=single, cross=cross, info=info)
    if selection is not None:
        report.findings = [f for f in report.findings if selection.allows(f.rule, f.category, f.severity)]
    steps = {r: s.get("steps") for r, s in stats["ranks"].items()}
    stats["steps_traced"] = steps
    note = comparison_note(RanksRun((result.result or {}).get("ranks") or [], world_size=stats["world_size"], path=path, command=command))
    if note:  # a sharded model: say what the parameter/gradient comparisons covered, never skip them silently
        stats["cross_rank_comparison"] = note
    report.findings = rank(report.findings, "trace")
    report.finalize(stats=stats, sort=False)
    head = report.default_text()
    report.summary.text = (f"{head}; {stats['world_size']} rank(s), steps per rank: "
                           + ", ".join(f"rank {r}: {s}" for r, s in steps.items())
                           + (f"; {note}" if note else "") + f"; interpreter: {info.get('interpreter')}")
    return report


def under_launcher(report: Any, result: Any, *, rank_world: tuple[int, int], folder: Path, started: float, wait_s: float,
                   info: dict, path: str, command: str, selection: Any, build_single: Any, script: str | None):
    """This mlsleuth is one rank of torchrun/srun: hand the rank's outcome to rank 0; rank 0 merges."""
    from mlsleuth.report import ErrorEntry

    world_size = rank_world[1]
    out, entries = multirank.hand_to_rank_zero(result, tool="trace", rank_world=rank_world, folder=folder,
                                               started=started, wait_s=wait_s)
    if out is not None:
        return out
    merged = _merge(entries, world_size, result.duration_s, info=info, path=path, command=command, selection=selection,
                    build_single=build_single, script=script)
    missing = sorted(set(range(world_size)) - {e["rank"] for e in entries})
    if missing:
        merged.errors.append(ErrorEntry(kind="rank-missing", path=path,
                                        message=f"no result from rank(s) {missing} within {wait_s:.0f}s; merge later with "
                                                f"`mlsleuth trace --merge {folder}`"))
        merged.finalize(stats=merged.summary.stats, sort=False)
    return merged


def merge_folder(folder: str | os.PathLike[str], *, selection: Any = None):
    """``mlsleuth trace --merge DIR``: the merged report of the rank entries in ``DIR``."""
    from mlsleuth.runtime.common import RuntimeInputError
    from mlsleuth.runtime.trace.run import build_report

    where = Path(folder)
    entries = multirank.read_rank_entries(where) if where.is_dir() else []
    if not entries:
        raise RuntimeInputError(f"--merge {folder}: no rank results (rank*.json) there; they are written by `mlsleuth trace` "
                                f"started by torchrun/srun, under {multirank.RANKS_FOLDER}/")
    config = ((entries[0].get("result") or {}).get("config") or {})
    script = config.get("script")
    display = os.path.relpath(script) if script else None
    world_size = max(len(entries), max(e["rank"] for e in entries) + 1)
    info = {"interpreter": ((entries[0].get("result") or {}).get("environment") or {}).get("python", "?"), "interpreter_chosen_by": "the ranks",
            "script": display, "merged_from": str(where)}
    return _merge(entries, world_size, max(float(e.get("duration_s") or 0) for e in entries), info=info, path=display,
                  command=f"mlsleuth trace {display}", selection=selection, build_single=build_report, script=script)


def _merge(entries: list[dict[str, Any]], world_size: int, duration: float, **kwargs: Any):
    from mlsleuth.process_runner import ChildResult

    combined = ChildResult(returncode=0, duration_s=duration, result=multirank.world_payload(entries, world_size))
    return world_report(combined, **kwargs)


def ranks_folder(workdir: Path) -> Path:
    return workdir / multirank.RANKS_FOLDER / multirank.world_key()


def now() -> float:
    return time.time()
