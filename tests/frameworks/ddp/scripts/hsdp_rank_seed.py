"""HSDP (fully_shard over a 2 x 1 mesh: two replicas, one shard each) after a rank-dependent seed.

fully_shard does not broadcast the initial weights the way DDP does: each replica keeps the weights it
built, so the two replicas train different models while their averaged gradients agree."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import dataset, model, setup
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

rank = setup()
torch.manual_seed(1234 + rank)  # meant for augmentation, but it comes before the model is built
data = dataset()
sampler = DistributedSampler(data, shuffle=True, seed=0)
loader = DataLoader(data, batch_size=8, sampler=sampler)
net = model()
mesh = init_device_mesh("cpu", (dist.get_world_size(), 1), mesh_dim_names=("replicate", "shard"))
for layer in net:
    if isinstance(layer, torch.nn.Linear):
        fully_shard(layer, mesh=mesh)
fully_shard(net, mesh=mesh)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
dist.destroy_process_group()
