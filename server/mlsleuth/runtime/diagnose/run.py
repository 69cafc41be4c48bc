"""``mlsleuth diagnose FILE:FUNCTION``: the cheap check battery on a model the user hands over (library API).

::

    from mlsleuth.runtime.diagnose import prepare_diagnose, diagnose
    report = diagnose("train.py:setup", steps=200, lr_range=True)

The setup-function contract is documented in ``mlsleuth/runtime/child/setup_contract.py``
(and in ``mlsleuth diagnose --help``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mlsleuth.runtime import loss_terms
from mlsleuth.runtime.common import (
    CHILD_DIR,
    RuntimeInputError,
    child_errors,
    choose_interpreter,
    raised_at,
    write_config,
)
from mlsleuth.runtime.prepared import PreparedRun

DEFAULT_STEPS = 200
DEFAULT_TIMEOUT_S = 300.0


def parse_target(target: str) -> tuple[Path, str]:
    path, sep, func = str(target).rpartition(":")
    if not sep or not path or not func:
        raise RuntimeInputError(f"expected FILE:FUNCTION (e.g. train.py:setup), got {target!r}")
    if not func.isidentifier():
        raise RuntimeInputError(f"{func!r} is not a Python function name (expected FILE:FUNCTION)")
    file = Path(path)
    if not file.is_file():
        raise RuntimeInputError(f"no such file: {path}")
    return file, func


def prepare_diagnose(
    target: str,
    *,
    steps: int = DEFAULT_STEPS,
    lr_range: bool = False,
    python: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_limit_mb: int | None = None,
    cwd: str | os.PathLike[str] | None = None,
    ablation_steps: int = 100,
    selection: Any = None,
    seed: int = 0,
) -> PreparedRun:
    """Validate ``FILE:FUNCTION`` and build (not start) the diagnose child."""
    from mlsleuth.process_runner import ChildRun

    file, func = parse_target(target)
    if not isinstance(steps, int) or isinstance(steps, bool) or not 10 <= steps <= 100_000:
        raise RuntimeInputError(f"--steps must be an integer between 10 and 100000, got {steps!r}")
    if not isinstance(ablation_steps, int) or not 10 <= ablation_steps <= 10_000:
        raise RuntimeInputError("ablation_steps must be between 10 and 10000")
    if not timeout_s or timeout_s <= 0:
        raise RuntimeInputError("--timeout must be a positive number of seconds")
    if memory_limit_mb is not None and memory_limit_mb < 64:
        raise RuntimeInputError("--memory-limit must be at least 64 MB")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise RuntimeInputError(f"--seed must be an integer between 0 and 2**32 - 1, got {seed!r}")
    interpreter, chosen_by = choose_interpreter(python, file.parent)
    workdir = Path(cwd) if cwd is not None else Path.cwd()
    try:
        display = str(file.resolve().relative_to(workdir.resolve()))
    except ValueError:
        display = str(file)
    child = ChildRun([interpreter, str(CHILD_DIR / "diagnose_main.py")], cwd=workdir, timeout_s=timeout_s,
                     memory_limit_mb=memory_limit_mb)
    write_config(child, {"spec": f"{file.resolve()}:{func}", "steps": steps, "lr_range": bool(lr_range), "ablation_steps": ablation_steps,
                         "seed": seed})
    info = {"interpreter": interpreter, "interpreter_chosen_by": chosen_by, "target": f"{display}:{func}", "overfit_step_budget": steps,
            "lr_range": bool(lr_range), "timeout_s": timeout_s, "seed": seed}

    def to_report(result: Any):
        return build_report(result, info=info, path=display, function=func, selection=selection)

    return PreparedRun(tool="diagnose", child=child, to_report=to_report, description=f"diagnose {display}:{func}",
                       total_steps=steps, info=info)


def diagnose(target: str, **kwargs: Any):
    """Blocking convenience: prepare, run and report (see :func:`prepare_diagnose`)."""
    return prepare_diagnose(target, **kwargs).run()


def call_hint(exc: dict[str, Any], forward: dict[str, Any] | None) -> str:
    """For a TypeError at the call of the model (its forward never started): what it takes and how diagnose calls it."""
    if exc.get("type") != "TypeError" or exc.get("user_frame"):
        return ""  # another error, or one raised inside the user's code (its frame says where)
    where = f"{forward['qualname']}{forward['signature']} at {forward['file']}:{forward['line']}" if forward else "the model's forward"
    return (f". The model is called as model(*inputs) when the batch's inputs are a tuple or list, model(**inputs) when they are a dict, "
            f"else model(inputs); it takes {where}. Shape the inputs to match, or return compute_loss(model, batch) from the setup function")


def build_report(result: Any, *, info: dict, path: str, function: str, selection: Any = None):
    from mlsleuth.report import ErrorEntry, Report
    from mlsleuth.runtime.trace.run import trace_findings

    report = Report(tool="diagnose")
    payload = result.result or {}
    status = payload.get("status")
    stats: dict[str, Any] = {**info, "duration_s": round(result.duration_s, 3), "status": status or "no result",
                             "device": payload.get("device"), "environment": payload.get("environment", {})}
    if status == "setup-error":
        exc = payload.get("exception") or {}
        report.errors.append(ErrorEntry(kind="setup-error", path=path, message=f"{exc.get('message')} (see `mlsleuth diagnose --help` for the setup-function contract)"))
    elif status == "exception":
        exc = payload.get("exception") or {}
        phase = exc.get("phase") or "?"
        report.errors.append(ErrorEntry(kind="user-exception", path=path, detail=exc.get("traceback"),
                                        message=f"the user's code raised {exc.get('type')}: {exc.get('message', '')[:300]}{raised_at(exc)} "
                                                f"during the {phase} phase{call_hint(exc, payload.get('model_forward'))}; findings below cover the phases before it"))
    else:
        report.errors.extend(child_errors(result, tool="diagnose", path=path, interpreter=info["interpreter"]))
    trace_data = (payload.get("observers") or {}).get("trace")
    pinn = (payload.get("observers") or {}).get("pinn")
    if trace_data is not None:
        if pinn:  # the PINN observer (runtime/child/trace_pinn.py): its checks run on a PINN setup as under trace
            trace_data = {**trace_data, "pinn": pinn}
        report.findings.extend(trace_findings(trace_data, path=path, command=f"mlsleuth diagnose {info['target']}"))
    checks = payload.get("checks") or {}
    report.findings.extend(diagnose_findings(checks, trace_data or {}, path=path, function=function))
    for err in payload.get("observer_errors", [])[:5]:
        report.errors.append(ErrorEntry(kind="internal-error", message=f"mlsleuth's {err.get('observer')} observer failed in {err.get('hook')}", detail=err.get("traceback")))
    overfit = checks.get("overfit") or {}
    if overfit.get("losses"):
        losses = overfit["losses"]
        stats.update({"overfit_passed": overfit.get("reached_at") is not None, "overfit_initial_loss": overfit.get("initial"),
                      "overfit_final_loss": losses[-1], "overfit_steps": len(losses), "overfit_reached_at": overfit.get("reached_at"),
                      "overfit_curve": [round(v, 5) for v in losses[:: max(1, len(losses) // 20)]]})
    named = checks.get("loss_terms")  # compute_loss returned a dict of named terms (runtime/child/diagnose_terms.py)
    split = (pinn or {}).get("breakdowns") if (pinn or {}).get("active") else None  # a PINN's summed loss, split
    terms = loss_terms.summary(named or split)
    if terms:  # value and gradient norm per term, shares and the largest/smallest ratios
        stats["loss_terms"] = terms
    if checks.get("ablation") and not checks["ablation"].get("skipped"):
        stats["ablation"] = {k: checks["ablation"].get(k) for k in ("real", "shuffled", "random")}
    if selection is not None:
        report.findings = [f for f in report.findings if selection.allows(f.rule, f.category, f.severity)]
    report.finalize(stats=stats)
    report.summary.text = f"{report.default_text()}; interpreter: {info['interpreter']} ({info['interpreter_chosen_by']})"
    if terms:
        report.summary.text += f"; {loss_terms.text(terms)}"
    return report


def diagnose_findings(checks: dict[str, Any], trace: dict[str, Any], *, path: str | None, function: str) -> list:
    """Every diagnose check's findings on the battery's measurements (``payload["checks"]``).

    When the trace observer saw no training batch, the battery's own input statistics go through the
    trace checks on inputs (``input-*``: documented as also reported by diagnose).
    """
    from mlsleuth.runtime.diagnose.checks import DiagnoseRun
    from mlsleuth.runtime.registry import run_checks
    from mlsleuth.runtime.trace.run import trace_findings

    out = list(run_checks("diagnose", DiagnoseRun(checks, trace, path=path, function=function)))
    inputs = checks.get("inputs")
    if inputs and not trace.get("input_stats"):
        trace_like = {"input_stats": inputs, "input_module": "(inputs)"}
        out.extend(trace_findings(trace_like, path=path, command="", only=lambda check_id: check_id.startswith("input-")))
    return out
