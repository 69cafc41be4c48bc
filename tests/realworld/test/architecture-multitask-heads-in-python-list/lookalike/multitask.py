import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskNet(nn.Module):
    def __init__(self, input_features, num_classes, hidden=256):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(input_features, hidden), nn.ReLU(), nn.Dropout(0.2))
        self.task_heads = nn.ModuleDict()
        self.task_names = []
        for i, n in enumerate(num_classes):
            name = f"task{i}"
            self.task_names.append(name)
            self.task_heads[name] = nn.Linear(hidden, n)

    def forward(self, x):
        h = self.trunk(x)
        return [self.task_heads[name](h) for name in self.task_names]


def train(net, X, ys, epochs=10, batch_size=32, lr=1e-4):
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        perm = np.random.permutation(len(X))
        for i in range(0, len(X), batch_size):
            idx = perm[i:i + batch_size]
            xb = torch.tensor(X[idx], dtype=torch.float32)
            outs = net(xb)
            loss = sum(F.cross_entropy(o, torch.tensor(y[idx])) for o, y in zip(outs, ys))
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    num_classes = [5, 2, 10, 3]
    X = np.random.rand(5000, 100)
    ys = [np.random.randint(0, c, 5000) for c in num_classes]
    net = MultiTaskNet(100, num_classes)
    train(net, X, ys)
    torch.save(net.state_dict(), "multitask.pt")
