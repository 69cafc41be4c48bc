import argparse
import math

import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator

from utils import EMAModel


class ConvNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.GroupNorm(8, 64), nn.GELU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.GroupNorm(8, 128), nn.GELU(), nn.MaxPool2d(2),
            nn.Conv2d(128, 256, 3, padding=1), nn.GroupNorm(8, 256), nn.GELU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(256, n_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


@torch.no_grad()
def evaluate(model, loader, accelerator):
    model.eval()
    correct = total = 0
    for x, y in loader:
        pred = model(x).argmax(1)
        pred, y = accelerator.gather_for_metrics((pred, y))
        correct += (pred == y).sum().item()
        total += y.numel()
    model.train()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--ema_decay", type=float, default=0.999)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
    args = parser.parse_args()

    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    x = torch.randn(4096, 3, 32, 32)
    y = torch.randint(0, 10, (4096,))
    train_loader = DataLoader(TensorDataset(x[:3584], y[:3584]), batch_size=64, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[3584:], y[3584:]), batch_size=256)

    model = ConvNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    steps = args.epochs * math.ceil(len(train_loader) / args.gradient_accumulation_steps)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=steps)
    model, optimizer, train_loader, val_loader, scheduler = accelerator.prepare(
        model, optimizer, train_loader, val_loader, scheduler)

    ema = EMAModel(accelerator.unwrap_model(model).parameters(), decay=args.ema_decay)

    for epoch in range(args.epochs):
        for xb, yb in train_loader:
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1)
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                ema.step(accelerator.unwrap_model(model).parameters())

        raw_acc = evaluate(model, val_loader, accelerator)
        unwrapped = accelerator.unwrap_model(model)
        ema.store(unwrapped.parameters())
        ema.copy_to(unwrapped.parameters())
        ema_acc = evaluate(model, val_loader, accelerator)
        if accelerator.is_main_process:
            torch.save(unwrapped.state_dict(), "model_ema.pt")
        ema.restore(unwrapped.parameters())
        accelerator.print(f"epoch {epoch} loss {loss.item():.4f} val acc {raw_acc:.3f} ema val acc {ema_acc:.3f}")


if __name__ == "__main__":
    main()
