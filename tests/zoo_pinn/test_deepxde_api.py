"""A PINN written with DeepXDE's own API (PyTorch backend) draws no warning or error from ``mlsleuth trace``,
and its loss is split into DeepXDE's terms. Skipped when deepxde is not installed (it is not a dependency).
"""

from __future__ import annotations

import textwrap

import pytest

pytestmark = pytest.mark.slow

SCRIPT = '''
    """-u'' = pi^2 sin(pi x) on [-1, 1], u(-1) = u(1) = 0, with DeepXDE's geometry, boundary and model objects."""
    import deepxde as dde
    import numpy as np
    import torch


    def pde(x, y):
        return -dde.grad.hessian(y, x) - np.pi**2 * torch.sin(np.pi * x)


    def on_boundary(x, on_boundary):
        return on_boundary


    geom = dde.geometry.Interval(-1, 1)
    bc = dde.icbc.DirichletBC(geom, lambda x: np.zeros((len(x), 1)), on_boundary)
    data = dde.data.PDE(geom, pde, bc, num_domain=32, num_boundary=2)
    net = dde.nn.FNN([1, 24, 24, 1], "tanh", "Glorot uniform")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3)
    model.train(iterations=200, display_every=100)
'''


def test_a_deepxde_pinn_is_traced_without_false_alarms(tmp_path, monkeypatch):
    pytest.importorskip("deepxde")
    from mlsleuth.runtime.trace import trace

    monkeypatch.setenv("DDE_BACKEND", "pytorch")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    script = tmp_path / "poisson_dde.py"
    script.write_text(textwrap.dedent(SCRIPT), encoding="utf-8")
    report = trace(script, steps=20, cwd=tmp_path, timeout_s=240)
    assert report.summary.stats.get("steps_traced") == 20, [e.message for e in report.errors]
    assert not [f.rule for f in report.findings if f.severity in ("error", "warning")]
    terms = report.summary.stats["pinn_loss_terms"]["first"]
    assert len(terms) == 2 and all(t["reaches_parameters"] for t in terms)
