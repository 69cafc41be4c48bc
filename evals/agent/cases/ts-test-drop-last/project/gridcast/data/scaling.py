import numpy as np


class StandardScaler:
    """Per-channel standardisation, fitted on one segment and applied to all of them."""

    def __init__(self, eps: float = 1e-6):
        self.eps = eps
        self.mean_ = None
        self.std_ = None

    def fit(self, values: np.ndarray) -> "StandardScaler":
        self.mean_ = values.mean(axis=0)
        self.std_ = values.std(axis=0) + self.eps
        return self

    def transform(self, values: np.ndarray) -> np.ndarray:
        return (values - self.mean_) / self.std_

    def inverse_transform(self, values: np.ndarray) -> np.ndarray:
        return values * self.std_ + self.mean_

    def state_dict(self) -> dict:
        return {"mean": self.mean_.tolist(), "std": self.std_.tolist()}
