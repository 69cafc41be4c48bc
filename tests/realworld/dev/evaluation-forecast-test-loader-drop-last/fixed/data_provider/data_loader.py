"""Sliding-window dataset over a multivariate series with train/val/test borders (70/10/20)."""
import numpy as np
import torch
from torch.utils.data import Dataset


def synthetic_series(n_steps=1500, n_vars=7, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n_steps)
    daily = np.sin(2 * np.pi * t / 24)[:, None]
    trend = (t / n_steps)[:, None]
    return (daily * rng.uniform(0.5, 2, n_vars) + trend + 0.1 * rng.normal(size=(n_steps, n_vars))).astype(np.float32)


class Dataset_Custom(Dataset):
    def __init__(self, flag="train", size=(96, 48, 24), scale=True):
        self.seq_len, self.label_len, self.pred_len = size
        data = synthetic_series()
        n = len(data)
        num_train, num_test = int(n * 0.7), int(n * 0.2)
        num_vali = n - num_train - num_test
        border1s = [0, num_train - self.seq_len, n - num_test - self.seq_len]
        border2s = [num_train, num_train + num_vali, n]
        set_type = {"train": 0, "val": 1, "test": 2}[flag]
        if scale:
            train_part = data[border1s[0]:border2s[0]]
            self.mean, self.std = train_part.mean(0), train_part.std(0)
            data = (data - self.mean) / self.std
        self.data_x = data[border1s[set_type]:border2s[set_type]]
        self.data_y = self.data_x

    def __getitem__(self, index):
        s_begin = index
        s_end = s_begin + self.seq_len
        r_begin = s_end - self.label_len
        r_end = r_begin + self.label_len + self.pred_len
        return torch.from_numpy(self.data_x[s_begin:s_end]), torch.from_numpy(self.data_y[r_begin:r_end])

    def __len__(self):
        return len(self.data_x) - self.seq_len - self.pred_len + 1
