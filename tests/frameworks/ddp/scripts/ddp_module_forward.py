"""Bug: the loss is computed through `net.module`, bypassing DDP: gradients are never averaged.
Modelled on jingyaogong/minimind PR #854 (an RL trainer ran its loss forward through `.module`).
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import dataset, setup
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)

    def training_loss(self, x, y):
        return F.mse_loss(self(x), y)


rank = setup()
torch.manual_seed(0)
data = dataset()
sampler = DistributedSampler(data, shuffle=True, seed=0)
loader = DataLoader(data, batch_size=8, sampler=sampler)
net = DDP(Regressor())
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        opt.zero_grad()
        loss = net.module.training_loss(xb, yb)  # the wrapper's gradient hooks never run
        loss.backward()
        opt.step()
dist.destroy_process_group()
