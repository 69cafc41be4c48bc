"""The ``sampler-weights-follow-frequency`` rule (``mlsleuth/scan/rules/data/sampler_weights_follow_frequency.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"sampler-weights-follow-frequency"}


def test_counts_looked_up_per_sample():
    src = """
    import collections
    import numpy as np
    import torch
    from torch.utils.data import WeightedRandomSampler

    def image_sampler(labels):
        counts = np.bincount(labels)
        freq = counts / counts.sum()
        return WeightedRandomSampler(freq[labels], num_samples=len(labels))  # expect: sampler-weights-follow-frequency

    def text_sampler(targets):
        counter = collections.Counter(targets)
        weights = [counter[t] for t in targets]
        return WeightedRandomSampler(weights, len(weights))  # expect: sampler-weights-follow-frequency

    def tabular_sampler(frame):
        freq = frame["label"].value_counts(normalize=True)
        return WeightedRandomSampler(frame["label"].map(freq).values, len(frame))  # expect: sampler-weights-follow-frequency

    def audio_sampler(y):
        _, counts = np.unique(y, return_counts=True)
        w = torch.from_numpy(counts[y]).double()
        return WeightedRandomSampler(weights=w, num_samples=len(y))  # expect: sampler-weights-follow-frequency
    """
    check(src, RULE)


def test_inverse_frequencies_stay_silent():
    src = """
    import collections
    import numpy as np
    import torch
    from torch.utils.data import WeightedRandomSampler

    def inverse_table(labels):
        counts = np.bincount(labels)
        return WeightedRandomSampler((1.0 / counts)[labels], num_samples=len(labels))

    def inverse_after_lookup(labels):
        counts = np.bincount(labels)
        return WeightedRandomSampler(1.0 / counts[labels], num_samples=len(labels))

    def counter_inverse(targets):
        counter = collections.Counter(targets)
        return WeightedRandomSampler([1.0 / counter[t] for t in targets], len(targets))

    def given_weights(per_sample):
        return WeightedRandomSampler(per_sample, len(per_sample))

    def one_class_count(labels):
        counts = np.bincount(labels)
        return WeightedRandomSampler(np.ones(len(labels)) * counts[0], len(labels))

    def balanced(labels):
        _, counts = np.unique(labels, return_counts=True)
        w = counts.sum() / counts
        return WeightedRandomSampler(torch.tensor(w[labels]), len(labels))
    """
    check(src, RULE)
