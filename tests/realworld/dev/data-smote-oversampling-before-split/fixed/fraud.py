import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from imblearn.over_sampling import SMOTE
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset


def load(path="creditcard.csv"):
    df = pd.read_csv(path)
    X = df.drop(columns=["Time", "Class"]).values.astype(np.float32)
    y = df["Class"].values.astype(np.int64)
    return X, y


class FraudNet(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, x):
        return self.mlp(x)


def fit(net, loader, epochs=10):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ce = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            ce(net(xb), yb).backward()
            opt.step()


if __name__ == "__main__":
    X, y = load()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    X_tr, y_tr = SMOTE(random_state=0).fit_resample(X_tr, y_tr)
    loader = DataLoader(TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr)), batch_size=512, shuffle=True)
    net = FraudNet(X.shape[1])
    fit(net, loader)
    with torch.no_grad():
        pred = net(torch.tensor(X_te)).argmax(1).numpy()
    print("f1", f1_score(y_te, pred))
