import torch
from transformers import get_linear_schedule_with_warmup


def train(net, loader, epochs, accum_steps=4, lr=1e-4, warmup_updates=100):
    optimizer = torch.optim.AdamW(net.parameters(), lr=lr)
    micro_steps = len(loader) * epochs
    # the schedule is advanced once per micro-batch below
    scheduler = get_linear_schedule_with_warmup(optimizer, warmup_updates * accum_steps, micro_steps)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            loss = torch.nn.functional.mse_loss(net(x), y) / accum_steps
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
    return net
