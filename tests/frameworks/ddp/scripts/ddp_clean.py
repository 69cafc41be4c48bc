"""A correct 2-rank DDP regression: same seed, DistributedSampler with set_epoch, reduced metric."""

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
    total = torch.zeros(1)
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
        total += loss.detach()
    dist.all_reduce(total)
    if rank == 0:
        print(f"epoch {epoch} loss {total.item() / (len(loader) * dist.get_world_size()):.4f}")
dist.destroy_process_group()
