"""Clean public RL and PINN code under ``mlsleuth trace``: CleanRL's single-file agents, DeepXDE's examples.

Issue 15's "done when": no warning and no error on CleanRL's single-file agents and on DeepXDE's examples
traced for a few steps, where they run on the CPU without downloads. Neither project is part of this
repository; name checkouts (a plain copy of the files is enough)::

    python benchmarks/bench_rl_pinn_clean.py --cleanrl /path/to/cleanrl --deepxde /path/to/deepxde [--write]

(or set ``MLSLEUTH_CLEANRL_DIR`` / ``MLSLEUTH_DEEPXDE_DIR``). A project that is not named, or whose checkout
lacks a script, is skipped with a note; with neither, the script says so and exits 0.

What it needs besides mlsleuth: gymnasium (CleanRL) and DeepXDE's own dependencies (``pip install
deepxde``; the examples run against the checkout's ``deepxde`` package, put first on ``PYTHONPATH``, with
``DDE_BACKEND=pytorch``). CleanRL parses its arguments with ``tyro``; a ten-line stand-in written to a temporary
folder reads ``--kebab-name value`` pairs into the ``Args`` dataclass, so tyro need not be installed.
Classic-control environments only (CartPole-v1, and Pendulum-v1 for the continuous-action agents whose
default MuJoCo tasks need extras). Every run is one ``mlsleuth trace`` child, one at a time, one thread.

``--write`` puts the table into ``docs/evidence/rl_pinn_clean_review.md`` between its markers; ``--json FILE``
keeps every row (with the findings' messages) for review.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTE = ROOT / "docs" / "evidence" / "rl_pinn_clean_review.md"
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"

# (script under cleanrl/, optimizer steps traced, script arguments): a few hundred environment steps
# before learning starts, so that the trace sees real updates (and, for DQN/C51, the target sync).
_FEW = ["--total-timesteps", "3000", "--learning-starts", "200"]
_PENDULUM = ["--env-id", "Pendulum-v1"]
AGENTS = [
    ("dqn.py", 40, _FEW),
    ("c51.py", 40, _FEW),
    ("ppo.py", 40, ["--total-timesteps", "4096"]),
    ("pqn.py", 40, ["--total-timesteps", "4096"]),
    ("ppo_continuous_action.py", 40, _PENDULUM + ["--total-timesteps", "4096", "--num-steps", "512"]),
    ("rpo_continuous_action.py", 40, _PENDULUM + ["--total-timesteps", "4096", "--num-steps", "512"]),
    ("sac_continuous_action.py", 40, _PENDULUM + _FEW),
    ("td3_continuous_action.py", 40, _PENDULUM + _FEW),
    ("ddpg_continuous_action.py", 40, _PENDULUM + _FEW),
]

# DeepXDE examples with the PyTorch backend that read no data file (examples/<path>).
EXAMPLES = [
    "pinn_forward/Poisson_Dirichlet_1d.py", "pinn_forward/Poisson_Dirichlet_1d_exactBC.py",
    "pinn_forward/Poisson_Neumann_1d.py", "pinn_forward/Poisson_Robin_1d.py", "pinn_forward/Poisson_periodic_1d.py",
    "pinn_forward/Euler_beam.py", "pinn_forward/ode_2nd.py", "pinn_forward/ode_system.py",
    "pinn_forward/diffusion_1d.py", "pinn_forward/diffusion_1d_exactBC.py", "pinn_forward/diffusion_1d_resample.py",
    "pinn_forward/diffusion_reaction.py", "pinn_forward/wave_1d.py", "pinn_forward/Laplace_disk.py",
    "pinn_forward/Helmholtz_Dirichlet_2d.py", "pinn_forward/Helmholtz_Neumann_2d_hole.py",
    "pinn_forward/Helmholtz_Sound_hard_ABC_2d.py", "pinn_forward/Kovasznay_flow.py",
    "pinn_forward/elasticity_plate.py", "pinn_forward/american_put.py", "pinn_forward/black_scholes_call.py",
    "pinn_inverse/diffusion_1d_inverse.py", "pinn_inverse/diffusion_reaction_rate.py",
    "pinn_inverse/elliptic_inverse_field.py", "pinn_inverse/elliptic_inverse_field_batch.py",
    "pinn_inverse/brinkman_forchheimer.py",
]
# Examples left out, and why (each checked by running it without mlsleuth).
LEFT_OUT = {
    "pinn_forward/Poisson_Lshape.py": "fails on its own with the PyTorch backend (float64 points into a float32 network)",
    "pinn_forward/Poisson_multiscale_1d.py": "fails on its own with the PyTorch backend (`sin` is defined for TensorFlow and Paddle only)",
    "pinn_forward/Beltrami_flow.py": "grows past 5 GB within a minute on its own: too large for a shared CPU machine",
    "pinn_forward/Lotka_Volterra.py": "its PyTorch input transform is a commented-out block of another shape; the TensorFlow one "
                                      "feeds 7 features to a network built for 1",
}
# Many examples import TensorFlow's namespace (`from deepxde.backend import tf`) and say in a comment to use
# torch instead with the PyTorch backend; the traced copy makes that switch (torch has the functions they use).
TF_IMPORT, TORCH_SWITCH = "from deepxde.backend import tf", "import torch as tf  # the example's switch to the PyTorch backend"
EXAMPLE_STEPS = 30
MEMORY_LIMIT_MB = 6000  # per traced script: the machine is shared

TYRO_STANDIN = '''"""A stand-in for tyro.cli (mlsleuth's benchmark): --kebab-name VALUE pairs into the dataclass."""
import dataclasses
import sys


def cli(cls):
    defaults = cls()
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    values, argv = {}, sys.argv[1:]
    for flag, raw in zip(argv[::2], argv[1::2]):
        name = flag.lstrip("-").replace("-", "_")
        if name not in names:
            raise SystemExit(f"unknown argument {flag}")
        old = getattr(defaults, name)
        values[name] = (raw.lower() in ("1", "true", "yes") if isinstance(old, bool)
                        else type(old)(float(raw)) if isinstance(old, (int, float)) else raw)
    return dataclasses.replace(defaults, **values)
'''


def _alarms(report) -> list[str]:
    return sorted({f"{f.rule} ({f.severity})" for f in report.findings if f.severity in ("error", "warning")})


def _infos(report) -> list[str]:
    return sorted({f.rule for f in report.findings if f.severity == "info"})


def _vitals(stats: dict) -> str:
    rl = stats.get("rl") or {}
    if rl:
        text = f"{rl.get('episodes_finished', 0)} episodes in {rl.get('env_steps', 0)} env steps"
        syncs = [tn.get("syncs") for tn in rl.get("target_networks") or []]
        return text + (f", target syncs {syncs}" if syncs else "")
    terms = stats.get("pinn_loss_terms") or {}
    rows = terms.get("first") or []
    return f"{len(rows)} loss terms" if rows else ""


def trace_one(script: Path, args: list[str], steps: int, env: dict[str, str], timeout_s: float, python: str | None) -> dict:
    from mlsleuth.runtime.trace import trace

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="mlsleuth-clean-") as cwd:
            report = trace(script, args=args, steps=steps, cwd=cwd, timeout_s=timeout_s, python=python,
                           memory_limit_mb=MEMORY_LIMIT_MB)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    stats = report.summary.stats
    return {"steps": stats.get("steps_traced"), "status": stats.get("status"), "seconds": round(time.perf_counter() - start, 1),
            "alarms": _alarms(report), "infos": _infos(report),
            "errors": [e.message[:300] for e in report.errors], "vitals": _vitals(stats),
            "messages": [f"{f.rule}: {f.message}" for f in report.findings if f.severity in ("error", "warning")]}


def plan(cleanrl: Path | None, deepxde: Path | None, only: str | None) -> tuple[list[tuple], list[str]]:
    """The runs to make ``(suite, label, script, args, steps, extra env)`` and the notes on what is skipped."""
    runs, notes = [], []
    if cleanrl is None:
        notes.append("CleanRL: no checkout named (--cleanrl or MLSLEUTH_CLEANRL_DIR): skipped")
    else:
        for name, steps, args in AGENTS:
            path = cleanrl / "cleanrl" / name
            if path.is_file():
                runs.append(("CleanRL", name, path, list(args), steps, {"_root": str(cleanrl)}))
            else:
                notes.append(f"CleanRL: {name} not in the checkout: skipped")
    if deepxde is None:
        notes.append("DeepXDE: no checkout named (--deepxde or MLSLEUTH_DEEPXDE_DIR): skipped")
    else:
        for rel in EXAMPLES:
            path = deepxde / "examples" / rel
            if path.is_file():
                runs.append(("DeepXDE", rel, path, [], EXAMPLE_STEPS, {"_root": str(deepxde)}))
            else:
                notes.append(f"DeepXDE: examples/{rel} not in the checkout: skipped")
        notes.extend(f"DeepXDE: examples/{rel} left out: {why}" for rel, why in LEFT_OUT.items())
    if only:
        runs = [r for r in runs if only in r[1]]
    return runs, notes


def pytorch_copy(example: Path, into: Path) -> Path:
    """The example itself, or a copy switched to torch where it imports TensorFlow's namespace."""
    text = example.read_text(encoding="utf-8")
    if TF_IMPORT not in text:
        return example
    into.parent.mkdir(parents=True, exist_ok=True)
    into.write_text(text.replace(TF_IMPORT, TORCH_SWITCH), encoding="utf-8")
    return into


def run_all(runs: list[tuple], timeout_s: float, pythons: dict[str, str | None], keep: Path | None = None) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="mlsleuth-clean-bench-") as shim:
        (Path(shim) / "tyro").mkdir()
        (Path(shim) / "tyro" / "__init__.py").write_text(TYRO_STANDIN, encoding="utf-8")
        for suite, label, path, args, steps, extra in runs:
            root = extra["_root"]
            if suite == "DeepXDE":
                path = pytorch_copy(path, Path(shim) / "examples" / label)
            paths = [shim, root] if suite == "CleanRL" else [root]
            env = {"PYTHONPATH": os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p]),
                   "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "DDE_BACKEND": "pytorch"}
            row = {"suite": suite, "script": label, "args": " ".join(args), "requested_steps": steps}
            row.update(trace_one(path, args, steps, env, timeout_s, pythons.get(suite)))
            print(f"{suite:8} {label:45} steps {row['steps']!s:>4}  {', '.join(row['alarms']) or 'quiet'}"
                  + (f"  ERRORS: {row['errors']}" if row["errors"] else ""), flush=True)
            rows.append(row)
            if keep is not None:  # written after every script, so a long run that is stopped keeps its rows
                keep.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| project | script | arguments | steps traced | warnings / errors | info | run errors | vital signs |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['suite']} | `{r['script']}` | {('`' + r['args'] + '`') if r['args'] else '-'} | {r['steps']} | "
                     f"{', '.join(r['alarms']) or 'none'} | {', '.join(r['infos']) or '-'} | "
                     f"{'; '.join(r['errors']) or '-'} | {r['vitals'] or '-'} |")
    quiet = sum(1 for r in rows if not r["alarms"] and not r["errors"])
    lines.append("")
    lines.append(f"{quiet}/{len(rows)} scripts traced with no warning, no error and no run error.")
    return "\n".join(lines)


def write_note(text: str) -> None:
    page = NOTE.read_text(encoding="utf-8")
    if BEGIN not in page or END not in page:
        raise SystemExit(f"{NOTE} lacks the {BEGIN} / {END} markers")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    NOTE.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cleanrl", type=Path, default=os.environ.get("MLSLEUTH_CLEANRL_DIR") or None,
                        help="a CleanRL checkout (the folder holding cleanrl/ and cleanrl_utils/)")
    parser.add_argument("--deepxde", type=Path, default=os.environ.get("MLSLEUTH_DEEPXDE_DIR") or None,
                        help="a DeepXDE checkout (the folder holding deepxde/ and examples/)")
    parser.add_argument("--cleanrl-python", help="interpreter for CleanRL's agents (CleanRL pins gymnasium 0.29.1: its "
                        "continuous-action agents fail under gymnasium 1.x; default: this one)")
    parser.add_argument("--deepxde-python", help="interpreter for DeepXDE's examples (default: this one)")
    parser.add_argument("--only", help="run only the scripts whose name contains this text")
    parser.add_argument("--steps", type=int, help="optimizer steps to trace per script (default: 40 per agent, 30 per example)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per traced script (default 300)")
    parser.add_argument("--write", action="store_true", help=f"write the table into {NOTE.relative_to(ROOT)}")
    parser.add_argument("--json", type=Path, help="also write every row (findings' titles included) to this file")
    args = parser.parse_args(argv)
    runs, notes = plan(args.cleanrl, args.deepxde, args.only)
    if args.steps:
        runs = [(*r[:4], args.steps, r[5]) for r in runs]
    for note in notes:
        print(note)
    if not runs:
        print("nothing to trace: name a CleanRL and/or DeepXDE checkout")
        return 0
    rows = run_all(runs, args.timeout, {"CleanRL": args.cleanrl_python, "DeepXDE": args.deepxde_python}, args.json)
    text = table(rows)
    print()
    print(text)
    if args.write:
        write_note(text)
    return 0 if all(not r["alarms"] and not r["errors"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
