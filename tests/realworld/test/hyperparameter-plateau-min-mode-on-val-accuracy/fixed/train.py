import torch
import torch.nn.functional as F

from config import Config
from data import make_loaders
from model import Classifier


def train_epoch(clf, loader, opt):
    clf.train()
    total = 0.0
    for x, y in loader:
        loss = F.cross_entropy(clf(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * x.size(0)
    return total / len(loader.dataset)


@torch.no_grad()
def evaluate(clf, loader):
    clf.eval()
    correct = sum((clf(x).argmax(1) == y).sum().item() for x, y in loader)
    return correct / len(loader.dataset)


def main(cfg=Config()):
    torch.manual_seed(cfg.seed)
    train_loader, val_loader = make_loaders(seed=cfg.seed)
    clf = Classifier()
    opt = torch.optim.SGD(clf.parameters(), lr=cfg.lr, momentum=cfg.momentum)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=cfg.patience, factor=cfg.factor)
    for epoch in range(cfg.epochs):
        train_loss = train_epoch(clf, train_loader, opt)
        val_acc = evaluate(clf, val_loader)
        sched.step(val_acc)
        print(f"epoch {epoch:2d} loss {train_loss:.4f} val_acc {val_acc:.3f} lr {opt.param_groups[0]['lr']:.1e}")


if __name__ == "__main__":
    main()
