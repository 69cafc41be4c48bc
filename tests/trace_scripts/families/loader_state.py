"""DataLoader state the workers or the ranks may not share.

argv[1]:
  stale        persistent workers, and the dataset's noise level is lowered in the main process every epoch: the bug
  fresh        the same schedule with persistent_workers=False (workers get a new copy each epoch): correct
  static       persistent workers over a dataset whose state never changes: correct
  rank-seeds   two simulated ranks whose DistributedSamplers get seed + rank: the bug
  shared-seed  the same ranks with one seed: correct
  jitter-seed  one seed for the samplers, seed + rank only for per-rank input noise: correct
"""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset
from torch.utils.data.distributed import DistributedSampler

mode = sys.argv[1] if len(sys.argv) > 1 else "stale"
torch.manual_seed(0)


class NoisyPoints(Dataset):
    def __init__(self, n=64):
        self.x = torch.randn(n, 4)
        self.y = self.x.sum(1, keepdim=True)
        self.noise = 1.0

    def set_noise(self, level):
        self.noise = level

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i] + self.noise * torch.randn(4), self.y[i]


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def step(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    if mode in ("stale", "fresh", "static"):
        data = NoisyPoints()
        loader = DataLoader(data, batch_size=16, shuffle=True, num_workers=1, persistent_workers=(mode != "fresh"))
        for epoch in range(6):
            if mode != "static":
                data.set_noise(1.0 / (epoch + 1))
            for x, y in loader:
                step(x, y)
    else:
        data = TensorDataset(torch.randn(96, 4), torch.randn(96, 1))
        seed = 7
        samplers = [DistributedSampler(data, num_replicas=2, rank=r, shuffle=True,
                                       seed=seed + r if mode == "rank-seeds" else seed) for r in range(2)]
        loaders = [DataLoader(data, batch_size=8, sampler=s) for s in samplers]
        jitter = [torch.Generator().manual_seed(seed + r) for r in range(2)]
        for epoch in range(3):
            for s in samplers:
                s.set_epoch(epoch)
            for batches in zip(*loaders):
                x = torch.cat([b[0] + (0.01 * torch.randn(b[0].shape, generator=g) if mode == "jitter-seed" else 0)
                               for b, g in zip(batches, jitter)])
                step(x, torch.cat([b[1] for b in batches]))
