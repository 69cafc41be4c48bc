"""Synthetic pose clips: a clip is tagged 'energetic' when its mean joint speed is high."""
import numpy as np
import torch
from torch.utils.data import Dataset


class SyntheticGestureClips(Dataset):
    def __init__(self, n_clips=1200, seq_len=32, pose_dim=12, seed=0):
        rng = np.random.default_rng(seed)
        speed = rng.uniform(0.05, 1.0, size=(n_clips, 1, 1))
        steps = rng.normal(size=(n_clips, seq_len, pose_dim)) * speed
        poses = np.cumsum(steps, axis=1)
        poses -= poses.mean(axis=1, keepdims=True)
        energy = np.abs(np.diff(poses, axis=1)).mean(axis=(1, 2))
        self.poses = torch.tensor(poses, dtype=torch.float32)
        self.tags = torch.tensor(energy > np.median(energy), dtype=torch.long)

    def __len__(self):
        return len(self.tags)

    def __getitem__(self, idx):
        return self.poses[idx], self.tags[idx]
