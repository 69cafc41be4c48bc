"""DeepXDE's own PINN examples draw no warning and no error from ``trace`` (issue 15).

Runs only when ``MLSLEUTH_DEEPXDE_DIR`` names a DeepXDE checkout (not part of this repository) and
DeepXDE's dependencies are installed (``pip install deepxde`` brings them; the examples run against the
checkout's own ``deepxde`` package, put first on ``PYTHONPATH``, with ``DDE_BACKEND=pytorch``); skipped
otherwise. The examples that import TensorFlow's namespace say in a comment to use torch with the PyTorch
backend; the traced copy makes that switch. ``benchmarks/bench_rl_pinn_clean.py`` traces the full set.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

EXAMPLES = ["pinn_forward/Poisson_Dirichlet_1d.py", "pinn_forward/Poisson_Neumann_1d.py", "pinn_forward/diffusion_1d.py",
            "pinn_forward/wave_1d.py", "pinn_forward/Euler_beam.py", "pinn_inverse/diffusion_1d_inverse.py"]
DEPENDENCIES = ("numpy", "scipy", "sklearn", "skopt", "matplotlib")


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES)
def test_deepxde_examples_are_quiet(example, tmp_path, monkeypatch):
    root = os.environ.get("MLSLEUTH_DEEPXDE_DIR")
    if not root or not (Path(root) / "examples" / example).is_file():
        pytest.skip("set MLSLEUTH_DEEPXDE_DIR to a DeepXDE checkout to trace its examples")
    missing = [m for m in DEPENDENCIES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"DeepXDE's dependencies are not installed ({', '.join(missing)}): pip install deepxde")
    text = (Path(root) / "examples" / example).read_text(encoding="utf-8")
    script = tmp_path / Path(example).name
    script.write_text(text.replace("from deepxde.backend import tf", "import torch as tf"), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("DDE_BACKEND", "pytorch")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    from mlsleuth.runtime.trace import trace

    report = trace(script, steps=20, cwd=tmp_path, timeout_s=300, memory_limit_mb=6000)
    assert not report.errors, [e.message for e in report.errors]
    alarms = [f"{f.rule}: {f.message}" for f in report.findings if f.severity in ("error", "warning")]
    assert not alarms, alarms
    assert report.summary.stats["steps_traced"] == 20
    assert report.summary.stats.get("pinn_loss_terms"), "the PINN observer split DeepXDE's loss into its terms"
