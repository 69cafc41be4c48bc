import argparse
import json
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torchvision.models import efficientnet_b0, EfficientNet_B0_Weights

from datasets import ImageFolderDataset, build_transforms


class TransformSubset(Dataset):
    def __init__(self, base, indices, transform):
        self.base = base
        self.indices = list(indices)
        self.transform = transform

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        img, target = self.base[self.indices[i]]
        return self.transform(img), target


def run_epoch(model, loader, criterion, device, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total_loss, correct, seen = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for images, targets in loader:
            images, targets = images.to(device), targets.to(device)
            logits = model(images)
            loss = criterion(logits, targets)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * images.size(0)
            correct += (logits.argmax(1) == targets).sum().item()
            seen += images.size(0)
    return total_loss / seen, 100.0 * correct / seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--output", default="./output")
    parser.add_argument("--val-fraction", type=float, default=0.1)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    full_ds = ImageFolderDataset(args.data_dir)
    perm = torch.randperm(len(full_ds), generator=torch.Generator().manual_seed(0)).tolist()
    n_val = int(len(full_ds) * args.val_fraction)
    train_ds = TransformSubset(full_ds, perm[n_val:], build_transforms(224, is_training=True))
    val_ds = TransformSubset(full_ds, perm[:n_val], build_transforms(224))
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, num_workers=8, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size * 2, num_workers=8)
    print(f"train: {len(train_ds)} images in {len(full_ds.class_to_idx)} classes, "
          f"val: {len(val_ds)} images")

    num_classes = len(full_ds.class_to_idx)
    model = efficientnet_b0(weights=EfficientNet_B0_Weights.IMAGENET1K_V1)
    model.classifier[1] = nn.Linear(model.classifier[1].in_features, num_classes)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    best = 0.0
    for epoch in range(args.epochs):
        train_loss, train_acc = run_epoch(model, train_loader, criterion, device, optimizer)
        val_loss, val_acc = run_epoch(model, val_loader, criterion, device)
        scheduler.step()
        print(f"epoch {epoch}: train {train_loss:.3f}/{train_acc:.1f}%  val {val_loss:.3f}/{val_acc:.1f}%")
        if val_acc > best:
            best = val_acc
            torch.save(model.state_dict(), os.path.join(args.output, "model_best.pth"))
    with open(os.path.join(args.output, "class_to_idx.json"), "w") as f:
        json.dump(full_ds.class_to_idx, f, indent=2)


if __name__ == "__main__":
    main()
