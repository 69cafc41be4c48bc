"""The ``softmax-into-nll-loss`` rule (``mlsleuth/scan/rules/loss/softmax_into_nll_loss.py``)."""

from __future__ import annotations

from scan.helpers import check

SOFTMAX_LOGIT = "softmax-into-logit-loss"
SOFTMAX_NLL = "softmax-into-nll-loss"


def test_softmax_into_nll_loss_through_module_attribute():
    src = """
    import torch.nn as nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(10, 5)
            self.sm = nn.Softmax(dim=1)  # expect: softmax-into-nll-loss
            self.loss_fn = nn.NLLLoss()

        def loss(self, x, y):
            probs = self.sm(self.fc(x))
            return self.loss_fn(probs, y)
    """
    check(src, {SOFTMAX_NLL})
    check(src, {SOFTMAX_LOGIT})


def test_log_softmax_module_into_nll_is_fine():
    src = """
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(10, 5), nn.LogSoftmax(dim=1))
    loss_fn = nn.NLLLoss()

    def step(x, y):
        return loss_fn(model(x), y)
    """
    check(src)


def test_notebook_observations_name_cells_not_joined_lines():
    from pathlib import Path

    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    case = Path(__file__).parents[2] / "corpus" / "classifier_notebook" / "buggy.ipynb"
    report = scan_paths([case], root=case.parent, config=Config(), use_cache=False, jobs=1)
    (f,) = [f for f in report.findings if f.rule == SOFTMAX_NLL]
    assert (f.location.cell, f.location.line) == (3, 5)  # the model's softmax, where the fix goes
    assert "nn.Softmax() at cell 3 line 5" in f.observation
    assert "nll(...) at cell 4 line 9" in f.observation
