"""Per-field categorical encoding.

Values are numbered by descending training frequency (ties by value), 0 .. k-1; values seen fewer
than `min_count` times in training, and values never seen, share index k, the
out-of-vocabulary bucket. A field therefore needs k + 1 rows of any embedding table.
"""
from collections import Counter

import numpy as np


class CategoryEncoder:
    def __init__(self, min_count: int = 1):
        self.min_count = min_count
        self.index = {}

    def fit(self, values) -> "CategoryEncoder":
        counts = Counter(values)
        kept = sorted((v for v, c in counts.items() if c >= self.min_count), key=lambda v: (-counts[v], v))
        self.index = {v: i for i, v in enumerate(kept)}
        return self

    @property
    def oov(self) -> int:
        return len(self.index)

    @property
    def size(self) -> int:
        return len(self.index) + 1

    def transform(self, values) -> np.ndarray:
        return np.fromiter((self.index.get(v, self.oov) for v in values), dtype=np.int64, count=len(values))


class TableEncoder:
    def __init__(self, fields, min_count: int = 1):
        self.fields = list(fields)
        self.encoders = {f: CategoryEncoder(min_count) for f in self.fields}

    def fit(self, rows: dict) -> "TableEncoder":
        for f in self.fields:
            self.encoders[f].fit(rows[f])
        return self

    def transform(self, rows: dict) -> np.ndarray:
        return np.stack([self.encoders[f].transform(rows[f]) for f in self.fields], axis=1)

    @property
    def field_dims(self):
        return [self.encoders[f].size for f in self.fields]
