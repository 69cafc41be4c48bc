import torch
import torch.nn as nn

from estimator import TorchClassifier


def make_data(n=1024, d=20, k=4, seed=0):
    centers = 2.0 * torch.randn(k, d, generator=torch.Generator().manual_seed(1234))
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, k, (n,), generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    return x, y


def build_net(d=20, k=4):
    return nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, k))


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = make_data()
    x_val, y_val = make_data(seed=1)
    net = build_net()
    clf = TorchClassifier(net, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.05), nb_classes=4)
    print("fitting base classifier")
    clf.fit(x, y, nb_epochs=3)

    before = clf.snapshot()
    print("continuing training of the same classifier")
    clf.fit(x, y, nb_epochs=5)
    acc = (clf.predict(x_val) == y_val).float().mean().item()
    with torch.no_grad():
        agree = (before(x_val).argmax(1) == clf.predict(x_val)).float().mean().item()
    print(f"classifier val accuracy: {acc:.3f}  agreement with snapshot: {agree:.3f}")
