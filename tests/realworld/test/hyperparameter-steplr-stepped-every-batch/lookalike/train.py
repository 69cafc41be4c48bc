import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def fit(net, loader, epochs=8, lr=0.05):
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    total_iters = len(loader) * epochs
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.05, total_iters=total_iters)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        running = 0.0
        for x, y in loader:
            loss = loss_fn(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            running += loss.item()
        print(f"epoch {epoch} loss {running / len(loader):.4f} lr {opt.param_groups[0]['lr']:.2e}")


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    w = torch.randn(64, 2, generator=g)
    x = torch.randn(2400, 64, generator=g)
    y = (x @ w).argmax(1)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 2))
    fit(net, DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, generator=g))
