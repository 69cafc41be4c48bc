"""Small multi-quantile forecaster for hourly load series."""

from .data import make_series, WindowDataset
from .model import QuantileMLP
from .losses import quantile_loss
from .metrics import interval_report

__all__ = ["make_series", "WindowDataset", "QuantileMLP", "quantile_loss", "interval_report"]
