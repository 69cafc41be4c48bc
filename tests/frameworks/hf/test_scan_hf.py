"""`mlsleuth scan` on the Hugging Face Trainer scripts: exactly the planted bug of each, nothing on the clean ones.

In-process (no child, no subprocess): every rule on each script's source.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlsleuth.scan.analyze import analyze_source

SCRIPTS = Path(__file__).resolve().parent / "scripts"


@pytest.mark.parametrize("script, expected", [
    ("clean_trainer.py", set()),
    ("collator_lm_trainer.py", set()),  # labels copied from padded ids, but the LM collator rebuilds them
    ("pad_labels_trainer.py", {"padding-counted-in-loss"}),
    ("double_shift_trainer.py", {"causal-lm-labels-shifted-twice"}),
    ("unshifted_compute_loss_trainer.py", {"causal-lm-unshifted-labels"}),
    ("truncated_prompt_trainer.py", set()),  # a data property: only trace sees it (lm-batch-without-targets)
])
def test_scan_finds_exactly_the_planted_bug(script, expected):
    path = SCRIPTS / script
    result = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert not result.errors, [e.message for e in result.errors]
    assert {f.rule for f in result.findings} == expected
