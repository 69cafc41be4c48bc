"""The ``repeated-mutable-element`` rule (``mlsleuth/scan/rules/evaluation/repeated_mutable_element.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"repeated-mutable-element"}


def test_the_premise_one_object_repeated():
    x = [[]] * 3
    x[0].append(1)
    assert x == [[1], [1], [1]]


def test_repeated_mutable_elements_changed_in_place_are_found():
    src = """
        import numpy as np
        import torch

        def per_class_scores(model, loader, num_classes):
            scores = [[]] * num_classes  # expect: repeated-mutable-element
            confusion = [[0] * num_classes] * num_classes  # expect: repeated-mutable-element
            for x, y in loader:
                pred = model(x).argmax(1)
                for t, p in zip(y.tolist(), pred.tolist()):
                    scores[t].append(p == t)
                    confusion[t][p] += 1
            return scores, confusion

        class FeatureBank:
            def __init__(self, layers, dim):
                self.sums = [np.zeros(dim)] * layers  # expect: repeated-mutable-element
                self.means = num_layers = layers

            def add(self, i, feat):
                self.sums[i] += feat

        def buffers(n, d):
            bufs = n * [torch.zeros(d)]  # expect: repeated-mutable-element
            for i in range(n):
                bufs[i].add_(i)
            return bufs
        """
    check(src, RULE)


def test_fresh_elements_and_read_only_repeats_stay_silent():
    src = """
        import numpy as np

        def per_class_scores(loader, num_classes):
            scores = [[] for _ in range(num_classes)]
            confusion = np.zeros((num_classes, num_classes), dtype=int)
            counts = [0] * num_classes
            names = [None] * num_classes
            template = [[0.5, 0.5]] * num_classes
            for t, p in loader:
                scores[t].append(p == t)
                confusion[t, p] += 1
                counts[t] += 1
                names[t] = str(t)
            return scores, confusion, counts, names, template[0][1]

        def grid(n):
            rows = [[0] * n] * n
            rows[0] = [1] * n
            return rows
        """
    check(src, RULE)
