import argparse
import torch
import torch.nn as nn
import imdbfolder
from models import resnet26


def validate(net, loader, device):
    net.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            correct += (net(x.to(device)).argmax(1).cpu() == y).sum().item()
            total += y.numel()
    return correct / total


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--datadir", default="data/decathlon-1.0/")
    p.add_argument("--dataset", nargs="+", default=["aircraft", "dtd", "vgg-flowers"])
    p.add_argument("--epochs", type=int, default=110)
    args = p.parse_args()
    device = "cuda"
    train_loaders, val_loaders, num_classes = imdbfolder.prepare_data_loaders(args.dataset, args.datadir, None)
    for name, tl, vl, nc in zip(args.dataset, train_loaders, val_loaders, num_classes):
        net = resnet26(nc).to(device)
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, [40, 60, 80], 0.1)
        for epoch in range(args.epochs):
            net.train()
            for x, y in tl:
                loss = nn.functional.cross_entropy(net(x.to(device)), y.to(device))
                opt.zero_grad()
                loss.backward()
                opt.step()
            sched.step()
            print(f"{name} epoch {epoch} val acc {validate(net, vl, device):.4f}")
