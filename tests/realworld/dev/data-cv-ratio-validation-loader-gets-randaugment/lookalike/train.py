import argparse

import torch
import torch.nn as nn
from torchvision.models import resnet18

from data import get_dataloaders


def run_epoch(net, loader, criterion, optimizer=None, device="cuda"):
    training = optimizer is not None
    net.train(training)
    total, correct, loss_sum = 0, 0, 0.0
    with torch.set_grad_enabled(training):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            out = net(x)
            loss = criterion(out, y)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            loss_sum += loss.item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            total += len(y)
    return loss_sum / total, correct / total


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--cv-ratio", type=float, default=0.1)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--n-ops", type=int, default=2)
    ap.add_argument("--magnitude", type=int, default=9)
    args = ap.parse_args()
    trainloader, validloader, testloader = get_dataloaders("./data", 128, args.cv_ratio, args.n_ops, args.magnitude)
    net = resnet18(num_classes=10).cuda()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.epochs)
    best = 0.0
    for epoch in range(args.epochs):
        run_epoch(net, trainloader, criterion, optimizer)
        sched.step()
        _, val_acc = run_epoch(net, validloader, criterion)
        best = max(best, val_acc)
        print(f"epoch {epoch} valid acc {val_acc:.4f} (best {best:.4f})")
