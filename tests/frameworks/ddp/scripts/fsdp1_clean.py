"""A correct 2-rank FSDP1 (FullyShardedDataParallel, FULL_SHARD) regression on the CPU: flat sharded parameters."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import dataset, model, setup
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

rank = setup()
torch.manual_seed(0)
data = dataset()
sampler = DistributedSampler(data, shuffle=True, seed=0)
loader = DataLoader(data, batch_size=8, sampler=sampler)
net = FSDP(model(), device_id=torch.device("cpu"))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
dist.destroy_process_group()
