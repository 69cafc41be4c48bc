"""Validation accuracy of rank 0's shard printed as the accuracy: the validation loader has a
DistributedSampler, each rank scores its half, and nothing combines the counts before rank 0 prints.
(As in pytorch/examples issue 905: `validate` returns a different value on each process.)"""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import setup
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

rank = setup()
torch.manual_seed(0)
g = torch.Generator().manual_seed(1)
x = torch.randn(96, 8, generator=g)
y = (x[:, 0] + 0.5 * x[:, 1] > 0).long()
train_set, val_set = TensorDataset(x[:64], y[:64]), TensorDataset(x[64:], y[64:])
train_sampler = DistributedSampler(train_set, shuffle=True, seed=0)
train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
val_loader = DataLoader(val_set, batch_size=8, sampler=DistributedSampler(val_set, shuffle=False))
net = DDP(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)))
opt = torch.optim.SGD(net.parameters(), lr=0.5)


def validate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            total += yb.numel()
    model.train()
    return correct / total


for epoch in range(3):
    train_sampler.set_epoch(epoch)
    for xb, yb in train_loader:
        opt.zero_grad()
        F.cross_entropy(net(xb), yb).backward()
        opt.step()
    acc = validate(net, val_loader)
    if rank == 0:
        print(f"epoch {epoch}: val accuracy {acc:.3f}")
dist.destroy_process_group()
