"""The ``sampler-weights-per-class`` rule (``mlsleuth/scan/rules/data/sampler_weights_per_class.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = "sampler-weights-per-class"


def test_inverse_class_counts_from_value_counts():
    src = """
    import torch
    from torch.utils.data import DataLoader, WeightedRandomSampler

    def balanced_loader(frame, dataset, batch_size):
        class_counts = frame["label"].value_counts().sort_index().values
        weights = 1.0 / torch.tensor(class_counts, dtype=torch.float)
        sampler = WeightedRandomSampler(weights, num_samples=len(dataset), replacement=True)  # expect: sampler-weights-per-class
        return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "value_counts" in f.observation


def test_unique_counts_and_torch_bincount_inline():
    src = """
    import numpy as np
    import torch
    from torch.utils import data

    def from_unique(targets, ds):
        _, counts = np.unique(targets, return_counts=True)
        prior = counts / counts.sum()
        return data.WeightedRandomSampler(weights=1.0 / prior, num_samples=len(ds))  # expect: sampler-weights-per-class

    def from_bincount(y):
        return data.WeightedRandomSampler(1.0 / torch.bincount(y).float(), len(y))  # expect: sampler-weights-per-class
    """
    check(src, {RULE})


def test_sklearn_class_weight_and_counter_comprehension():
    src = """
    from collections import Counter
    from sklearn.utils.class_weight import compute_class_weight
    import numpy as np
    from torch.utils.data import WeightedRandomSampler as WRS

    def sklearn_weights(y):
        w = compute_class_weight("balanced", classes=np.unique(y), y=y)
        return WRS(w, len(y))  # expect: sampler-weights-per-class

    def counter_weights(y):
        counts = Counter(y)
        w = [1.0 / counts[c] for c in sorted(counts)]
        return WRS(w, len(y))  # expect: sampler-weights-per-class
    """
    check(src, {RULE})


def test_helper_in_another_module_through_a_config(tmp_path):
    check_project(
        tmp_path,
        {
            "balance.py": """
            import numpy as np

            def inverse_frequency(labels, num_classes):
                counts = np.bincount(labels, minlength=num_classes).astype(np.float64)
                counts[counts == 0] = 1.0
                prior = 1.0 / counts
                return prior / prior.sum()
            """,
            "data.py": """
            from torch.utils.data import DataLoader, WeightedRandomSampler
            from balance import inverse_frequency

            def loaders(cfg, train_set):
                if cfg["balance"]:
                    weights = inverse_frequency(train_set.labels, cfg["num_classes"])
                    sampler = WeightedRandomSampler(weights, num_samples=len(train_set))  # expect: sampler-weights-per-class
                    return DataLoader(train_set, batch_size=cfg["batch_size"], sampler=sampler)
                return DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True)
            """,
        },
        {RULE},
    )


def test_per_class_table_indexed_by_the_labels_is_per_sample():
    src = """
    from collections import Counter
    import numpy as np
    import torch
    from torch.utils.data import WeightedRandomSampler

    def indexed(labels, ds):
        counts = np.bincount(labels)
        class_w = 1.0 / counts
        return WeightedRandomSampler(class_w[labels], len(ds))

    def helper_indexes(labels, ds):
        return WeightedRandomSampler(per_sample(labels), len(ds))

    def per_sample(labels):
        prior = 1.0 / np.bincount(labels)
        return prior[labels]

    def comprehension_over_samples(targets):
        counts = Counter(targets)
        sample_w = [1.0 / counts[t] for t in targets]
        return WeightedRandomSampler(sample_w, len(sample_w))

    def pandas_map(frame):
        freq = frame["label"].value_counts()
        w = frame["label"].map(1.0 / freq).to_numpy()
        return WeightedRandomSampler(torch.as_tensor(w), len(frame))

    def gathered(y):
        class_w = 1.0 / torch.bincount(y).float()
        return WeightedRandomSampler(class_w.gather(0, y), len(y))
    """
    check(src, {RULE})


def test_class_weights_for_the_loss_and_unknown_weights_stay_silent():
    src = """
    import numpy as np
    import torch
    import torch.nn as nn
    from torch.utils.data import WeightedRandomSampler

    def loss_for(labels):
        counts = np.bincount(labels)
        return nn.CrossEntropyLoss(weight=torch.tensor(1.0 / counts, dtype=torch.float))

    def sampler_from(weights, n):
        return WeightedRandomSampler(weights, n)

    def from_file(path, n):
        return WeightedRandomSampler(np.load(path), n)
    """
    check(src, {RULE})


# Shapes written independently by another author of the same rule (famA, session 10).


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
    check(src, {RULE})


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
    check(src, {RULE})
