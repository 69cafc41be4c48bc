"""Call / background clip dataset with an optional class-balancing sampler."""
import numpy as np
import torch
from torch.utils.data import Dataset, WeightedRandomSampler


def make_metadata(n_clips=600, call_fraction=0.1, seed=0):
    rng = np.random.default_rng(seed)
    labels = (rng.random(n_clips) < call_fraction).astype(np.int64)
    begin = rng.uniform(0, 3600, n_clips)
    return {"label": labels, "begin_time": begin, "call_length": np.full(n_clips, 1.0)}


class ClassifierDataset(Dataset):
    def __init__(self, metadata, n_mels=32, n_frames=24, seed=0):
        self.metadata = metadata
        self.n_mels = n_mels
        self.n_frames = n_frames
        rng = np.random.default_rng(seed + 1)
        self._noise = rng.normal(size=(len(metadata["label"]), n_mels, n_frames)).astype(np.float32)
        self._chirp = np.zeros((n_mels, n_frames), dtype=np.float32)
        for t in range(n_frames):
            self._chirp[8 + t // 2, t] = 3.0

    def __len__(self):
        return len(self.metadata["label"])

    def __getitem__(self, idx):
        label = int(self.metadata["label"][idx])
        spec = self._noise[idx] + label * self._chirp
        return torch.from_numpy(spec).unsqueeze(0), label

    @property
    def class_counts(self):
        return np.bincount(self.metadata["label"], minlength=2)

    @property
    def sampler(self):
        counts = self.class_counts
        class_prior = counts / counts.sum()
        class_weights = 1.0 / class_prior
        weights = [class_weights[label] for label in self.metadata["label"]]
        return WeightedRandomSampler(weights=weights, num_samples=len(self), replacement=True)
