import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset

from features import FEATURE_COLUMNS, TARGET, build_feature_frame


def load_and_split(path, valid_days=56):
    raw = pd.read_csv(path, parse_dates=["date"])
    raw["store_item"] = raw["store"].astype(str) + "_" + raw["item"].astype(str)
    df = build_feature_frame(raw)
    cutoff = df["date"].max() - pd.Timedelta(days=valid_days)
    return df[df["date"] <= cutoff], df[df["date"] > cutoff]


class TabularDemandDataset(Dataset):
    def __init__(self, frame, stats=None):
        x = frame[FEATURE_COLUMNS].to_numpy(np.float32)
        y = np.log1p(frame[TARGET].to_numpy(np.float32))
        if stats is None:
            stats = (x.mean(axis=0), x.std(axis=0) + 1e-6)
        self.stats = stats
        self.x = torch.from_numpy((x - stats[0]) / stats[1])
        self.y = torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]
