"""DDP training of a small MLP classifier.

Launch: torchrun --nproc_per_node=N train_ddp.py   (plain `python train_ddp.py` runs a 1-process group)
"""
import argparse
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def setup():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def make_dataset(n: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    w = torch.randn(16, 3, generator=torch.Generator().manual_seed(99))
    y = (x @ w + 0.5 * torch.randn(n, 3, generator=g)).argmax(1)
    return TensorDataset(x, y)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--out", default="runs/ddp")
    args = p.parse_args(argv)

    rank, world = setup()
    torch.manual_seed(0)
    train_ds, val_ds = make_dataset(4096, seed=0), make_dataset(1024, seed=1)
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=512)

    model = DDP(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 3)))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    history = []
    for epoch in range(args.epochs):
        model.train()
        losses = []
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            correct = sum((model(x).argmax(1) == y).sum().item() for x, y in val_loader)
        acc = correct / len(val_ds)
        history.append({"epoch": epoch, "batch_losses": losses, "val_acc": acc})
        if rank == 0:
            print(f"epoch {epoch} | loss {sum(losses) / len(losses):.4f} | first batches "
                  f"{' '.join(f'{v:.3f}' for v in losses[:4])} | val acc {acc:.3f}")

    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "metrics.json"), "w") as f:
            json.dump({"history": history}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
