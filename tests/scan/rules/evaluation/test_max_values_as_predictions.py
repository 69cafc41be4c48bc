"""The ``max-values-as-predictions`` rule (``mlsleuth/scan/rules/evaluation/max_values_as_predictions.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"max-values-as-predictions"}


def test_max_scores_compared_with_labels():
    src = """
    import numpy as np
    import torch

    def accuracy(model, loader):
        correct = 0
        for images, labels in loader:
            outputs = model(images)
            predicted = torch.max(outputs.data, 1)[0]
            correct += (predicted == labels).sum().item()  # expect: max-values-as-predictions
        return correct

    def step(batch, logits):
        conf, idx = torch.max(logits, dim=1)
        acc = (conf == batch["label"]).float().mean()  # expect: max-values-as-predictions
        acc2 = logits.max(dim=-1).values.eq(batch["label"]).float().mean()  # expect: max-values-as-predictions
        return acc, acc2, idx

    def numpy_acc(probs, y_test):
        return np.mean(np.max(probs, axis=1) == y_test)  # expect: max-values-as-predictions
    """
    check(src, RULE)


def test_indices_and_one_hot_of_the_max_are_fine():
    src = """
    import torch

    def accuracy(outputs, labels, probs):
        _, predicted = torch.max(outputs, 1)
        a = (predicted == labels).sum()
        b = (outputs.max(1)[1] == labels).sum()
        c = outputs.max(dim=1).indices.eq(labels).sum()
        one_hot = probs == probs.max(dim=1, keepdim=True)[0]
        best = max(scores) == target_score
        return a, b, c, one_hot, best
    """
    check(src, RULE)
