import warnings

import torch
import torch.nn as nn

from data import make_loaders
from model import Regressor

warnings.filterwarnings("ignore", category=UserWarning)


def evaluate(net, loader):
    net.eval()
    se, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            se += ((net(xb) - yb) ** 2).sum().item()
            n += len(yb)
    net.train()
    return se / n


def train(net, train_loader, val_loader, epochs=30, lr=1e-2):
    loss_fn = nn.MSELoss()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        for xb, yb in train_loader:
            pred = net(xb)
            loss = loss_fn(pred, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch:2d} train loss {loss.item():8.3f} val mse {evaluate(net, val_loader):8.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    tr, va = make_loaders()
    train(Regressor(4), tr, va)
