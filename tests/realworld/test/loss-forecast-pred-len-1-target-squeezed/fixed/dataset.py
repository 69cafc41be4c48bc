import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    def __init__(self, path, split="train", seq_len=96, pred_len=1):
        series = pd.read_csv(path)["close"].to_numpy(np.float32)
        series = np.log(series[1:] / series[:-1])
        cut = int(0.8 * len(series))
        self.series = series[:cut] if split == "train" else series[cut - seq_len:]
        self.seq_len, self.pred_len = seq_len, pred_len

    def __len__(self):
        return len(self.series) - self.seq_len - self.pred_len + 1

    def __getitem__(self, i):
        x = self.series[i:i + self.seq_len]
        y = self.series[i + self.seq_len:i + self.seq_len + self.pred_len]
        return torch.from_numpy(x), torch.from_numpy(y).squeeze()
