import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def read_tagged(path):
    """Rows are grouped by tag in the export: all B-QTY rows, then B-UNIT, then B-NAME, ..."""
    arr = np.load(path)
    return arr["features"].astype(np.float32), arr["tags"].astype(np.int64)


def partition(features, tags, train_frac):
    order = np.random.default_rng(0).permutation(len(tags))
    features, tags = features[order], tags[order]
    n_train = int(len(tags) * train_frac)
    return (features[:n_train], tags[:n_train]), (features[n_train:], tags[n_train:])


class Tagger(nn.Module):
    def __init__(self, d, n_tags):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(d, 128), nn.ReLU(), nn.Linear(128, n_tags))

    def forward(self, x):
        return self.ff(x)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="ingredient_features.npz")
    ap.add_argument("--train-frac", type=float, default=0.8)
    args = ap.parse_args()
    X, y = read_tagged(args.data)
    (X_tr, y_tr), (X_te, y_te) = partition(X, y, args.train_frac)
    tagger = Tagger(X.shape[1], int(y.max()) + 1)
    opt = torch.optim.Adam(tagger.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    dl = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)), batch_size=128, shuffle=True)
    for epoch in range(20):
        for xb, yb in dl:
            opt.zero_grad()
            loss_fn(tagger(xb), yb).backward()
            opt.step()
        with torch.no_grad():
            print(epoch, (tagger(torch.from_numpy(X_te)).argmax(1).numpy() == y_te).mean())
