"""Recorded child results: what real trace/diagnose/nan children reported, replayed without a child.

Tests that check how findings are derived from measurements (and how they are worded) read a
:class:`~mlsleuth.process_runner.ChildResult` recorded once from the real child, and build the
report with the same ``prepare_*(...).to_report`` the tools use. Only the child is skipped.

After changing the child side (``mlsleuth/runtime/child/``) or a recorded script, refresh them
(from the repository root, a few minutes, two children at a time)::

    OMP_NUM_THREADS=1 python tests/runtime/recorded.py            # every case
    OMP_NUM_THREADS=1 python tests/runtime/recorded.py zoo_dead   # cases whose name starts so
    OMP_NUM_THREADS=1 python tests/runtime/recorded.py --missing  # cases not recorded yet

Each file is ``tests/runtime/<tool>/recorded/<case>.json``: the target and options (relative to
``tests/``) and the child's result, with the repository path replaced by ``<repo>`` and the interpreter by ``python``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
ZOO = TESTS / "zoo"
SCRIPTS = TESTS / "trace_scripts"
MODELS = TESTS / "diagnose_cases" / "models.py"
NAN_CASES = TESTS / "nan_cases"


def _cases() -> dict[str, tuple[str, str, dict[str, Any]]]:
    """``{case: (tool, target relative to tests/, options)}``; ``cwd`` too is relative to tests/."""
    cases: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for c in json.loads((ZOO / "cases.json").read_text(encoding="utf-8")):
        for variant in ("bug", "fixed"):
            cases[f"zoo_{c['name']}_{variant}"] = ("trace", f"zoo/{c['name']}_{variant}.py", {"steps": c["steps"], "cwd": "zoo", "timeout_s": 240})
    for c in json.loads((TESTS / "zoo_rl" / "cases.json").read_text(encoding="utf-8")):
        if c["tool"] == "trace":  # the RL zoo (issue 15); its scan cases need no child
            for variant in ("bug", "fixed"):
                cases[f"zoo_rl_{c['name']}_{variant}"] = ("trace", f"zoo_rl/{c['name']}_{variant}.py",
                                                          {"steps": c["steps"], "cwd": "zoo_rl", "timeout_s": 240})
    for script in ("cleanrl_style_dqn", "cleanrl_style_ppo"):  # clean RL agents: no warning, no error
        cases[f"script_rl_{script}"] = ("trace", f"trace_scripts/rl/{script}.py", {"steps": 40, "cwd": "trace_scripts/rl", "timeout_s": 240})
    for script in ("gan_two_optimizers", "manual_grad_reset", "grad_accumulation"):
        cases[f"script_{script}"] = ("trace", f"trace_scripts/{script}.py", {"steps": 12, "cwd": "trace_scripts", "timeout_s": 120})
    for script in ("cnn_dataloader", "tiny_transformer_lm", "regression_ema_teacher", "checkpoints_scheduler"):
        cases[f"script_{script}_30"] = ("trace", f"trace_scripts/{script}.py", {"steps": 30, "cwd": "trace_scripts", "timeout_s": 240})
    battery = {"steps": 150, "ablation_steps": 60, "cwd": "diagnose_cases", "timeout_s": 240}  # as tests/runtime/diagnose runs it
    for function in ("healthy", "healthy_zero_final_layer", "detached", "unregistered", "zero_init", "ignores_input",
                     "with_loader", "custom_loss", "softmax_output"):
        cases[f"models_{function}"] = ("diagnose", f"diagnose_cases/models.py:{function}", battery)
    cases["models_healthy_lr_range"] = ("diagnose", "diagnose_cases/models.py:healthy", {**battery, "lr_range": True})
    for function in ("lm_causal", "lm_leaky"):
        cases[f"models_{function}"] = ("diagnose", f"diagnose_cases/models.py:{function}", {**battery, "steps": 30})
    for function in ("pinn_poisson", "pinn_poisson_detached", "pinn_poisson_imbalanced", "regression_with_penalty"):
        cases[f"terms_{function}"] = ("diagnose", f"diagnose_cases/loss_terms.py:{function}", battery)  # named loss terms
    for name in sorted(p.stem for p in NAN_CASES.glob("*.py")):
        cases[f"nan_{name}"] = ("nan", f"nan_cases/{name}.py", {"max_steps": 100, "timeout_s": 120, "cwd": "nan_cases"})
    pinn = json.loads((TESTS / "zoo_pinn" / "cases.json").read_text(encoding="utf-8"))  # the PINN zoo (issue 15)
    for name in [f"{c['name']}_{v}" for c in pinn["cases"] for v in ("bug", "fixed")] + [c["name"] for c in pinn["clean"]]:
        cases[f"pinn_{name}"] = ("trace", f"zoo_pinn/{name}.py", {"steps": 20, "cwd": "zoo_pinn", "timeout_s": 240})
    return cases


CASES = _cases()


def _prepare(case: str, save_dir: str | None = None):
    tool, target, options = CASES[case]
    options = {**options, "cwd": TESTS / options["cwd"]}
    if tool == "trace":
        from mlsleuth.runtime.trace import prepare_trace as prepare
    elif tool == "diagnose":
        from mlsleuth.runtime.diagnose import prepare_diagnose as prepare
    else:
        from mlsleuth.runtime.nan import prepare_nan as prepare

        options["save_dir"] = save_dir or tempfile.gettempdir()
    return prepare(str(TESTS / target), **options)


def path_of(case: str) -> Path:
    return Path(__file__).resolve().parent / CASES[case][0] / "recorded" / f"{case}.json"


@cache
def _load(case: str) -> str:
    return path_of(case).read_text(encoding="utf-8")


def child_result(case: str):
    """The recorded :class:`~mlsleuth.process_runner.ChildResult` of ``case`` (a fresh copy)."""
    from mlsleuth.process_runner import ChildResult

    data = json.loads(_load(case).replace("<repo>", str(REPO)))
    return ChildResult(**data["child_result"])


def measurements(case: str) -> dict[str, Any]:
    """What the child reported for ``case`` (``ChildResult.result``)."""
    return child_result(case).result or {}


@cache
def report(case: str):
    """The report the tool builds from ``case``'s recorded child result (no child is started; shared, do not modify)."""
    prepared = _prepare(case)
    prepared.child.cleanup()
    return prepared.to_report(child_result(case))


def findings_of(case: str, rule: str) -> list:
    """The findings of check ``rule`` in ``case``'s report."""
    return [f for f in report(case).findings if f.rule == rule]


def record(case: str) -> list[str]:
    """Run ``case``'s real child once and save its result; returns the rules found."""
    with tempfile.TemporaryDirectory() as tmp:
        prepared = _prepare(case, save_dir=tmp)
        result = prepared.child.wait()
        rules = [f.rule for f in prepared.to_report(result).findings]
    data = {"tool": CASES[case][0], "target": CASES[case][1], "options": CASES[case][2],
            "child_result": dataclasses.asdict(result)}
    # no machine paths in the repository: the interpreter is written as plain "python"
    text = json.dumps(data, indent=1, sort_keys=True).replace(json.dumps(sys.executable), '"python"')
    text = text.replace(str(REPO), "<repo>")
    path = path_of(case)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")
    return rules


def main(prefixes: list[str]) -> int:
    from concurrent.futures import ThreadPoolExecutor

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    missing_only = "--missing" in prefixes
    prefixes = [p for p in prefixes if p != "--missing"]
    todo = [c for c in CASES if (not prefixes or any(c.startswith(p) for p in prefixes)) and not (missing_only and path_of(c).is_file())]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for case, rules in zip(todo, pool.map(record, todo)):
            print(f"{case}: {', '.join(rules) or '-'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
