"""``mlsleuth trace``: run a real training script under observation (library API).

::

    from mlsleuth.runtime.trace import prepare_trace, trace
    report = trace("train.py", args=["--epochs", "1"], steps=20)

``prepare_trace`` validates the input and returns a :class:`PreparedRun` whose
child runs ``runtime/child/trace_main.py`` with the chosen interpreter; ``to_report``
turns the child's JSON into findings (every check is a function in
:mod:`mlsleuth.runtime.trace.checks`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import (
    CHILD_DIR,
    RuntimeInputError,
    child_errors,
    choose_interpreter,
    write_config,
)
from mlsleuth.runtime.prepared import PreparedRun
from mlsleuth.runtime.trace.rl_signs import vital_signs, vital_signs_line
from mlsleuth.runtime.trace.causal import causal_findings
from mlsleuth.runtime.trace.checks_checkpoints import after_window_line, merge_after_window

DEFAULT_STEPS = 20
DEFAULT_TIMEOUT_S = 300.0
MAX_STEPS = 10_000


def prepare_trace(
    script: str | os.PathLike[str],
    *,
    args: Sequence[str] = (),
    steps: int = DEFAULT_STEPS,
    python: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_limit_mb: int | None = None,
    cwd: str | os.PathLike[str] | None = None,
    selection: Any = None,
    nproc_per_node: int | None = None,
    probes: Sequence[str] = (),
    after_window_s: float | None = None,
) -> PreparedRun:
    """Validate and build (not start) the traced run of ``script``.

    ``probes``: extra measurements on the first (model, batch) pair, for ``mlsleuth check``: ``"causal"``
    (causal leakage, when the targets are the inputs shifted by one; see ``runtime/child/trace_causal.py``).

    ``after_window_s``: seconds the script may run on, unobserved, after the traced steps, so that what it does
    once training is over (a checkpoint loaded back, the best state restored, a job resumed) is checked too
    (default ``thresholds.AFTER_WINDOW_S``; 0: stop at the last traced step; never with several ranks).

    ``cwd``: working directory of the script (default: the current one, as when
    the user runs ``python script.py`` themselves). ``selection``: an optional
    :class:`mlsleuth.config.Selection` applied to the findings. ``nproc_per_node``: launch
    that many ranks (DDP/FSDP) and merge them into one report (see :mod:`mlsleuth.runtime.trace.world`).
    Raises :class:`RuntimeInputError` for input the user can fix.
    """
    from mlsleuth.process_runner import ChildRun

    path = Path(script)
    if not path.exists():
        raise RuntimeInputError(f"no such script: {script}")
    if path.is_dir():
        raise RuntimeInputError(f"{script} is a folder; pass the training script (a .py file)")
    if path.suffix == ".ipynb":
        raise RuntimeInputError(f"{script} is a notebook; export it with `jupyter nbconvert --to script` and trace the .py file")
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
        raise RuntimeInputError(f"--steps must be an integer between 1 and {MAX_STEPS}, got {steps!r}")
    if not timeout_s or timeout_s <= 0:
        raise RuntimeInputError("--timeout must be a positive number of seconds")
    if after_window_s is not None and not 0 <= after_window_s <= 600:
        raise RuntimeInputError("--after-steps must be between 0 and 600 seconds")
    if memory_limit_mb is not None and memory_limit_mb < 64:
        raise RuntimeInputError("--memory-limit must be at least 64 MB")
    from mlsleuth.runtime import multirank
    from mlsleuth.runtime.trace import world

    multirank.check_nproc(nproc_per_node)
    if nproc_per_node and multirank.external_world():
        raise RuntimeInputError("--nproc-per-node launches the ranks itself; under torchrun/srun (RANK and WORLD_SIZE set) leave it out")
    interpreter, chosen_by = choose_interpreter(python, path.parent)
    workdir = Path(cwd) if cwd is not None else Path.cwd()
    display = _display_path(path, workdir)
    child = ChildRun([interpreter, str(CHILD_DIR / "trace_main.py")], cwd=workdir, timeout_s=timeout_s,
                     memory_limit_mb=memory_limit_mb)
    extra = min(T.VERDICT_EXTRA_STEPS_FACTOR * steps, T.VERDICT_EXTRA_STEPS_MAX)
    write_config(child, {"script": str(path.resolve()), "argv": [str(a) for a in args], "max_steps": steps,
                         "verdict_extra_steps": extra, "label_prior_margin": T.LABEL_PRIOR_MARGIN, "timeout_s": timeout_s,
                         "nproc_per_node": nproc_per_node, "tool": "trace", "hang_dump_after_s": timeout_s - world.hang_margin(timeout_s),
                         "rl_target_watch_steps": T.RL_TARGET_WATCH_STEPS, "probes": [str(p) for p in probes],
                         "after_window_s": 0.0 if nproc_per_node else (T.AFTER_WINDOW_S if after_window_s is None else float(after_window_s))})
    info = {"interpreter": interpreter, "interpreter_chosen_by": chosen_by, "script": display, "steps_requested": steps,
            "timeout_s": timeout_s, "memory_limit_mb": memory_limit_mb}
    command = f"mlsleuth trace {display}"
    if nproc_per_node:
        info["nproc_per_node"] = nproc_per_node
        command += f" --nproc-per-node {nproc_per_node}"
    outside = None if nproc_per_node else multirank.external_world()  # started by torchrun/srun
    started = world.now()

    def to_report(result: Any):
        shared = {"info": info, "path": display, "command": command, "selection": selection, "build_single": build_report,
                  "script": str(path.resolve())}
        if multirank.is_world(result.result):
            return world.world_report(result, **shared)
        report = build_report(result, info=info, path=display, command=command, selection=selection)
        if outside is not None and outside[1] > 1:
            return world.under_launcher(report, result, rank_world=outside, folder=world.ranks_folder(workdir), started=started,
                                        wait_s=timeout_s + 30, **shared)
        return report

    return PreparedRun(tool="trace", child=child, to_report=to_report, description=f"trace {display} ({steps} steps)",
                       total_steps=steps, info=info)


def trace(script: str | os.PathLike[str], **kwargs: Any):
    """Blocking convenience: prepare, run and report (see :func:`prepare_trace`)."""
    return prepare_trace(script, **kwargs).run()


def build_report(result: Any, *, info: dict, path: str, command: str, selection: Any = None):
    from mlsleuth.report import ErrorEntry, Report

    report = Report(tool="trace")
    report.errors.extend(child_errors(result, tool="trace", path=path, interpreter=info["interpreter"]))
    payload = result.result or {}
    data = (payload.get("observers") or {}).get("trace")
    stats: dict[str, Any] = dict(info)
    stats.update({"duration_s": round(result.duration_s, 3), "returncode": result.returncode})
    if payload:
        stats.update({"status": payload.get("status"), "steps_traced": payload.get("steps", 0),
                      "environment": payload.get("environment", {})})
        if payload.get("compile_calls"):
            stats["torch_compile"] = "torch.compile ran eagerly under trace (same maths; the compiler itself is not observed)"
    if data is not None:
        data = {**data, "rl": (payload.get("observers") or {}).get("rl")}  # the RL watch (trace_rl.py), read by checks_rl
        data = {**data, "generic": (payload.get("observers") or {}).get("generic")}  # trace_generic.py, read by checks_generic
        data = {**data, "replicas": (payload.get("observers") or {}).get("replicas")}  # trace_replicas.py, read by checks_grad_sync
        data = {**data, "terms": (payload.get("observers") or {}).get("terms")}  # trace_terms.py, read by checks_terms
        script = (payload.get("config") or {}).get("script")
        if script:
            data = {**data, "script_dir": os.path.dirname(script)}  # user call sites are shown relative to it
        pinn = (payload.get("observers") or {}).get("pinn")
        if pinn:  # the PINN observer's measurements (runtime/child/trace_pinn.py), read by checks_pinn.py
            from mlsleuth.runtime.trace.checks_pinn import loss_term_summary

            data = {**data, "pinn": pinn}
            if loss_term_summary(pinn):
                stats["pinn_loss_terms"] = loss_term_summary(pinn)
        data = merge_after_window(payload, data)  # checkpoint events, also after the traced steps (checks_checkpoints.py)
        report.findings.extend(trace_findings(data, path=path, command=command))
        report.findings.extend(causal_findings(data))  # diagnose's causal-leakage on the traced model (trace/causal.py)
        losses = data.get("losses") or []
        if losses:
            stats["loss_first"], stats["loss_last"] = losses[0], losses[-1]
        if data.get("lr"):
            stats["lr_first"], stats["lr_last"] = data["lr"][0], data["lr"][-1]
        stats["call_sequence"] = data.get("sequences", [])[:3]
        scalers = (data.get("amp") or {}).get("scalers") or []
        if scalers:  # GradScaler: optimizer steps attempted and skipped (inf/NaN gradients); losses above are unscaled
            stats["grad_scaler"] = {k: scalers[0].get(k) for k in ("attempts", "skipped", "initial_scale", "scale_now")}
        if vital_signs(data):
            stats["rl"] = vital_signs(data)
        if data.get("extension"):
            ext = data["extension"]
            stats["steps_extended"] = (f"{ext['extra']} step(s) beyond the {ext['requested']} requested were watched "
                                       f"to settle the {ext['reason']} verdict")
        if after_window_line(payload):
            stats["after_window"] = after_window_line(payload)
        if data.get("causal_leakage") is not None:  # asked for with probes=("causal",)
            stats["causal_leakage"] = data["causal_leakage"]
        if (data.get("batch_dependence") or {}).get("skipped"):
            stats["batch_independence_skipped"] = data["batch_dependence"]["skipped"]
        order = data.get("batch_order") or {}
        if order.get("skipped") or (data.get("batch_dependence") or {}).get("skipped"):
            stats["batch_order_skipped"] = order.get("skipped") or data["batch_dependence"]["skipped"]
        generic = data.get("generic") or {}
        if generic.get("skipped"):
            stats["generic_probes_skipped"] = {"checks": generic.get("skipped_probes") or [], "reason": generic["skipped"]}
        if payload.get("status") == "finished" and payload.get("steps", 0) == 0:
            report.errors.append(ErrorEntry(
                kind="no-steps", path=path,
                message="the script finished without calling optimizer.step(); the per-step checks need a training loop "
                        "(for a model you can build in a function, use `mlsleuth diagnose FILE:FUNCTION`)"))
    if selection is not None:
        report.findings = [f for f in report.findings if selection.allows(f.rule, f.category, f.severity)]
    status = payload.get("status") or ("timeout" if result.timed_out else "no result")
    steps = payload.get("steps", 0)
    from mlsleuth.runtime.ranking import rank

    report.findings = rank(report.findings, "trace")
    report.finalize(stats=stats, sort=False)
    report.summary.text = _summary(report, status, steps, info)
    if stats.get("pinn_loss_terms"):
        from mlsleuth.runtime.trace.checks_pinn import loss_terms_text

        report.summary.text += f"; {loss_terms_text(stats['pinn_loss_terms'])}"
    if stats.get("rl"):
        report.summary.text += f"; {vital_signs_line(stats['rl'])}"
    return report


def _summary(report, status: str, steps: int, info: dict) -> str:
    head = report.default_text()
    how = {"max-steps": f"stopped after {steps} step(s)", "finished": f"script finished after {steps} step(s)",
           "exception": f"script raised after {steps} step(s)", "non-finite": f"stopped at a non-finite loss after {steps} step(s)"}.get(status, status)
    return f"{head}; {how}; interpreter: {info['interpreter']} ({info['interpreter_chosen_by']})"


def _display_path(path: Path, workdir: Path) -> str:
    try:
        return str(path.resolve().relative_to(workdir.resolve()))
    except ValueError:
        return str(path)


def trace_findings(data: dict[str, Any], *, path: str | None, command: str, only: Any = None) -> list:
    """Every trace check's findings on the trace observer's measurements (``payload["observers"]["trace"]``).

    ``command`` re-runs the trace (for next_test text); ``only(check_id)`` picks a subset of the checks.
    """
    from mlsleuth.runtime.registry import run_checks
    from mlsleuth.runtime.trace.checks import TraceRun

    return list(run_checks("trace", TraceRun(data, path=path, command=command), only=only))
