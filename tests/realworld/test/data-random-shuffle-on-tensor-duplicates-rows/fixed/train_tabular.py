import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

N_FEATURES = 10
BATCH_SIZE = 50
EPOCHS = 12


def load_data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    score = x[:, 0] * x[:, 1] + np.sin(2 * x[:, 2]) + 0.5 * x[:, 3] - 0.3 * x[:, 4] ** 2
    y = (score > np.median(score)).astype(np.float32)
    # features and label packed in one table, label in the last column
    return torch.from_numpy(np.column_stack([x, y]))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_FEATURES, 64)
        self.fc2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, 1)

    def forward(self, x):
        return self.out(F.relu(self.fc2(F.relu(self.fc1(x))))).squeeze(-1)


def main():
    random.seed(0)
    torch.manual_seed(0)
    train_data = load_data(1500, seed=0)
    val_data = load_data(1000, seed=1)
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)

    for epoch in range(EPOCHS):
        train_data = train_data[torch.randperm(len(train_data))]
        running = 0.0
        for start in range(0, len(train_data), BATCH_SIZE):
            batch = train_data[start:start + BATCH_SIZE]
            features, target = batch[:, :-1], batch[:, -1]
            loss = F.binary_cross_entropy_with_logits(net(features), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        with torch.no_grad():
            val_pred = (net(val_data[:, :-1]) > 0).float()
            val_acc = (val_pred == val_data[:, -1]).float().mean().item()
        n_batches = (len(train_data) + BATCH_SIZE - 1) // BATCH_SIZE
        print(f"epoch {epoch + 1:2d} train_loss {running / n_batches:.4f} val_acc {val_acc:.3f}")


if __name__ == "__main__":
    main()
