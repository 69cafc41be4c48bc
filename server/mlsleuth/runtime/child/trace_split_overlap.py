"""Evaluation inputs that are near-copies of training inputs (child side, stdlib + torch only).

A sample of the rows the model was trained on (floating-point first inputs of training forwards) is kept, and
every row of an evaluation forward (no_grad or eval mode) is compared with it: the distance to its nearest
training row against the typical distance between two training rows. Rows at a small but non-zero distance are
near-copies: noisy or augmented versions, oversampled or interpolated rows, overlapping windows of one recording,
split after they were made. Exact copies are counted apart and not flagged: evaluating on the training set itself
(train accuracy) gives them too.
"""

from __future__ import annotations

from typing import Any

MAX_TRAIN_ELEMENTS = 2_000_000  # floats kept from training rows
MAX_TRAIN_ROWS = 4096
MAX_EVAL_ROWS = 512
MAX_TRAIN_FORWARDS = 50
PAIRS = 512


class SplitOverlapWatch:
    def __init__(self) -> None:
        self._train: list = []
        self._train_rows = 0
        self._train_forwards = 0
        self._eval: list = []
        self._eval_rows = 0
        self._features: int | None = None
        self.eval_step: int | None = None
        self._root: int | None = None  # the first model trained: only its own passes are compared

    def see(self, root: Any, inputs: tuple, training: bool, step: int) -> None:
        import torch

        if self._root is None and training:
            self._root = id(root)
        if id(root) != self._root:
            return
        if (training and self._train_forwards >= MAX_TRAIN_FORWARDS) or (not training and self._eval_rows >= MAX_EVAL_ROWS):
            return  # nothing more to keep: the common case after the first steps costs nothing
        x = inputs[0] if inputs else None
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.dim() < 2 or x.shape[0] < 2:
            return
        rows = x.detach().reshape(x.shape[0], -1)
        features = int(rows.shape[1])
        if self._features is None:
            self._features = features
        if features != self._features or features == 0:
            return
        if training:
            cap = min(MAX_TRAIN_ROWS, MAX_TRAIN_ELEMENTS // features)
            self._train_forwards += 1
            if self._train_rows < cap:
                take = rows[: cap - self._train_rows].float().cpu().clone()
                self._train.append(take)
                self._train_rows += int(take.shape[0])
        elif self._train_rows and self._eval_rows < MAX_EVAL_ROWS:
            take = rows[: MAX_EVAL_ROWS - self._eval_rows].float().cpu().clone()
            self._eval.append(take)
            self._eval_rows += int(take.shape[0])
            if self.eval_step is None:
                self.eval_step = step

    def result(self) -> dict | None:
        if not self._train or not self._eval:
            return None
        import torch

        train = torch.cat(self._train)
        evaluated = torch.cat(self._eval)
        if train.shape[0] < 4 or not bool(torch.isfinite(train).all()) or not bool(torch.isfinite(evaluated).all()):
            return None
        g = torch.Generator().manual_seed(0)
        a = torch.randint(0, train.shape[0], (PAIRS,), generator=g)
        b = torch.randint(0, train.shape[0], (PAIRS,), generator=g)
        pair = (train[a] - train[b]).norm(dim=1)
        pair = pair[pair > 0]
        if not pair.numel():
            return None
        scale = float(pair.median())
        nearest = torch.cat([torch.cdist(chunk, train, compute_mode="donot_use_mm_for_euclid_dist").min(dim=1).values
                             for chunk in evaluated.split(128)])
        nearest = torch.where(nearest <= 1e-6 * scale, torch.zeros_like(nearest), nearest)  # identical up to rounding
        exact = int((nearest == 0).sum())
        return {"train_rows": int(train.shape[0]), "eval_rows": int(evaluated.shape[0]), "features": int(train.shape[1]),
                "pair_distance_median": scale, "exact_copies": exact,
                "near_copies": {str(f): int(((nearest > 0) & (nearest < f * scale)).sum()) for f in (0.05, 0.1, 0.2)},
                "nearest_median": float(nearest.median()), "eval_step": self.eval_step}
