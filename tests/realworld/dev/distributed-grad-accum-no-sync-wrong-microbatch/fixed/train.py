import contextlib

import numpy as np
import torch
import torch.nn as nn

from sim_ddp import ReplicaGroup

CFG = dict(world_size=2, accum_steps=4, micro_batch=16, lr=0.05, steps=240, seed=0)


def make_shards(world_size, n=2048, dim=20, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=g)
    w = torch.randn(dim, 1, generator=g)
    y = (x @ w + 0.1 * torch.randn(n, 1, generator=g)).squeeze(1)
    return [(x[r::world_size], y[r::world_size]) for r in range(world_size)]


def micro_batches(shards, bs, seed):
    rng = np.random.default_rng(seed)
    while True:
        out = []
        for xs, ys in shards:
            idx = torch.as_tensor(rng.choice(len(xs), bs, replace=False))
            out.append((xs[idx], ys[idx]))
        yield out


def train(group, opts, shards, cfg):
    objective = nn.MSELoss()
    stream = micro_batches(shards, cfg["micro_batch"], cfg["seed"])
    accum = cfg["accum_steps"]
    for step in range(cfg["steps"]):
        batches = next(stream)
        ctx = group.no_sync() if (step + 1) % accum != 0 else contextlib.nullcontext()
        with ctx:
            losses = [objective(net(x).squeeze(1), y) / accum
                      for net, (x, y) in zip(group.replicas, batches)]
            group.backward(losses)
        if (step + 1) % accum == 0:
            for opt in opts:
                opt.step()
                opt.zero_grad()
        if step % 40 == 0 or step == cfg["steps"] - 1:
            loss = sum(l.item() for l in losses) * accum / len(losses)
            print(f"step {step:4d} loss {loss:.4f} replica divergence {group.max_divergence():.2e}")


if __name__ == "__main__":
    torch.manual_seed(CFG["seed"])
    net = nn.Sequential(nn.Linear(20, 32), nn.Tanh(), nn.Linear(32, 1))
    group = ReplicaGroup(net, CFG["world_size"])
    opts = [torch.optim.SGD(r.parameters(), lr=CFG["lr"], momentum=0.9) for r in group.replicas]
    train(group, opts, make_shards(CFG["world_size"]), CFG)
