"""Bug: every rank writes the same checkpoint file at the end of each epoch (scan finds it)."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import dataset, model, setup
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

rank = setup()
torch.manual_seed(0)
data = dataset()
sampler = DistributedSampler(data, shuffle=True, seed=0)
loader = DataLoader(data, batch_size=8, sampler=sampler)
net = DDP(model())
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
    torch.save(net.module.state_dict(), "checkpoint.pt")
dist.destroy_process_group()
