"""``mlsleuth check`` / MCP ``triage``: scan, trace a few steps, merge and rank the clues (library API).

::

    from mlsleuth.triage import prepare_triage, triage
    report = triage(".", symptom="loss stuck at 2.3")          # blocking: scan, trace, combine

    plan = prepare_triage(".", run="train.py", symptom="NaN after 300 steps")
    scan_report = plan.scan()                                   # in-process static scan
    trace_report = plan.trace.run() if plan.trace else None     # the child process (or run_async)
    report = plan.combine(scan_report, trace_report)

The result is the shared :class:`~mlsleuth.report.Report` (tool ``triage``): at most ``max_clues`` clues
(findings, decisive first), ``summary.stats["not_run"]`` (every check that could not run, and why) and
``summary.stats["follow_ups"]`` (which tool to call next).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlsleuth.report import Report
from mlsleuth.runtime.common import RuntimeInputError
from mlsleuth.triage.entry import Entry, find_entry, given_entry

DEFAULT_STEPS = 20  # as trace: at 10 steps loss-not-decreasing fired on 5 of 28 clean dev twins, at 20 on none
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_CLUES = 5
MAX_CLUES = 50
MAX_STEPS = 500  # check is the quick look; `mlsleuth trace` watches longer runs

# diagnose-class checks need a model and a batch handed over by a setup function; check does not yet
# take them from the traced run, so each is listed as not run, with the reason specific to it.
_DIAGNOSE_WHY = {
    "causal-leakage": "needs a sequence model, a batch and word that the model must be causal; check does not take "
                      "them from the traced run yet",
}
_DIAGNOSE_HOW = ("write a setup function that returns the model and one batch (see `mlsleuth diagnose --help`) and run "
                 "`mlsleuth diagnose FILE:FUNCTION` (MCP: run_diagnostics)")


class TriageInputError(RuntimeInputError):
    """Input the caller can fix (a missing folder, a bad number)."""


@dataclass
class TriagePlan:
    """What check will do, decided before anything runs."""

    root: Path
    symptom: str | None
    max_clues: int
    entry: Entry | None
    run_skipped: str | None  # why no trace runs (no entry point, --no-run); None when one runs
    trace: Any = None  # a PreparedRun, or None
    steps: int = DEFAULT_STEPS
    info: dict[str, Any] = field(default_factory=dict)

    def scan(self, **kwargs: Any) -> Report:
        from mlsleuth.scan import scan_paths

        return scan_paths([self.root], root=self.root, **kwargs)

    def combine(self, scan_report: Report | None, trace_report: Report | None) -> Report:
        return combine(self, scan_report, trace_report)


def prepare_triage(
    path: str | os.PathLike[str] = ".",
    *,
    run: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    symptom: str | None = None,
    steps: int = DEFAULT_STEPS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    python: str | None = None,
    auto_run: bool = True,
    max_clues: int = DEFAULT_MAX_CLUES,
    memory_limit_mb: int | None = None,
) -> TriagePlan:
    """Validate the input, pick the entry point (``run``, or one found when ``auto_run``) and prepare its trace."""
    root = Path(path)
    if not root.exists():
        raise TriageInputError(f"no such folder: {path}")
    if not root.is_dir():
        if root.suffix != ".py":
            raise TriageInputError(f"{path} is a file, not a Python script; pass the project folder (and the training "
                                   f"script with --run)")
        if run is not None:
            raise TriageInputError(f"{path} is a script and --run {run} names another; pass the project folder as PATH "
                                   f"with --run, or the script alone")
        if auto_run:  # `check train.py`: the script's folder is the project, the script its entry point
            run = root.name
        root = root.parent
    if not isinstance(max_clues, int) or isinstance(max_clues, bool) or not 1 <= max_clues <= MAX_CLUES:
        raise TriageInputError(f"--max-clues must be an integer between 1 and {MAX_CLUES}, got {max_clues!r}")
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
        raise TriageInputError(f"--steps must be an integer between 1 and {MAX_STEPS}, got {steps!r}")
    if not isinstance(timeout_s, (int, float)) or not math.isfinite(timeout_s) or timeout_s <= 0:
        raise TriageInputError(f"--timeout must be a positive, finite number of seconds, got {timeout_s!r}")
    if symptom is not None and len(symptom) > 2000:
        raise TriageInputError("--symptom is limited to 2000 characters; describe the symptom in a sentence")
    root = root.resolve()
    entry: Entry | None
    if run is not None:
        entry = given_entry(root, run, tuple(args))
        if not entry.script.is_file():
            raise TriageInputError(f"no such script: {run} (relative to {path}); pass the training script with --run")
        skipped = None
    elif auto_run:
        entry, why = find_entry(root)
        skipped = None if entry else why
    else:
        entry, skipped = None, "not asked to run anything (--no-run)"
    plan = TriagePlan(root=root, symptom=symptom, max_clues=max_clues, entry=entry, run_skipped=skipped, steps=steps)
    if entry is not None:
        from mlsleuth.runtime.trace import prepare_trace

        plan.trace = prepare_trace(entry.script, args=list(entry.args), steps=steps, python=python, timeout_s=timeout_s,
                                   memory_limit_mb=memory_limit_mb, cwd=root, probes=("causal",))
        plan.info["entry"] = {"script": _rel(entry.script, root), "args": list(entry.args), "chosen_because": entry.reason}
        if entry.others:
            plan.info["entry"]["other_candidates"] = list(entry.others)
    return plan


def triage(path: str | os.PathLike[str] = ".", **kwargs: Any) -> Report:
    """Blocking convenience: scan, trace (when an entry point is given or found) and combine."""
    plan = prepare_triage(path, **kwargs)
    return plan.combine(plan.scan(), plan.trace.run() if plan.trace is not None else None)


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


def combine(plan: TriagePlan, scan_report: Report | None, trace_report: Report | None) -> Report:
    """The triage report: merged, ranked clues; the errors of both tools; what was not run and what to call next."""
    from mlsleuth.runtime.registry import checks_of
    from mlsleuth.triage.clues import merge, rank
    from mlsleuth.triage.symptoms import read_symptom

    readings = read_symptom(plan.symptom)
    roles = {c.id: c.role for c in checks_of("trace").values()}
    runtime = list(trace_report.findings if trace_report else [])
    if not any(f.rule == "causal-leakage" for f in runtime):  # a trace report from before trace ran the probe itself
        runtime += _causal_findings(trace_report)
    clues = rank(merge(scan_report.findings if scan_report else [], runtime), readings, roles)
    report = Report(tool="triage")
    for sub in (scan_report, trace_report):
        if sub is not None:
            report.errors.extend(e.model_copy() for e in sub.errors)
    kept = clues[: plan.max_clues]
    report.findings = kept
    not_run = _not_run(plan, scan_report, trace_report)
    stats: dict[str, Any] = {"clues_total": len(clues), "clues_returned": len(kept), **plan.info}
    if len(clues) > len(kept):
        report.truncated = True
        stats["total_findings"] = len(clues)  # what the closing line's "(truncated; N in all)" reports
        stats["how_to_see_all"] = (f"{len(clues) - len(kept)} more clue(s) ranked lower: raise --max-clues (MCP max_clues), "
                                   f"or run `mlsleuth scan` / `mlsleuth trace` for every finding")
    if plan.run_skipped:
        stats["run_skipped"] = plan.run_skipped
    if plan.symptom:
        stats["symptom"] = plan.symptom
        stats["symptom_read_as"] = [r.name for r in readings] or ["not recognised: clues are ranked without it"]
    if scan_report is not None:
        stats["scan"] = scan_report.summary.text
        info_only = sum(1 for f in scan_report.findings if f.severity == "info")
        if info_only:
            stats["scan_info_findings_not_shown"] = info_only
    if trace_report is not None:
        stats["trace"] = trace_report.summary.text
        for key in ("steps_traced", "status", "loss_first", "loss_last", "duration_s", "causal_leakage"):
            if key in trace_report.summary.stats:
                stats[f"trace_{key}"] = trace_report.summary.stats[key]
    stats["not_run"] = not_run
    stats["follow_ups"] = _follow_ups(plan, kept, readings, trace_report)
    report.finalize(stats=stats, sort=False)
    report.summary.text = _summary(report, plan, trace_report, not_run)
    return report


def _causal_findings(trace_report: Report | None) -> list:
    """The diagnose check causal-leakage on what the trace child measured on its first (model, batch) pair."""
    from mlsleuth.runtime.trace.causal import causal_findings

    return causal_findings(trace_report.summary.stats) if trace_report is not None else []


def _not_run(plan: TriagePlan, scan_report: Report | None, trace_report: Report | None) -> list[dict[str, str]]:
    from mlsleuth.runtime.registry import checks_of

    out: list[dict[str, str]] = []
    if scan_report is None:
        out.append({"check": "scan", "reason": "the static scan did not run"})
    if trace_report is None:
        why = plan.run_skipped or "no trace ran"
        out.append({"check": "trace (every runtime check)", "reason": f"not run: {why}"})
    else:
        stats = trace_report.summary.stats
        steps = stats.get("steps_traced", 0)
        if not steps:
            out.append({"check": "trace (per-step checks)",
                        "reason": f"the script ran no optimizer step under observation (status: {stats.get('status', 'no result')}); "
                                  f"see the errors"})
        skipped = stats.get("batch_independence_skipped")
        if skipped:
            out.append({"check": "batch-mixing", "reason": f"not run: {skipped}"})
        if stats.get("batch_order_skipped"):
            out.append({"check": "batch-order-changes-outputs", "reason": f"not run: {stats['batch_order_skipped']}"})
        generic = stats.get("generic_probes_skipped") or {}
        for check_id in generic.get("checks") or []:
            out.append({"check": check_id, "reason": f"not run: {generic.get('reason')}"})
    causal = (trace_report.summary.stats.get("causal_leakage") if trace_report is not None else None) or {}
    for check in checks_of("diagnose").values():
        if check.id == "causal-leakage" and causal:
            if causal.get("skipped"):
                out.append({"check": check.id, "reason": f"not run on the traced model: {causal['skipped']}"})
            continue
        why = _DIAGNOSE_WHY.get(check.id, "a diagnose check: needs the model and a batch from a setup function; check does not "
                                          "take them from the traced run yet")
        out.append({"check": check.id, "reason": f"not run: {why} (see follow-ups)"})
    out.append({"check": "locate-nan (mlsleuth nan, MCP locate_nan)",
                "reason": "not run: it replays a run up to its first non-finite value; call it when a loss or weight goes NaN/Inf"})
    out.append({"check": "sweep checks (mlsleuth sweep, MCP compare_sweep)",
                "reason": "not run: they need the results of several seeded runs"})
    return out


def _follow_ups(plan: TriagePlan, clues: list, readings: list, trace_report: Report | None) -> list[str]:
    out: list[str] = []
    if clues:
        lead = clues[0]
        out.append(f"confirm the first clue: {lead.next_test}" if lead.next_test else
                   f"read how to confirm the first clue: `mlsleuth rules {lead.rule}` (MCP explain_rule)")
    if trace_report is None:
        out.append("trace the training script for runtime evidence: `mlsleuth trace SCRIPT` (MCP trace_training), "
                   "or `mlsleuth check --run SCRIPT`")
    elif trace_report.errors:
        out.append("the traced run did not finish cleanly: read its errors, then rerun with the right arguments "
                   "(`mlsleuth check --run SCRIPT -- ARGS`)")
    names = {r.name for r in readings}
    nonfinite = any("non-finite" in n for n in names) or any(
        f.rule in ("non-finite-loss", "input-non-finite") for f in (trace_report.findings if trace_report else []))
    if nonfinite:
        out.append("localise the first NaN/Inf: `mlsleuth nan SCRIPT` (MCP locate_nan)")
    if any(n.startswith("loss stuck") for n in names) and trace_report is not None and not clues:
        out.append(f"watch more steps: `mlsleuth trace SCRIPT --steps 200` (MCP trace_training); check traced {plan.steps}")
    causal = (trace_report.summary.stats.get("causal_leakage") if trace_report is not None else None) or {}
    which = "ignored input, overfit one batch" + ("" if causal and not causal.get("skipped") else ", causal leakage")
    out.append(f"run the model checks that need a setup function ({which}): {_DIAGNOSE_HOW}")
    return out


def _summary(report: Report, plan: TriagePlan, trace_report: Report | None, not_run: list) -> str:
    n = len(report.findings)
    head = "no clues" if n == 0 else f"{n} clue{'s' if n != 1 else ''}"
    if report.truncated:
        head += f" (of {report.summary.stats.get('clues_total')})"
    if trace_report is not None:
        entry = plan.info.get("entry", {})
        ran = f"scan and trace of {entry.get('script', '?')} ({trace_report.summary.stats.get('steps_traced', 0)} step(s))"
    else:
        ran = "scan only (no run: see not_run)"
    errors = f"; {len(report.errors)} error{'s' if len(report.errors) != 1 else ''}" if report.errors else ""
    return f"{head} from {ran}{errors}; {len(not_run)} check(s) not run"
