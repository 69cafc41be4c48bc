"""`mlsleuth.integrations.hf.MlsleuthCallback`: the trace LM checks inside the user's own Trainer run.

The Trainer scripts of ``scripts/`` run in a child process with the callback added (``runpy`` after a patch of
``Trainer.__init__`` that appends it), so each test is ``slow``; the import-time and report-building tests are not.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent / "scripts"

RUN_WITH_CALLBACK = textwrap.dedent("""
    import runpy, sys
    import transformers
    from mlsleuth.integrations.hf import MlsleuthCallback

    script, out = sys.argv[1], sys.argv[2]
    original = transformers.Trainer.__init__

    def init(self, *args, callbacks=None, **kwargs):
        original(self, *args, callbacks=[*(callbacks or []), MlsleuthCallback(out, print_report=False, script=script)], **kwargs)

    transformers.Trainer.__init__ = init
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")
""")


def _callback_report(tmp_path: Path, script: str) -> dict:
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-c", RUN_WITH_CALLBACK, str(SCRIPTS / script), str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.exists(), proc.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_importing_the_integration_does_not_import_transformers():
    code = "import sys, mlsleuth, mlsleuth.integrations.hf; print('transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_report_from_measurements_uses_the_trace_checks():
    from mlsleuth.integrations.hf import report_from_measurements

    report = report_from_measurements({"batches": 4, "model": "GPT2LMHeadModel", "causal": True,
                                       "labeled": {"batches": 4, "positions": 128, "ignored": 128, "rows": 8,
                                                   "rows_without_targets": 8},
                                       "without_targets": [0, 1, 2, 3], "non_finite_loss": {"step": 0, "value": float("nan")}},
                                      path="train.py")
    assert report.tool == "trace"
    assert {f.rule for f in report.findings} == {"lm-batch-without-targets", "non-finite-loss"}
    assert report.summary.stats["ignored_label_share"] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("script, expected", [
    ("clean_trainer.py", set()),
    ("collator_lm_trainer.py", set()),
    ("pad_labels_trainer.py", {"lm-pad-labels-scored"}),
    ("double_shift_trainer.py", {"lm-labels-double-shifted"}),
    ("unshifted_compute_loss_trainer.py", {"lm-targets-unshifted"}),
    ("truncated_prompt_trainer.py", {"lm-batch-without-targets", "non-finite-loss"}),
])
def test_callback_finds_exactly_the_planted_bug(tmp_path, script, expected):
    pytest.importorskip("transformers")
    report = _callback_report(tmp_path, script)
    assert report["tool"] == "trace" and report["errors"] == []
    assert {f["rule"] for f in report["findings"]} == expected
