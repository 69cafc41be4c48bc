import torch
from torch.amp import GradScaler, autocast


def train(model, loader, optimizer, criterion, device="cuda", epochs=10):
    scaler = GradScaler("cuda")
    model.to(device)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            with autocast(device_type="cuda", dtype=torch.float16):
                loss = criterion(model(x), y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
