"""Implicit-feedback data: leave-last-out split and BPR (user, pos, neg) triplets."""
import random
from collections import defaultdict

import pandas as pd
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


class BPRTriplets(Dataset):
    def __init__(self, train_df, n_items, seed=0):
        self.pairs = list(zip(train_df.user.tolist(), train_df.item.tolist()))
        self.n_items = n_items
        self.user_items = defaultdict(set)
        for u, i in self.pairs:
            self.user_items[u].add(i)
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.pairs)

    def sample_negative(self, user):
        positives = self.user_items[user]
        while True:
            j = self.rng.randrange(self.n_items)
            if j not in positives:
                return j

    def __getitem__(self, idx):
        user, pos = self.pairs[idx]
        neg = self.sample_negative(user)
        return torch.tensor(user), torch.tensor(pos), torch.tensor(neg)
