import os
import shutil
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from checkpoint import load_weights, save_weights
from model import Scorer


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(4, 16, generator=g) * 2
    y = torch.randint(0, 4, (n,), generator=g)
    x = centers[y] + torch.randn(n, 16, generator=g)
    return x, y


def train(ddp_model, x, y, steps=150, lr=0.05):
    opt = torch.optim.Adam(ddp_model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        idx = torch.randint(0, len(x), (64,))
        opt.zero_grad()
        loss = loss_fn(ddp_model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f}")


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    return (model(x).argmax(1) == y).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    tmp = tempfile.mkdtemp()
    dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "rdzv"), rank=0, world_size=1)
    x_tr, y_tr = make_data(2000, seed=1)
    x_te, y_te = make_data(2500, seed=1)
    x_te, y_te = x_te[2000:], y_te[2000:]
    ddp_model = DDP(Scorer())
    train(ddp_model, x_tr, y_tr)
    print(f"accuracy of the trained DDP model: {accuracy(ddp_model.module, x_te, y_te):.3f}")
    path = os.path.join(tmp, "scorer.pt")
    if dist.get_rank() == 0:
        save_weights(ddp_model, path)
    dist.barrier()
    # inference side: plain model, no DDP wrapper
    restored = load_weights(Scorer(), path)
    print(f"accuracy after reloading the checkpoint: {accuracy(restored, x_te, y_te):.3f}")
    dist.destroy_process_group()
    shutil.rmtree(tmp)
