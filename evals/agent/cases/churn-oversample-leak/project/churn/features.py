from __future__ import annotations

import numpy as np

from churn.simulate import CATEGORICAL, NUMERIC


class FeatureEncoder:
    """Standardises numeric columns and one-hot encodes categorical ones."""

    def __init__(self):
        self.mean: np.ndarray | None = None
        self.std: np.ndarray | None = None

    def fit(self, table: dict[str, np.ndarray]) -> "FeatureEncoder":
        num = np.stack([table[c] for c in NUMERIC], axis=1)
        self.mean = num.mean(axis=0)
        self.std = num.std(axis=0) + 1e-8
        return self

    def transform(self, table: dict[str, np.ndarray]) -> np.ndarray:
        if self.mean is None:
            raise RuntimeError("FeatureEncoder.transform called before fit")
        num = (np.stack([table[c] for c in NUMERIC], axis=1) - self.mean) / self.std
        onehots = [
            (table[col][:, None] == np.array(values)[None, :]).astype(np.float64)
            for col, values in CATEGORICAL.items()
        ]
        return np.concatenate([num] + onehots, axis=1).astype(np.float32)

    @property
    def n_features(self) -> int:
        return len(NUMERIC) + sum(len(v) for v in CATEGORICAL.values())
