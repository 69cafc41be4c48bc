"""`overfit-one-batch` (diagnose): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "overfit-one-batch"


def test_overfit_one_batch_is_found():
    found = findings_of("models_zero_init", CHECK)
    assert found, "expected overfit-one-batch in the recorded models_zero_init run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_overfit_one_batch_is_not_found_without_the_bug():
    assert not findings_of("models_healthy", CHECK)


def test_chance_level_loss_is_the_loss_of_predicting_the_label_prior():
    """The reference the overfit target is a fraction of (computed in the child, with the user's loss)."""
    import math
    import sys
    from pathlib import Path

    import pytest

    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))
    from diagnose_main import chance_level_loss
    from torch import nn

    y = torch.tensor([0, 0, 1, 2])
    entropy = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert chance_level_loss(nn.CrossEntropyLoss(), torch.randn(4, 3), y) == pytest.approx(entropy, rel=1e-5)
    # a language model's (N, T, vocab) outputs with a loss that flattens them: the class dimension is the last one
    tokens = torch.randint(0, 16, (8, 11), generator=torch.Generator().manual_seed(0))
    prior = torch.bincount(tokens.flatten(), minlength=16).double() / tokens.numel()
    lm_entropy = float(-(prior[prior > 0] * prior[prior > 0].log()).sum())
    lm_loss = lambda out, t: nn.functional.cross_entropy(out.reshape(-1, 16), t.reshape(-1))
    assert chance_level_loss(lm_loss, torch.randn(8, 11, 16), tokens) == pytest.approx(lm_entropy, rel=1e-5)
    # regression: the mean target, so MSE gives the targets' variance
    targets = torch.randn(10, 2)
    assert chance_level_loss(nn.MSELoss(), torch.randn(10, 2), targets) == pytest.approx(float(targets.var(0, unbiased=False).mean()), rel=1e-5)
    # layouts it cannot read, and a batch of one label (no chance level above zero): no reference
    assert chance_level_loss(nn.CrossEntropyLoss(), torch.randn(4, 3), torch.zeros(4, dtype=torch.long)) is None
    assert chance_level_loss(nn.MSELoss(), torch.randn(4, 3), torch.randn(5)) is None
    assert chance_level_loss(None, torch.randn(4, 3), y) is None
