import argparse

import torch
from torch.amp import autocast

from losses import MultiTaskLoss
from model import RigNet
from data import build_loader


def train(model, loader, criterion, optimizer, device, epochs):
    for epoch in range(epochs):
        model.train()
        for images, metadata, targets in loader:
            images, targets = images.to(device), {k: v.to(device) for k, v in targets.items()}
            optimizer.zero_grad(set_to_none=True)
            with autocast(device_type="cuda", dtype=torch.float16):
                outputs = model(images, metadata)
                loss, parts = criterion(outputs, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f} " + " ".join(f"{k}={v:.4f}" for k, v in parts.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--lr", type=float, default=1e-4)
    args = ap.parse_args()
    device = torch.device("cuda")
    model = RigNet().to(device)
    decay = [p for n, p in model.named_parameters() if p.ndim > 1]
    no_decay = [p for n, p in model.named_parameters() if p.ndim <= 1]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    train(model, build_loader("train"), MultiTaskLoss(), optimizer, device, args.epochs)


if __name__ == "__main__":
    main()
