"""Count regression on log targets: one count on rank 1's shard is 0, so its target is log(0) = -inf.

Rank 0 never sees that sample; its loss stays finite until the gradient all-reduce brings rank 1's
non-finite gradient over."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from ddp_common import model, setup
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

rank = setup()
torch.manual_seed(0)
g = torch.Generator().manual_seed(3)
features = torch.randn(64, 8, generator=g)
counts = torch.poisson(torch.full((64, 1), 20.0), generator=g) + 1
counts[13] = 0  # index 13 is on rank 1's shard (no shuffle: rank r gets r, r+2, ...), in its 4th batch
data = TensorDataset(features, counts)
sampler = DistributedSampler(data, shuffle=False)
loader = DataLoader(data, batch_size=2, sampler=sampler)
net = DDP(model())
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(2):
    for xb, cb in loader:
        opt.zero_grad()
        loss = F.mse_loss(net(xb), torch.log(cb))
        loss.backward()
        opt.step()
dist.destroy_process_group()
