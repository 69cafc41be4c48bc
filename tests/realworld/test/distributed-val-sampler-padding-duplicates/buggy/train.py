import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import make_split
from evaluate import distributed_accuracy

WORLD_SIZE = 8


def fit(clf, loader, epochs=15, lr=0.05):
    opt = torch.optim.SGD(clf.parameters(), lr=lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        total = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(clf(x), y)
            loss.backward()
            opt.step()
            total += loss.item() * len(x)
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch} train loss {total / len(loader.dataset):.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train_set, val_set = make_split(512, seed=1), make_split(21, seed=2)
    clf = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    fit(clf, DataLoader(train_set, batch_size=32, shuffle=True))
    acc, counted = distributed_accuracy(clf, val_set, WORLD_SIZE)
    with torch.no_grad():
        x, y = val_set.tensors
        exact = (clf(x).argmax(1) == y).float().mean().item()
    print(f"val accuracy over {WORLD_SIZE} ranks: {acc:.4f} from {counted} predictions "
          f"(val set has {len(val_set)} samples, single-process accuracy {exact:.4f})")
