"""Two gloo ranks started by the script itself (torch.multiprocessing.spawn), each on its own shard, gradients
combined by hand between backward() and step(). argv[1]:

- 'sum' (the bug): dist.all_reduce(p.grad) with its default op SUM and no division;
- 'mean': all_reduce, then p.grad /= world_size;
- 'share': the sum, but each rank back-propagates loss / world_size (the sum is then the global mean's gradient);
- 'tokens': the sum, each rank's summed loss divided by the global sample count (all-reduced before backward);
- 'global': the sum, each rank's summed loss divided by batch size x world size;
- 'ddp': DistributedDataParallel, no hand-written sync;
- 'nosync-first' (a bug of another family): DDP with gradient accumulation over 2 micro-batches where no_sync()
  covers the last micro-batch instead of the first, so the ranks step on different gradients;
- 'nosync': the same accumulation with no_sync() on the first micro-batch only (correct).
"""

import contextlib
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def worker(rank, world, port, mode):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    if mode.startswith(("ddp", "nosync")):
        model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator().manual_seed(100 + rank)  # each rank its own data
    w = torch.linspace(-1, 1, 6).unsqueeze(1)
    accum = 2 if mode.startswith("nosync") else 1
    for step in range(200):
        opt.zero_grad()
        for micro in range(accum):
            x = torch.randn(32, 6, generator=g)
            y = x @ w + 0.1 * torch.randn(32, 1, generator=g)
            unsynced = micro == accum - 1 if mode == "nosync-first" else micro < accum - 1
            with model.no_sync() if unsynced and accum > 1 else contextlib.nullcontext():
                loss = nn.functional.mse_loss(model(x), y) / accum
                if mode == "share":
                    loss = loss / world
                elif mode == "tokens":
                    count = torch.tensor(float(len(x)))
                    dist.all_reduce(count)
                    loss = nn.functional.mse_loss(model(x), y, reduction="sum") / count
                elif mode == "global":
                    loss = nn.functional.mse_loss(model(x), y, reduction="sum") / (len(x) * world)
                loss.backward()
        if mode in ("sum", "mean", "share", "tokens", "global"):
            for p in model.parameters():
                dist.all_reduce(p.grad)
                if mode == "mean":
                    p.grad /= world
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    mp.spawn(worker, args=(2, free, sys.argv[1] if len(sys.argv) > 1 else "sum"), nprocs=2)
    print("done", os.getpid())
