import numpy as np
import torch
import torch.nn as nn
from sklearn.model_selection import KFold
from sklearn.utils import resample


def upsample_minority(X, y, seed=0):
    minority = y == 1
    X_up, y_up = resample(X[minority], y[minority], replace=True, n_samples=int((~minority).sum()), random_state=seed)
    return np.concatenate([X[~minority], X_up]), np.concatenate([y[~minority], y_up])


def train_eval(X_tr, y_tr, X_va, y_va, epochs=50):
    scorer = nn.Sequential(nn.Linear(X_tr.shape[1], 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.Adam(scorer.parameters(), lr=1e-3)
    bce = nn.BCEWithLogitsLoss()
    X_tr, y_tr = torch.tensor(X_tr, dtype=torch.float32), torch.tensor(y_tr, dtype=torch.float32)
    for _ in range(epochs):
        opt.zero_grad()
        bce(scorer(X_tr).squeeze(1), y_tr).backward()
        opt.step()
    with torch.no_grad():
        pred = (scorer(torch.tensor(X_va, dtype=torch.float32)).squeeze(1) > 0).numpy()
    tp = (pred & (y_va == 1)).sum()
    return tp / max(1, (y_va == 1).sum())


if __name__ == "__main__":
    data = np.load("anomalies.npz")
    X, y = data["X"].astype(np.float32), data["y"].astype(np.int64)
    recalls = []
    for tr, va in KFold(n_splits=5, shuffle=True, random_state=0).split(X):
        X_tr, y_tr = upsample_minority(X[tr], y[tr])
        recalls.append(train_eval(X_tr, y_tr, X[va], y[va]))
    print("cv recall", np.mean(recalls))
