"""Data pipelines: named stages of transforms, and a dataset wrapper that caches the output of
the leading deterministic stages (decoding and flat-fielding cost more than the model's forward
pass on these small patches) and runs the remaining stages on every access."""
from __future__ import annotations

import numpy as np
from torch.utils.data import Dataset

from ..registry import TRANSFORMS


class Stage:
    def __init__(self, name: str, ops):
        self.name = name
        self.ops = list(ops)

    @property
    def deterministic(self) -> bool:
        return any(op.deterministic for op in self.ops)

    def __call__(self, img, rng):
        for op in self.ops:
            img = op(img, rng)
        return img

    def __repr__(self):
        return f"Stage({self.name}: {', '.join(map(repr, self.ops))})"


class Pipeline:
    def __init__(self, stages):
        self.stages = list(stages)

    def __call__(self, img, rng):
        for stage in self.stages:
            img = stage(img, rng)
        return img

    def split(self):
        """(cacheable, rest): the longest prefix of deterministic stages, and what follows."""
        n = 0
        for stage in self.stages:
            if not stage.deterministic:
                break
            n += 1
        return Pipeline(self.stages[:n]), Pipeline(self.stages[n:])

    def __len__(self):
        return len(self.stages)


def build_pipeline(spec) -> Pipeline:
    stages = []
    for entry in spec:
        ops = [TRANSFORMS.build(op["name"], **{k: v for k, v in op.items() if k != "name"}) for op in entry["ops"]]
        stages.append(Stage(entry["stage"], ops))
    return Pipeline(stages)


class PipelineDataset(Dataset):
    """images (N, H, W) uint8 + labels -> (1, H, W) float tensors through `pipeline`.

    With cache=True the output of pipeline.split()[0] is computed once per image and kept."""

    def __init__(self, images, labels, pipeline: Pipeline, cache: bool = False, seed: int = 0):
        self.images = images
        self.labels = labels
        self.rng = np.random.default_rng(seed)
        if cache:
            self.cached_part, self.live_part = pipeline.split()
        else:
            self.cached_part, self.live_part = Pipeline([]), pipeline
        self._cache = {}

    def __len__(self):
        return len(self.labels)

    def _prefix(self, i):
        if i not in self._cache:
            self._cache[i] = self.cached_part(self.images[i], self.rng)
        return self._cache[i]

    def __getitem__(self, i):
        img = self.live_part(self._prefix(i), self.rng)
        return np.ascontiguousarray(img, dtype=np.float32)[None], int(self.labels[i])
