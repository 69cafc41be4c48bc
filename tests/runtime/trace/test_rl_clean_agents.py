"""Clean RL agents draw no warning and no error from ``trace`` (issue 15).

* CleanRL-style single-file DQN and PPO on CartPole (own code, ``tests/trace_scripts/rl/``): recorded child
  results (``python tests/runtime/recorded.py script_rl_``) and, slow, one live trace;
* CleanRL's own ``dqn.py`` and ``ppo.py`` when a checkout is named by ``MLSLEUTH_CLEANRL_DIR`` (not part of
  this repository; skipped otherwise). Their ``tyro`` argument parser is replaced by a two-line stand-in
  that returns the defaults.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..recorded import report as recorded_report

SCRIPTS = Path(__file__).resolve().parents[2] / "trace_scripts" / "rl"


def _alarms(report) -> list[str]:
    return sorted(f"{f.rule}@{f.location.module}" for f in report.findings if f.severity in ("error", "warning"))


@pytest.mark.parametrize("script", ["cleanrl_style_dqn", "cleanrl_style_ppo"])
def test_cleanrl_style_agents_are_quiet(script):
    report = recorded_report(f"script_rl_{script}")
    assert not _alarms(report), _alarms(report)
    assert not report.errors, [e.message for e in report.errors]
    rl = report.summary.stats["rl"]
    assert rl["episodes_finished"] > 10 and rl["returns_trend"]["episodes"] > 10  # early returns are noisy: not judged
    if script == "cleanrl_style_dqn":
        assert rl["target_networks"][0]["syncs"] >= 1  # the trace watched long enough to see the hard sync
    else:
        assert abs(rl["advantage_mean_last"]) < 0.1 and 0.5 < rl["advantage_std_last"] < 1.5  # normalised advantages


@pytest.mark.slow
def test_live_cleanrl_style_dqn_is_quiet():
    pytest.importorskip("gymnasium")
    from mlsleuth.runtime.trace import trace

    report = trace(SCRIPTS / "cleanrl_style_dqn.py", steps=40, cwd=SCRIPTS, timeout_s=240)
    assert not _alarms(report) and not report.errors


@pytest.mark.slow
@pytest.mark.parametrize("script", ["dqn.py", "ppo.py"])
def test_cleanrl_checkout_agents_are_quiet(script, tmp_path, monkeypatch):
    root = os.environ.get("MLSLEUTH_CLEANRL_DIR")
    if not root or not (Path(root) / "cleanrl" / script).is_file():
        pytest.skip("set MLSLEUTH_CLEANRL_DIR to a CleanRL checkout to trace its agents")
    pytest.importorskip("gymnasium")
    shim = tmp_path / "shim" / "tyro"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("def cli(cls):\n    return cls()\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path / "shim"), root, os.environ.get("PYTHONPATH", "")]))
    from mlsleuth.runtime.trace import trace

    report = trace(Path(root) / "cleanrl" / script, steps=40, cwd=tmp_path, timeout_s=300)
    assert not report.errors, [e.message for e in report.errors]
    assert not _alarms(report), _alarms(report)
    assert report.summary.stats["rl"]["episodes_finished"] > 10
