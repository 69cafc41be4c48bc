import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, random_split
from torchvision import datasets, transforms
from torchvision.models import densenet121

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def get_loaders(root, batch_size, valid_size):
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    full = datasets.CIFAR10(root, train=True, transform=train_tf, download=True)
    plain = datasets.CIFAR10(root, train=True, transform=test_tf, download=True)
    n_valid = int(len(full) * valid_size)
    perm = torch.randperm(len(full), generator=torch.Generator().manual_seed(0)).tolist()
    train_set, valid_set = Subset(full, perm[n_valid:]), Subset(plain, perm[:n_valid])
    test_set = datasets.CIFAR10(root, train=False, transform=test_tf, download=True)
    return (DataLoader(train_set, batch_size, shuffle=True, num_workers=4),
            DataLoader(valid_set, batch_size, num_workers=4),
            DataLoader(test_set, batch_size, num_workers=4))


def run(net, loader, criterion, optimizer=None):
    training = optimizer is not None
    net.train(training)
    total, correct, seen = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            logits = net(x)
            loss = criterion(logits, y)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            seen += len(y)
    return total / seen, correct / seen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--valid-size", type=float, default=0.1)
    args = p.parse_args()
    train_dl, valid_dl, test_dl = get_loaders(args.data, args.batch_size, args.valid_size)
    net = densenet121(num_classes=10).cuda()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [150, 225], gamma=0.1)
    criterion = nn.CrossEntropyLoss()
    best = 0.0
    for epoch in range(args.epochs):
        tr = run(net, train_dl, criterion, optimizer)
        va = run(net, valid_dl, criterion)
        scheduler.step()
        if va[1] > best:
            best = va[1]
            torch.save(net.state_dict(), "best.pt")
        print(f"epoch {epoch} train {tr} valid {va}")
    net.load_state_dict(torch.load("best.pt"))
    print("test", run(net, test_dl, criterion))


if __name__ == "__main__":
    main()
