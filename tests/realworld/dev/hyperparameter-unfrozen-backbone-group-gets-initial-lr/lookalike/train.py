import torch
import torch.nn.functional as F

from config import CONFIG as cfg
from data import make_loaders, make_teacher
from finetune import freeze, set_epoch_lr, unfreeze_and_add_param_group
from model import pretrained_classifier


def run_epoch(model, loader, optimizer):
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        n += len(y)
    return total / n


@torch.no_grad()
def accuracy(model, loader):
    model.eval()
    hits = sum((model(x).argmax(1) == y).sum().item() for x, y in loader)
    return hits / len(loader.dataset)


def main():
    teacher = make_teacher()
    train_loader, val_loader = make_loaders(teacher, cfg["batch_size"])
    torch.manual_seed(cfg["seed"])
    model = pretrained_classifier(teacher)

    freeze(model.backbone)
    optimizer = torch.optim.SGD(model.head.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    optimizer.param_groups[0]["initial_lr"] = cfg["lr"]

    for epoch in range(cfg["epochs"]):
        if epoch == cfg["unfreeze_epoch"]:
            unfreeze_and_add_param_group(model.backbone, optimizer, cfg)
        set_epoch_lr(optimizer, epoch, cfg["lr_gamma"])
        loss = run_epoch(model, train_loader, optimizer)
        lrs = ", ".join(f"{g['lr']:.4f}" for g in optimizer.param_groups)
        print(f"epoch {epoch:2d} loss {loss:.4f} val acc {accuracy(model, val_loader):.3f} lr [{lrs}]")


if __name__ == "__main__":
    main()
