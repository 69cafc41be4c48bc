import numpy as np
import torch
from torch.utils.data import Dataset


class ForecastWindows(Dataset):
    """Sliding windows over one segment of the (scaled) archive.

    Item i is (history, future) with history = values[i : i + seq_len] and
    future = values[i + seq_len : i + seq_len + pred_len]; consecutive windows overlap.
    """

    def __init__(self, values: np.ndarray, seq_len: int, pred_len: int):
        if len(values) < seq_len + pred_len:
            raise ValueError("segment shorter than one window")
        self.values = torch.as_tensor(values, dtype=torch.float32)
        self.seq_len = seq_len
        self.pred_len = pred_len

    def __len__(self) -> int:
        return len(self.values) - self.seq_len - self.pred_len + 1

    def __getitem__(self, idx: int):
        mid = idx + self.seq_len
        return self.values[idx:mid], self.values[mid:mid + self.pred_len]
