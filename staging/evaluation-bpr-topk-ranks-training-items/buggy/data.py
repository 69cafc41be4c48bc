from collections import defaultdict

import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset


def load_interactions(path, min_rating=4.0):
    df = pd.read_csv(path, sep="::", engine="python", names=["user", "item", "rating", "ts"])
    df = df[df["rating"] >= min_rating]
    df["user"] = df["user"].astype("category").cat.codes
    df["item"] = df["item"].astype("category").cat.codes
    return df, int(df["user"].max()) + 1, int(df["item"].max()) + 1


def ratio_split(df, test_ratio=0.2, seed=2024):
    rng = np.random.default_rng(seed)
    train_parts, test_parts = [], []
    for _, group in df.groupby("user"):
        idx = rng.permutation(len(group))
        n_test = max(1, int(round(len(group) * test_ratio)))
        test_parts.append(group.iloc[idx[:n_test]])
        train_parts.append(group.iloc[idx[n_test:]])
    return pd.concat(train_parts), pd.concat(test_parts)


def user_item_sets(df):
    items = defaultdict(set)
    for u, i in zip(df["user"].to_numpy(), df["item"].to_numpy()):
        items[int(u)].add(int(i))
    return items


class BPRTripletDataset(Dataset):
    def __init__(self, train_df, num_items):
        self.users = train_df["user"].to_numpy()
        self.items = train_df["item"].to_numpy()
        self.num_items = num_items
        self.seen = user_item_sets(train_df)

    def __len__(self):
        return len(self.users)

    def __getitem__(self, idx):
        u, i = int(self.users[idx]), int(self.items[idx])
        j = np.random.randint(self.num_items)
        while j in self.seen[u]:
            j = np.random.randint(self.num_items)
        return torch.tensor(u), torch.tensor(i), torch.tensor(j)
