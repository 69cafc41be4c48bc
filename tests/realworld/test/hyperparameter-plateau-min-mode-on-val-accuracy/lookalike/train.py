import torch
import torch.nn as nn
import torch.nn.functional as F

from config import Config
from data import make_loaders


@torch.no_grad()
def val_loss(net, loader):
    net.eval()
    return sum(F.cross_entropy(net(x), y, reduction="sum").item() for x, y in loader) / len(loader.dataset)


def main(cfg=Config()):
    torch.manual_seed(cfg.seed)
    train_loader, val_loader = make_loaders(seed=cfg.seed)
    net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.1)
    for epoch in range(cfg.epochs):
        net.train()
        for x, y in train_loader:
            loss = F.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        vl = val_loss(net, val_loader)
        sched.step(vl)
        print(f"epoch {epoch:2d} val_loss {vl:.4f} lr {opt.param_groups[0]['lr']:.1e}")


if __name__ == "__main__":
    main()
