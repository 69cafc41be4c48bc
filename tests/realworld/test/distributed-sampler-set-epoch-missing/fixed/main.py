import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_train_loader
from engine import train_one_epoch


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./patches")
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.1)
    return p.parse_args()


def main():
    args = parse()
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    net = torchvision.models.resnet18(num_classes=10).to(device)
    net = DDP(net, device_ids=[local_rank])
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss()
    loader, train_sampler = build_train_loader(args.data, args.batch_size)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(net, loader, optimizer, criterion, device, epoch)
        scheduler.step()

    if dist.get_rank() == 0:
        torch.save(net.module.state_dict(), "resnet18_patches.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
