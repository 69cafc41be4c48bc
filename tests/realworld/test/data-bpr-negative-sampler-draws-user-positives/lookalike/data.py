"""Implicit-feedback data: leave-last-out split and batched BPR negative sampling."""
import numpy as np
import pandas as pd
import scipy.sparse as sp
import torch
from torch.utils.data import Dataset


def load_interactions(path, min_rating=4.0):
    df = pd.read_csv(path, sep="::", engine="python", names=["user", "item", "rating", "ts"])
    df = df[df.rating >= min_rating]
    df["user"] = df.user.astype("category").cat.codes
    df["item"] = df.item.astype("category").cat.codes
    df = df.sort_values(["user", "ts"])
    test = df.groupby("user").tail(1)
    train = df.drop(test.index)
    n_users, n_items = df.user.max() + 1, df.item.max() + 1
    return train, test, int(n_users), int(n_items)


class PositivePairs(Dataset):
    def __init__(self, train_df):
        self.users = train_df.user.values.astype(np.int64)
        self.items = train_df.item.values.astype(np.int64)

    def __len__(self):
        return len(self.users)

    def __getitem__(self, idx):
        return self.users[idx], self.items[idx]


class NegativeSamplingCollate:
    """Draw one uniform negative per pair for the whole batch, redrawing any that the user interacted with."""

    def __init__(self, train_df, n_users, n_items, seed=0):
        self.n_items = n_items
        self.seen = sp.csr_matrix(
            (np.ones(len(train_df), dtype=np.bool_), (train_df.user.values, train_df.item.values)),
            shape=(n_users, n_items),
        )
        self.rng = np.random.default_rng(seed)

    def __call__(self, batch):
        users = np.array([b[0] for b in batch])
        pos = np.array([b[1] for b in batch])
        neg = self.rng.integers(0, self.n_items, size=len(users))
        clash = np.asarray(self.seen[users, neg]).ravel()
        while clash.any():
            neg[clash] = self.rng.integers(0, self.n_items, size=int(clash.sum()))
            clash = np.asarray(self.seen[users, neg]).ravel()
        return torch.from_numpy(users), torch.from_numpy(pos), torch.from_numpy(neg)
