"""A corrupt sample on one shard: rank 1's batch holds a huge value and its loss overflows to inf."""

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
data.tensors[0][21, 3] = 3e38  # index 21 is on rank 1's shard (no shuffle: rank r gets r, r+2, ...)
sampler = DistributedSampler(data, shuffle=False)
loader = DataLoader(data, batch_size=4, sampler=sampler)
net = DDP(model())
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
dist.destroy_process_group()
