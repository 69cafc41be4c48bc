"""Bug: a rank-dependent seed before the model is built, and hand-written gradient averaging
without a broadcast of the initial weights: the replicas start (and stay) different."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import dataset, model, setup
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

rank = setup()
world = dist.get_world_size()
torch.manual_seed(1234 + rank)  # "different augmentation per rank"
data = dataset()
sampler = DistributedSampler(data, shuffle=True, seed=0)
loader = DataLoader(data, batch_size=8, sampler=sampler)
net = model()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        xb = xb + 0.01 * torch.randn_like(xb)
        opt.zero_grad()
        loss = F.mse_loss(net(xb), yb)
        loss.backward()
        for p in net.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        opt.step()
dist.destroy_process_group()
