"""Mixed-precision fine-tuning with gradient accumulation and a warm-up schedule."""

import torch
from torch import nn
from torch.amp import GradScaler
from transformers import get_linear_schedule_with_warmup


class Head(nn.Module):
    def __init__(self, dim, n_classes):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, n_classes)

    def forward(self, x):
        return self.out(torch.tanh(self.proj(x)))


def compute_loss(model, batch, criterion):
    inputs, labels = batch
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        logits = model(inputs)
        return criterion(logits, labels)


def finetune(model, loader, epochs=3, accum_steps=8, max_norm=1.0):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
    total_steps = epochs * len(loader) // accum_steps
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.1 * total_steps), total_steps)
    scaler = GradScaler("cuda")
    model.train()
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = compute_loss(model, batch, criterion)
            scaler.scale(loss).backward()
            if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
                scheduler.step()
    return model
