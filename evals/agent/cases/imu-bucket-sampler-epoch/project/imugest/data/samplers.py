"""Batch samplers. Recordings range from 0.8 to 4 s, so batching recordings of similar length
cuts the padded share of a batch from about half to under a fifth."""
from __future__ import annotations

import numpy as np
from torch.utils.data import Sampler


class RandomBatchSampler(Sampler):
    """Plain shuffled batches (the reference setting)."""

    def __init__(self, n: int, batch_size: int, seed: int = 0, drop_last: bool = False):
        self.n, self.batch_size, self.seed, self.drop_last = n, batch_size, seed, drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        order = np.random.default_rng(self.seed + self.epoch).permutation(self.n)
        for start in range(0, self.n, self.batch_size):
            batch = order[start:start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch.tolist()

    def __len__(self):
        full, rest = divmod(self.n, self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)


class BucketBatchSampler(Sampler):
    """Batches of recordings of similar length.

    Each epoch: jitter the lengths a little (so bucket borders move), sort by the jittered
    length, cut the sorted order into windows of `bucket_batches * batch_size` recordings,
    shuffle inside each window, cut the windows into batches, and shuffle the order of the
    batches. Call set_epoch() before every epoch."""

    def __init__(self, lengths, batch_size: int, bucket_batches: int = 4, jitter: float = 0.1,
                 seed: int = 0, drop_last: bool = False):
        self.lengths = np.asarray(lengths, dtype=np.float64)
        self.batch_size = batch_size
        self.bucket = bucket_batches * batch_size
        self.jitter = jitter
        self.seed = seed
        self.drop_last = drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def _batches(self, rng) -> list[list[int]]:
        noisy = self.lengths * (1 + self.jitter * rng.uniform(-1, 1, size=len(self.lengths)))
        order = np.argsort(noisy, kind="stable")
        batches = []
        for start in range(0, len(order), self.bucket):
            window = rng.permutation(order[start:start + self.bucket])
            for b in range(0, len(window), self.batch_size):
                batch = window[b:b + self.batch_size]
                if len(batch) == self.batch_size or not self.drop_last:
                    batches.append(batch.tolist())
        return [batches[i] for i in rng.permutation(len(batches))]

    def __iter__(self):
        rng = np.random.default_rng(self.seed)
        yield from self._batches(rng)

    def __len__(self):
        return len(self._batches(np.random.default_rng(0)))
