"""More shapes for ``sampler-weights-per-class`` (written independently by another author of the same rule)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"sampler-weights-per-class"}


def test_class_weights_handed_to_the_sampler():
    src = """
    from collections import Counter
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, WeightedRandomSampler
    from sklearn.utils.class_weight import compute_class_weight

    def balanced_loader(dataset, labels, bs):
        class_counts = np.bincount(labels)
        weights = 1.0 / class_counts
        sampler = WeightedRandomSampler(weights, num_samples=len(labels))  # expect: sampler-weights-per-class
        return DataLoader(dataset, batch_size=bs, sampler=sampler)

    def from_unique(dataset, y):
        _, counts = np.unique(y, return_counts=True)
        w = torch.tensor(counts.sum() / counts, dtype=torch.double)
        return WeightedRandomSampler(weights=w, num_samples=len(dataset), replacement=True)  # expect: sampler-weights-per-class

    def from_counter(ds):
        counts = Counter(ds.targets)
        class_w = [1.0 / counts[c] for c in sorted(counts)]
        return torch.utils.data.WeightedRandomSampler(class_w, len(ds))  # expect: sampler-weights-per-class

    def from_sklearn(ds, y):
        cw = compute_class_weight("balanced", classes=np.unique(y), y=y)
        return WeightedRandomSampler(torch.from_numpy(cw).double(), len(y))  # expect: sampler-weights-per-class

    class Data:
        def sampler(self, train_labels, train_dataset):
            class_counts = np.array([np.sum(train_labels == c) for c in np.unique(train_labels)])
            class_weights = 1 / class_counts
            return WeightedRandomSampler(class_weights, len(train_dataset))  # expect: sampler-weights-per-class
    """
    check(src, RULE)


def test_weights_looked_up_per_sample_are_fine():
    src = """
    from collections import Counter
    import numpy as np
    import torch
    from torch.utils.data import WeightedRandomSampler

    def balanced(labels):
        class_counts = np.bincount(labels)
        class_w = 1.0 / class_counts
        sample_w = class_w[labels]
        return WeightedRandomSampler(sample_w, num_samples=len(labels))

    def balanced_list(ds):
        counts = Counter(ds.targets)
        weights = [1.0 / counts[t] for t in ds.targets]
        return WeightedRandomSampler(weights, len(weights))

    def from_tensor(targets):
        class_counts = torch.bincount(targets)
        per_sample = (1.0 / class_counts.float()).gather(0, targets)
        return WeightedRandomSampler(per_sample, len(targets))

    def given(weights, n):
        return WeightedRandomSampler(weights, n)

    def loss_weights(labels):
        class_w = 1.0 / np.bincount(labels)
        return torch.nn.CrossEntropyLoss(weight=torch.tensor(class_w))
    """
    check(src, RULE)
