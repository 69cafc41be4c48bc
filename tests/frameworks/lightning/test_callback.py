"""``mlsleuth.integrations.lightning.MlsleuthCallback``: the trace checks inside the user's own ``Trainer.fit``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def _fit_with_callback(tmp_path, name: str, steps: int = 30) -> dict:
    out = tmp_path / "report.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("MLSLEUTH_RESULT", None)
    proc = subprocess.run([sys.executable, str(SCRIPTS / "with_callback.py"), name.removesuffix(".py"), str(out), str(steps)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "mlsleuth trace:" in proc.stderr  # the text report is printed at the end of fit
    return json.loads(out.read_text())


@pytest.mark.slow
def test_callback_is_quiet_on_a_clean_run(tmp_path):
    report = _fit_with_callback(tmp_path, "clean_classifier.py")
    assert report["tool"] == "trace"
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []
    stats = report["summary"]["stats"]
    assert stats["steps_traced"] == 30 and stats["source"] == "MlsleuthCallback"
    counts = stats["stages"]["counts"]
    assert counts["train"]["backwards"] == 30 and counts["sanity_check"]["loss_calls"] >= 1 and "validate" in counts


@pytest.mark.slow
@pytest.mark.parametrize("name,rule", [("bug_softmax_in_forward.py", "softmax-into-cross-entropy"),
                                       ("bug_optimizer_misses_head.py", "param-not-in-optimizer")])
def test_callback_reports_the_trace_check_ids(tmp_path, name, rule):
    report = _fit_with_callback(tmp_path, name)
    found = {f["rule"]: f for f in report["findings"]}
    assert rule in found and found[rule]["severity"] == "error"


@pytest.mark.slow
def test_lightning_is_not_imported_with_mlsleuth_or_the_integration_module():
    code = ("import sys, mlsleuth, mlsleuth.cli, mlsleuth.integrations.lightning as m\n"
            "assert not any(k == 'lightning' or k.startswith(('lightning.', 'pytorch_lightning')) for k in sys.modules), 'imported'\n"
            "cls = m.MlsleuthCallback\n"
            "import lightning.pytorch as pl\n"
            "assert issubclass(cls, pl.Callback) and m.callback_class('lightning.pytorch') is cls\n"
            "assert not any(k in sys.modules for k in ('probes', 'channel', 'observer')), 'child modules left under bare names'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.slow
def test_callback_stays_out_of_the_way_under_mlsleuth_trace():
    from mlsleuth.runtime.trace import trace

    report = trace(SCRIPTS / "with_callback.py", args=["bug_softmax_in_forward", os.devnull, "40"], steps=12, timeout_s=240)
    assert report.errors == []
    assert "softmax-into-cross-entropy" in {f.rule for f in report.findings}
    assert report.summary.stats["steps_traced"] >= 12  # the trace may watch extra steps to settle a loss verdict
