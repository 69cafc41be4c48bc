import torch
from torch.amp import autocast

from losses import MultiTaskLoss


def train(model, train_loader, val_loader, epochs=50, lr=1e-4, device="cuda"):
    model.to(device)
    criterion = MultiTaskLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    for epoch in range(epochs):
        model.train()
        for images, metadata, targets in train_loader:
            images = images.to(device)
            targets = {k: v.to(device) for k, v in targets.items()}
            with autocast(device_type=str(device)):
                outputs = model(images, metadata)
                loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        model.eval()
        with torch.no_grad():
            val = 0.0
            for images, metadata, targets in val_loader:
                images = images.to(device)
                targets = {k: v.to(device) for k, v in targets.items()}
                with autocast(device_type=str(device)):
                    val += criterion(model(images, metadata), targets).item()
        print(f"epoch {epoch} val {val / len(val_loader):.4f}")
