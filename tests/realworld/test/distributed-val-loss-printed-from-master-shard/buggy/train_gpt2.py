import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import GPT, GPTConfig
from dataloader import DistributedTokenLoader

ddp_rank = int(os.environ["RANK"])
ddp_local_rank = int(os.environ["LOCAL_RANK"])
ddp_world_size = int(os.environ["WORLD_SIZE"])
dist.init_process_group(backend="nccl")
device = f"cuda:{ddp_local_rank}"
torch.cuda.set_device(device)
master_process = ddp_rank == 0

B, T, num_iterations, val_every = 32, 1024, 5000, 250
train_loader = DistributedTokenLoader("data/fineweb_train_*.bin", B, T, ddp_rank, ddp_world_size)
val_loader = DistributedTokenLoader("data/fineweb_val_*.bin", B, T, ddp_rank, ddp_world_size)
model = DDP(GPT(GPTConfig()).to(device), device_ids=[ddp_local_rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)

for step in range(num_iterations + 1):
    if step % val_every == 0:
        model.eval()
        val_loader.reset()
        val_loss = torch.zeros((), device=device)
        with torch.no_grad():
            for _ in range(20):
                x, y = val_loader.next_batch()
                _, loss = model(x, y)
                val_loss += loss / 20
        if master_process:
            print(f"step {step} val loss {val_loss.item():.4f}")
        model.train()
    t0 = time.time()
    x, y = train_loader.next_batch()
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        _, loss = model(x, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if master_process:
        print(f"step {step} train loss {loss.item():.4f} ({(time.time() - t0) * 1000:.0f} ms)")
