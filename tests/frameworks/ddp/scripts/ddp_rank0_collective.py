"""Bug: a barrier inside `if rank == 0:` after each epoch's validation; rank 0 waits there
forever while rank 1 goes on training.
Modelled on huggingface/transformers PR #1081 and transformers-bloom-inference PR #40 (a barrier
reached by rank 0 only during evaluation).
"""

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
    if rank == 0:
        val = torch.tensor([loss.item()])
        dist.barrier()  # only rank 0 gets here: waits for rank 1 forever
        print("val", val.item())
dist.destroy_process_group()
