"""Metric helpers and a small running-average logger."""
from collections import defaultdict


def accuracy(output, targets):
    return (output.max(-1)[-1] == targets.squeeze(-1)).float().mean().item()


class MetricLogger:
    def __init__(self):
        self.sums = defaultdict(float)
        self.counts = defaultdict(int)

    def update(self, n=1, **kwargs):
        for k, v in kwargs.items():
            self.sums[k] += v * n
            self.counts[k] += n

    def averages(self):
        return {k: self.sums[k] / self.counts[k] for k in self.sums}
