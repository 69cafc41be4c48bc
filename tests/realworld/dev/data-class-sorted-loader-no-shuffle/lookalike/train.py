import torch
import torch.nn as nn

from data import build_loaders
from model import Classifier

CFG = {"n_per_class": 600, "n_classes": 4, "dim": 16, "batch_size": 50, "lr": 0.1, "epochs": 6}


def evaluate(net, loader):
    net.eval()
    correct = n = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (net(x).argmax(1) == y).sum().item()
            n += len(y)
    net.train()
    return correct / n


def train(net, train_dl, val_dl, opt, epochs):
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        running = 0.0
        for x, y in train_dl:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
            running += loss.item()
        print(f"epoch {epoch} loss {running / len(train_dl):.4f} val_acc {evaluate(net, val_dl):.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train_dl, val_dl = build_loaders(CFG)
    net = Classifier(CFG["dim"], 64, CFG["n_classes"])
    opt = torch.optim.SGD(net.parameters(), lr=CFG["lr"], momentum=0.9)
    train(net, train_dl, val_dl, opt, CFG["epochs"])
