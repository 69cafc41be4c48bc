"""`mlsleuth trace` on Hugging Face Trainer scripts: the clean one is silent, each buggy one gets its finding.

Every test runs a child process (a tiny GPT-2 on CPU, 20 steps): all are ``slow``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent / "scripts"
NOISE = {"update-ratio-too-large"}  # symptoms of the NaN step the truncated-prompt bug causes


@pytest.mark.slow
@pytest.mark.parametrize("script, expected", [
    ("clean_trainer.py", set()),
    ("collator_lm_trainer.py", set()),
    ("pad_labels_trainer.py", {"lm-pad-labels-scored"}),
    ("double_shift_trainer.py", {"lm-labels-double-shifted"}),
    ("unshifted_compute_loss_trainer.py", {"lm-targets-unshifted"}),
    ("truncated_prompt_trainer.py", {"lm-batch-without-targets", "non-finite-loss"}),
])
def test_trace_finds_exactly_the_planted_bug(script, expected):
    pytest.importorskip("transformers")
    from mlsleuth.runtime.trace import trace

    report = trace(SCRIPTS / script, steps=20, cwd=SCRIPTS, timeout_s=240)
    assert report.errors == [], [e.message for e in report.errors]
    rules = {f.rule for f in report.findings}
    assert rules - NOISE == expected
    if not expected:
        assert not [f for f in report.findings if f.severity in ("warning", "error")]
