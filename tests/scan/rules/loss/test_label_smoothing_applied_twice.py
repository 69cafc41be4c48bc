"""The ``label-smoothing-applied-twice`` rule (``mlsleuth/scan/rules/loss/label_smoothing_applied_twice.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"label-smoothing-applied-twice"}


def test_smoothed_targets_into_a_smoothing_loss():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def vision_step(model, x, y_onehot, eps=0.1, k=10):
        soft = y_onehot * (1.0 - eps) + eps / k
        return F.cross_entropy(model(x), soft, label_smoothing=eps)  # expect: label-smoothing-applied-twice

    class TextClassifier(nn.Module):
        def __init__(self, smoothing):
            super().__init__()
            self.criterion = nn.CrossEntropyLoss(label_smoothing=smoothing)

        def loss(self, logits, target, smoothing, n):
            target = target.float()
            target = (1 - smoothing) * target + smoothing / n
            return self.criterion(logits, target.to(logits.device))  # expect: label-smoothing-applied-twice

    def audio_step(model, x, y):
        crit = nn.CrossEntropyLoss(label_smoothing=0.1)
        y = y * 0.9 + 0.01
        return crit(model(x), y)  # expect: label-smoothing-applied-twice

    class Tagger(nn.Module):
        def training_loss(self, scores, onehot):
            target = onehot * (1 - self.eps) + self.eps / self.num_tags
            return F.cross_entropy(scores, target, label_smoothing=self.eps)  # expect: label-smoothing-applied-twice
    """
    check(src, RULE)


def test_smoothing_in_a_data_module_and_a_tensor_dataset(tmp_path):
    check_project(
        tmp_path,
        {
            "data.py": """
            import numpy as np
            import torch

            def load(labels, classes, smoothing=0.1):
                y = np.eye(classes, dtype=np.float32)[labels]
                y = y * (1.0 - smoothing) + smoothing / classes
                return torch.from_numpy(np.zeros((len(labels), 4), np.float32)), torch.from_numpy(y)
            """,
            "train.py": """
            import torch
            import torch.nn.functional as F
            from torch.utils.data import DataLoader, TensorDataset
            from data import load

            def train(model, labels, cfg):
                x, y = load(labels, 10, smoothing=cfg["ls"])
                loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
                for xb, yb in loader:
                    loss = F.cross_entropy(model(xb), yb, label_smoothing=cfg["ls"])  # expect: label-smoothing-applied-twice
                    loss.backward()
            """,
        },
        RULE,
    )


def test_smoothing_in_a_helper_passed_through_a_parameter(tmp_path):
    check_project(
        tmp_path,
        {
            "train.py": """
            import torch
            import torch.nn as nn

            def smooth(onehot, eps, k):
                return onehot * (1 - eps) + eps / k

            def step(model, criterion, x, target):
                return criterion(model(x), target)

            def fit(model, x, onehot):
                crit = nn.CrossEntropyLoss(label_smoothing=0.05)
                return crit(model(x), smooth(onehot, 0.05, 5))  # expect: label-smoothing-applied-twice
            """,
        },
        RULE,
    )


def test_smoothing_once_stays_silent():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def by_hand_only(model, x, y_onehot, eps=0.1, k=10):
        soft = y_onehot * (1.0 - eps) + eps / k
        return F.cross_entropy(model(x), soft)

    def by_loss_only(model, x, y, eps):
        return F.cross_entropy(model(x), y, label_smoothing=eps)

    def smoothing_switched_off(model, x, y_onehot, eps=0.1, k=10):
        soft = y_onehot * (1.0 - eps) + eps / k
        return F.cross_entropy(model(x), soft, label_smoothing=0.0)

    def mixup_is_not_smoothing(model, x, y_a, y_b, lam):
        target = y_a * lam + y_b * (1 - lam)
        return F.cross_entropy(model(x), target, label_smoothing=0.1)

    def ema_is_not_smoothing(model, x, y, teacher, momentum):
        target = teacher * (1 - momentum) + momentum * y
        return F.cross_entropy(model(x), y, label_smoothing=0.1), target

    def hard_targets_reassigned(model, x, y, eps, k):
        y = y * (1 - eps) + eps / k
        y = y.argmax(1)
        return F.cross_entropy(model(x), y, label_smoothing=eps)
    """
    check(src, RULE)


def test_smoothed_targets_elsewhere_in_the_loader_stay_silent(tmp_path):
    check_project(
        tmp_path,
        {
            "train.py": """
            import torch
            import torch.nn.functional as F
            from torch.utils.data import DataLoader, TensorDataset

            def train(model, x, y_hard, y_onehot, eps):
                soft = y_onehot * (1 - eps) + eps / 10
                loader = DataLoader(TensorDataset(x, y_hard, soft), batch_size=8)
                for xb, yb, sb in loader:
                    loss = F.cross_entropy(model(xb), yb, label_smoothing=eps)
                    loss = loss + F.cross_entropy(model(xb), sb)
                    loss.backward()
            """,
        },
        RULE,
    )
