"""Hand-made trace measurements for the per-check tests (what the child's observer would report)."""

from __future__ import annotations

import math

from mlsleuth.runtime.trace.run import trace_findings


def param(name, module, shape=(4, 4), steps=10, none=0, zero=0, changed=True, ratio=1e-3, grad=0.1, norm0=1.0):
    """One parameter's record as the trace observer writes it."""
    return {"name": name, "module": module, "shape": list(shape), "numel": math.prod(shape), "requires_grad": True,
            "grad_none_steps": none, "grad_zero_steps": zero, "steps_seen": steps, "param_norm0": norm0, "changed": changed,
            "grad_norm_median": grad, "update_ratio_median": ratio, "update_ratios": [ratio] * steps}


def trace_findings_rules(data: dict) -> set[str]:
    """The ids of every trace finding these measurements give."""
    return {f.rule for f in trace_findings(data, path="train.py", command="mlsleuth trace train.py")}


def findings_for(check: str, data: dict) -> list:
    """The findings of one check on these measurements."""
    return [f for f in trace_findings(data, path="train.py", command="mlsleuth trace train.py") if f.rule == check]


def traced(script: str, variant: str, steps: int = 20) -> list:
    """Findings of a real traced run of ``tests/trace_scripts/families/<script>`` with argv ``[variant]`` (a child process)."""
    from pathlib import Path

    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / script, args=[variant], steps=steps, cwd=folder, timeout_s=180)
    assert report.errors == [], [e.message for e in report.errors]
    return report.findings
