import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from models import VGG


def run_epoch(net, loader, args, optimizer=None):
    training = optimizer is not None
    net.train(training)
    sum_loss, sum_acc, n_seen = 0.0, 0.0, 0
    for x_batch, y_batch in loader:
        x_batch, y_batch = x_batch.to(args.device), y_batch.to(args.device)
        with torch.set_grad_enabled(training):
            logits = net(x_batch)
            loss = F.cross_entropy(logits, y_batch)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        acc = (logits.argmax(1) == y_batch).float().mean()
        sum_loss += loss.item() * args.batchsize
        sum_acc += acc.item() * args.batchsize
        n_seen += y_batch.size(0)
    return sum_loss / n_seen, sum_acc / n_seen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batchsize", type=int, default=128)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--device", default="cuda")
    args = p.parse_args()
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
    train_set = datasets.CIFAR10("data", train=True, download=True, transform=tf)
    val_set = datasets.CIFAR10("data", train=False, download=True, transform=tf)
    train_loader = DataLoader(train_set, batch_size=args.batchsize, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=args.batchsize, num_workers=4)
    net = VGG().to(args.device)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    for epoch in range(args.epochs):
        tr_loss, tr_acc = run_epoch(net, train_loader, args, optimizer)
        va_loss, va_acc = run_epoch(net, val_loader, args)
        print(f"epoch {epoch} train {tr_loss:.4f}/{tr_acc:.4f} val {va_loss:.4f}/{va_acc:.4f}")


if __name__ == "__main__":
    main()
