import argparse
import numpy as np
import torch
import torch.nn as nn


def make_data(n, dim, rng):
    X = rng.normal(size=(n, dim)).astype(np.float32)
    w = rng.normal(size=dim)
    y = (X @ w + 0.3 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def shuffle_data(features, labels, rng):
    perm = rng.permutation(len(features))
    features = features[perm]
    labels = labels[perm]
    return features, labels


def batches(features, labels, batch_size):
    for i in range(0, len(features), batch_size):
        yield torch.from_numpy(features[i:i + batch_size]), torch.from_numpy(labels[i:i + batch_size])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    args = p.parse_args()

    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    X, y = make_data(3000, 20, rng)
    X_train, y_train, X_test, y_test = X[:2400], y[:2400], X[2400:], y[2400:]

    clf = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.SGD(clf.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        X_train, y_train = shuffle_data(X_train, y_train, rng)
        total = 0.0
        for xb, yb in batches(X_train, y_train, args.batch_size):
            opt.zero_grad()
            out = loss_fn(clf(xb), yb)
            out.backward()
            opt.step()
            total += out.item()
        with torch.no_grad():
            acc = (clf(torch.from_numpy(X_test)).argmax(1).numpy() == y_test).mean()
        print(f"epoch {epoch} loss {total / 38:.4f} test_acc {acc:.3f}")


if __name__ == "__main__":
    main()
