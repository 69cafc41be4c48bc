import torch
import torch.nn as nn


def build_mlp(n_in, n_classes, hidden=64):
    return nn.Sequential(
        nn.Linear(n_in, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, n_classes),
    )


def make_data(n=2048, n_in=20, n_classes=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(n_classes, n_in, generator=g) * 2.0
    y = torch.randint(0, n_classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, n_in, generator=g)
    return x, y


def run(epochs=8, lr=0.05, bs=64):
    torch.manual_seed(0)
    x, y = make_data()
    model = build_mlp(x.shape[1], 10)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        perm = torch.randperm(len(x))
        total = 0.0
        for i in range(0, len(x), bs):
            idx = perm[i:i + bs]
            out = model(x[idx])
            loss = criterion(out, y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        with torch.no_grad():
            probs = torch.softmax(model(x), dim=1)
            acc = (probs.argmax(1) == y).float().mean().item()
            conf = probs.max(1).values.mean().item()
        print(f"mean confidence {conf:.3f}")
        print(f"epoch {epoch} loss = {total / len(x):.4f} acc = {acc:.3f}")


if __name__ == "__main__":
    run()
