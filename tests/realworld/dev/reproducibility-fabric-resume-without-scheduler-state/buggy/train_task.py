import os

import torch
from lightning.fabric import Fabric

from schedule import warmup_poly_schedule


def train_task(model, train_loader, out_dir, total_steps=90_000, warmup_steps=2_000, lr=1e-4,
               resume_interrupted=False):
    fabric = Fabric(accelerator="auto", precision="bf16-mixed")
    fabric.launch()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    scheduler = warmup_poly_schedule(optimizer, warmup_steps, total_steps)
    model, optimizer = fabric.setup(model, optimizer)
    train_loader = fabric.setup_dataloaders(train_loader)

    state = {"model": model, "optimizer": optimizer, "step": 0}
    ckpt_path = os.path.join(out_dir, "checkpoints", "last.ckpt")
    if resume_interrupted and os.path.exists(ckpt_path):
        fabric.load(ckpt_path, state)

    loader_iter = iter(train_loader)
    while state["step"] < total_steps:
        try:
            batch = next(loader_iter)
        except StopIteration:
            loader_iter = iter(train_loader)
            batch = next(loader_iter)
        loss = model(batch)
        fabric.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
        state["step"] += 1
        if state["step"] % 1000 == 0:
            fabric.save(ckpt_path, state)
