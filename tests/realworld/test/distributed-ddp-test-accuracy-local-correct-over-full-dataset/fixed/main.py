import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from distributed import init_distributed, is_master
from net import Net


def get_dataloader(root, batch_size, train):
    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,)),
    ])
    dataset = datasets.MNIST(root, train=train, transform=transform, download=True)
    sampler = DistributedSampler(dataset, shuffle=train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                      num_workers=2, pin_memory=True)


def train_epoch(model, optimizer, loader, device, epoch):
    model.train()
    loader.sampler.set_epoch(epoch)
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()
    return loss.item()


def evaluate(model, test_loader, device):
    model.eval()
    test_loss = 0.0
    correct = 0
    seen = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            correct += (output.argmax(dim=1) == target).sum().item()
            seen += target.size(0)
    totals = torch.tensor([test_loss, correct, seen], dtype=torch.float64, device=device)
    if dist.is_available() and dist.is_initialized():
        dist.all_reduce(totals, op=dist.ReduceOp.SUM)
    test_loss, correct, seen = totals.tolist()
    test_loss /= seen
    accuracy = 100.0 * correct / seen
    return test_loss, accuracy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data")
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    rank, world_size, local_rank = init_distributed()
    device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")

    model = Net().to(device)
    model = DistributedDataParallel(model, device_ids=[local_rank] if torch.cuda.is_available() else None)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    train_loader = get_dataloader(args.root, args.batch_size, train=True)
    test_loader = get_dataloader(args.root, args.batch_size, train=False)

    best_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        train_loss = train_epoch(model, optimizer, train_loader, device, epoch)
        test_loss, test_acc = evaluate(model, test_loader, device)
        if is_master(rank):
            print(f"epoch {epoch} train loss {train_loss:.4f} "
                  f"test loss {test_loss:.4f} test acc {test_acc:.2f}%")
            if test_acc > best_acc:
                best_acc = test_acc
                torch.save(model.module.state_dict(), "mnist_best.pt")


if __name__ == "__main__":
    main()
