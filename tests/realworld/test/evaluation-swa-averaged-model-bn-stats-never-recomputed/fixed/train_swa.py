"""Fine-tune a timm ResNet on a small image set with stochastic weight averaging."""
import argparse

import timm
import torch
import torch.nn.functional as F
from torch.optim.swa_utils import SWALR, AveragedModel
from torch.utils.data import DataLoader, TensorDataset


def get_loaders(batch_size):
    x = torch.randn(1024, 3, 64, 64)
    y = torch.randint(0, 10, (1024,))
    train = TensorDataset(x[:896], y[:896])
    test = TensorDataset(x[896:], y[896:])
    return (DataLoader(train, batch_size=batch_size, shuffle=True, drop_last=True),
            DataLoader(test, batch_size=256))


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    total = 0.0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        loss = F.cross_entropy(model(images), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        total += loss.item() * images.size(0)
    return total / len(loader.dataset)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = n = 0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        correct += (model(images).argmax(1) == targets).sum().item()
        n += targets.numel()
    return correct / n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="resnet18")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--swa_start", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--swa_lr", type=float, default=0.02)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, test_loader = get_loaders(64)

    model = timm.create_model(args.model, pretrained=False, num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.swa_start)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=args.swa_lr, anneal_epochs=3)

    for epoch in range(args.epochs):
        loss = train_one_epoch(model, train_loader, optimizer, device)
        if epoch >= args.swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()
        print(f"epoch {epoch:3d} loss {loss:.4f} test acc {evaluate(model, test_loader, device):.3f}")

    torch.optim.swa_utils.update_bn(train_loader, swa_model, device=device)
    swa_acc = evaluate(swa_model, test_loader, device)
    print(f"SWA model test acc {swa_acc:.3f}")
    torch.save(swa_model.module.state_dict(), f"{args.model}_swa.pth")


if __name__ == "__main__":
    main()
