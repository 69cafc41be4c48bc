"""The ``class-weights-follow-frequency`` rule (``mlsleuth/scan/rules/loss/class_weights_follow_frequency.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"class-weights-follow-frequency"}


def test_frequencies_and_counts_used_as_weights():
    src = """
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def criterion_for(labels):
        counts = np.bincount(labels)
        freq = counts / counts.sum()
        return nn.CrossEntropyLoss(weight=torch.tensor(freq, dtype=torch.float))  # expect: class-weights-follow-frequency

    def loss_for(logits, y, frame):
        w = torch.as_tensor(frame["label"].value_counts().sort_index().values, dtype=torch.float)
        return F.cross_entropy(logits, y, w)  # expect: class-weights-follow-frequency

    def log_damped(y):
        _, counts = np.unique(y, return_counts=True)
        return nn.NLLLoss(torch.tensor(np.log1p(counts)))  # expect: class-weights-follow-frequency
    """
    check(src, RULE)


def test_accumulated_counts_through_a_returned_tuple_and_a_parameter(tmp_path):
    check_project(
        tmp_path,
        {
            "utils.py": """
            import torch

            def compute_labels(model, loader, k):
                counts = torch.zeros(k)
                labels = []
                with torch.no_grad():
                    for img, _ in loader:
                        lab = model(img).argmax(1)
                        counts += torch.bincount(lab.flatten(), minlength=k).float()
                        labels.append(lab)
                weight = counts / counts.sum()
                return torch.cat(labels), weight, counts
            """,
            "train.py": """
            import torch
            from utils import compute_labels

            def train_epoch(model, loader, labels, weight, optimizer):
                criterion = torch.nn.CrossEntropyLoss(weight=weight)  # expect: class-weights-follow-frequency
                for i, (img, _) in enumerate(loader):
                    loss = criterion(model(img), labels[i])
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()

            def main(model, loader, optimizer, k):
                labels, weight, counts = compute_labels(model, loader, k)
                train_epoch(model, loader, labels, weight, optimizer)
            """,
        },
        RULE,
    )


def test_inverted_frequencies_and_balanced_weights_are_fine():
    src = """
    import numpy as np
    import torch
    import torch.nn as nn
    from sklearn.utils.class_weight import compute_class_weight

    def inverse(labels, k):
        counts = np.bincount(labels, minlength=k)
        freq = counts / counts.sum()
        w = 1.0 / (k * freq)
        return nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float))

    def total_over_counts(labels):
        counts = torch.bincount(labels).float()
        return nn.CrossEntropyLoss(weight=counts.sum() / counts)

    def one_minus(labels):
        freq = torch.bincount(labels).float() / len(labels)
        return nn.CrossEntropyLoss(weight=1 - freq)

    def inverse_sqrt(labels):
        counts = torch.bincount(labels).float()
        return nn.CrossEntropyLoss(weight=counts ** -0.5)

    def reciprocal(labels):
        return nn.CrossEntropyLoss(weight=torch.bincount(labels).float().reciprocal())

    def balanced(y):
        w = compute_class_weight("balanced", classes=np.unique(y), y=y)
        return nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float))

    def given(weights):
        return nn.CrossEntropyLoss(weight=weights)

    def label_smoothing_only():
        return nn.CrossEntropyLoss(label_smoothing=0.1)
    """
    check(src, RULE)
