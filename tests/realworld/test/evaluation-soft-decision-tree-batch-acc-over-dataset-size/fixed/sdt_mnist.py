import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

from SDT import SDT


def onehot_coding(target, output_dim, device):
    onehot = torch.zeros(target.size(0), output_dim, device=device)
    onehot.scatter_(1, target.view(-1, 1), 1.0)
    return onehot


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--depth", type=int, default=5)
    p.add_argument("--lamda", type=float, default=1e-3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--log_interval", type=int, default=100)
    args = p.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = torch.utils.data.DataLoader(datasets.MNIST("data", train=True, download=True, transform=tfm),
                                               batch_size=args.batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(datasets.MNIST("data", train=False, transform=tfm),
                                              batch_size=args.batch_size, shuffle=False)

    tree = SDT(input_dim=28 * 28, output_dim=10, depth=args.depth, lamda=args.lamda).to(device)
    optimizer = torch.optim.Adam(tree.parameters(), lr=args.lr, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        tree.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            batch_size = data.size(0)
            data, target = data.to(device), target.to(device)
            output, penalty = tree.forward(data, is_training_data=True)
            loss = criterion(output, target.view(-1)) + penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            if batch_idx % args.log_interval == 0:
                pred = output.data.max(1)[1]
                correct = pred.eq(target.view(-1).data).sum()
                train_acc = 100.0 * float(correct) / batch_size
                print(f"Epoch: {epoch:02d} | Batch: {batch_idx:03d} | Loss: {loss.item():.5f} | "
                      f"Correct: {int(correct):03d}/{batch_size:03d} | Train acc: {train_acc:.2f}%")

        tree.eval()
        correct = 0
        with torch.no_grad():
            for data, target in test_loader:
                data, target = data.to(device), target.to(device)
                output = F.softmax(tree.forward(data), dim=1)
                correct += output.max(1)[1].eq(target.view(-1)).sum().item()
        print(f"Epoch: {epoch:02d} | Testing Accuracy: {100.0 * correct / len(test_loader.dataset):.3f}%")


if __name__ == "__main__":
    main()
