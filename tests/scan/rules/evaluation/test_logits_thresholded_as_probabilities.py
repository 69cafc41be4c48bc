"""The ``logits-thresholded-as-probabilities`` rule (``mlsleuth/scan/rules/evaluation/logits_thresholded_as_probabilities.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"logits-thresholded-as-probabilities"}


def test_logits_rounded_or_cut_at_a_half():
    src = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(20, 64), nn.ReLU())
            self.head = nn.Linear(64, 1)

        def forward(self, x):
            return self.head(self.body(x))

    model = Net()
    criterion = nn.BCEWithLogitsLoss()

    def evaluate(loader):
        correct = 0
        for x, y in loader:
            out = model(x).squeeze(1)
            preds = torch.round(out)  # expect: logits-thresholded-as-probabilities
            correct += (preds == y).sum().item()
            hard = (out > 0.5).float()  # expect: logits-thresholded-as-probabilities
            also = model(x).detach().round()  # expect: logits-thresholded-as-probabilities
        return correct, hard, also
    """
    check(src, RULE)


def test_probabilities_zero_cut_and_regression_are_fine():
    with_logits = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(64, 1)

        def forward(self, x):
            return self.head(x)

    model = Net()
    criterion = nn.BCEWithLogitsLoss()

    def evaluate(x, y):
        out = model(x)
        a = torch.round(torch.sigmoid(out))
        probs = out.sigmoid()
        b = probs > 0.5
        c = out > 0
        return a, b, c
    """
    regression = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(64, 1)

        def forward(self, x):
            return self.head(x)

    model = Net()
    criterion = nn.MSELoss()

    def predict_rating(x):
        return torch.round(model(x))
    """
    for src in (with_logits, regression):
        check(src, RULE)
