"""Which way a metric should go, read from its name: ``val_loss`` down, ``val_acc`` up.

Shared by the rules that check a monitor's direction (a plateau scheduler, a best-checkpoint or
early-stopping callback, a trainer's "greater is better" flag).
"""

from __future__ import annotations

import re

from mlsleuth.scan.analysis import value_origins as vo

# Word parts of a metric's name that say which way is better.
LOWER_IS_BETTER = frozenset({"loss", "losses", "error", "err", "mse", "mae", "rmse", "nll", "perplexity", "ppl", "wer", "cer", "distance"})
HIGHER_IS_BETTER = frozenset(
    {"acc", "accuracy", "auc", "auroc", "roc", "f1", "map", "iou", "miou", "dice", "bleu", "rouge", "precision",
     "recall", "score", "reward", "psnr", "ssim", "r2"}
)


def direction(metric: str) -> str | None:
    """``"min"`` for a name that reads like a loss or an error, ``"max"`` for a score, None when unclear."""
    last = metric.rsplit(".", 1)[-1].rsplit("/", 1)[-1]
    parts = set(vo.words(last)) | {p for p in re.split(r"[^a-z0-9]+", last.lower()) if p}  # keeps "f1", "r2"
    lower = bool(parts & LOWER_IS_BETTER)
    higher = bool(parts & HIGHER_IS_BETTER)
    if lower == higher:
        return None  # no name, or both (`loss_score`)
    return "min" if lower else "max"
