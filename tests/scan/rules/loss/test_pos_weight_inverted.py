"""The ``pos-weight-inverted`` rule (``mlsleuth/scan/rules/loss/pos_weight_inverted.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"pos-weight-inverted"}


def test_positives_over_negatives():
    src = """
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def fraud_criterion(y):
        pos_weight = (y == 1).sum() / (y == 0).sum()
        return nn.BCEWithLogitsLoss(pos_weight=torch.tensor([pos_weight]))  # expect: pos-weight-inverted

    def multilabel_criterion(targets, device):
        positives = targets.sum(0)
        negatives = targets.shape[0] - targets.sum(0)
        return nn.BCEWithLogitsLoss(pos_weight=(positives / negatives).to(device))  # expect: pos-weight-inverted

    def segmentation_loss(logits, mask):
        n_pos = mask.sum()
        n_neg = mask.numel() - n_pos
        return F.binary_cross_entropy_with_logits(logits, mask, pos_weight=n_pos / n_neg)  # expect: pos-weight-inverted

    def tabular_rate(y_train):
        rate = np.sum(y_train > 0.5) / len(y_train)
        return nn.BCEWithLogitsLoss(pos_weight=torch.as_tensor(rate, dtype=torch.float32))  # expect: pos-weight-inverted

    class Detector(nn.Module):
        def __init__(self, labels):
            super().__init__()
            num_pos = float((labels == 1).sum().item())
            num_neg = float((1 - labels).sum().item())
            self.crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(num_pos / num_neg))  # expect: pos-weight-inverted
    """
    check(src, RULE)


def test_ratio_built_in_a_helper_of_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "weights.py": """
            import torch

            def positive_weight(labels):
                pos = torch.count_nonzero(labels)
                return pos / (len(labels) - pos)
            """,
            "train.py": """
            import torch.nn as nn
            from weights import positive_weight

            def make_loss(labels):
                w = positive_weight(labels)
                return nn.BCEWithLogitsLoss(pos_weight=w)  # expect: pos-weight-inverted
            """,
        },
        RULE,
    )


def test_negatives_over_positives_and_unknown_ratios_stay_silent():
    src = """
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def documented(y):
        return nn.BCEWithLogitsLoss(pos_weight=torch.tensor([(y == 0).sum() / (y == 1).sum()]))

    def multilabel(targets):
        pos = targets.sum(0)
        return nn.BCEWithLogitsLoss(pos_weight=(targets.shape[0] - pos) / pos)

    def different_label_sets(y_train, y_val):
        return nn.BCEWithLogitsLoss(pos_weight=torch.tensor(y_train.sum() / (y_val == 0).sum()))

    def scaled_constant(logits, mask):
        return F.binary_cross_entropy_with_logits(logits, mask, pos_weight=torch.tensor([3.0]))

    def ratio_of_scores(logits, mask, a, b):
        return F.binary_cross_entropy_with_logits(logits, mask, pos_weight=a.sum() / b.sum())

    def sqrt_of_documented(y):
        neg, pos = (y == 0).sum(), (y == 1).sum()
        return nn.BCEWithLogitsLoss(pos_weight=torch.sqrt(neg / pos))
    """
    check(src, RULE)
