import copy

import torch
from torch import nn
from torch.utils.data import TensorDataset, DataLoader

from engine import train_one_epoch, validate
from utils.meters import AverageMeter


def make_split(n, generator, centers):
    y = torch.randint(0, centers.size(0), (n,), generator=generator)
    x = centers[y] + 1.2 * torch.randn(n, centers.size(1), generator=generator)
    return TensorDataset(x, y)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(4, 10, generator=g)
    train_loader = DataLoader(make_split(800, g, centers), batch_size=64, shuffle=True)
    val_loader = DataLoader(make_split(400, g, centers), batch_size=200)

    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    val_losses = AverageMeter("ValLoss")
    val_top1 = AverageMeter("ValAcc@1")
    best_acc, best_state = 0.0, None
    for epoch in range(12):
        tr_loss, tr_acc = train_one_epoch(model, train_loader, criterion, optimizer)
        val_losses.reset()
        val_top1.reset()
        va_loss, va_acc = validate(model, val_loader, criterion, val_losses, val_top1)
        if va_acc > best_acc:
            best_acc, best_state = va_acc, copy.deepcopy(model.state_dict())
        print(f"epoch {epoch + 1:2d}  train loss {tr_loss:.3f} acc {tr_acc:.3f}  "
              f"val loss {va_loss:.3f} acc {va_acc:.3f}")
    print(f"best val acc {best_acc:.3f}")


if __name__ == "__main__":
    main()
