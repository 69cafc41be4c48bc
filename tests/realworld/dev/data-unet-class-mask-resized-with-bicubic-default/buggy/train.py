import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, random_split

from unet import UNet
from utils.data_loading import BasicDataset


def dice_loss(logits, target, n_classes, eps=1e-6):
    probs = F.softmax(logits, dim=1)
    one_hot = F.one_hot(target, n_classes).permute(0, 3, 1, 2).float()
    inter = (probs * one_hot).sum(dim=(0, 2, 3))
    union = probs.sum(dim=(0, 2, 3)) + one_hot.sum(dim=(0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def train_model(model, dataset, epochs=5, batch_size=4, lr=1e-4, val_percent=0.1):
    n_val = int(len(dataset) * val_percent)
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=2)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=lr, weight_decay=1e-8, momentum=0.999)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(1, epochs + 1):
        model.train()
        for batch in train_loader:
            images, true_masks = batch["image"], batch["mask"]
            masks_pred = model(images)
            loss = criterion(masks_pred, true_masks) + dice_loss(masks_pred, true_masks, model.n_classes)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=0.5)
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    dataset = BasicDataset("data/imgs", "data/masks", args.scale)
    model = UNet(n_channels=3, n_classes=args.classes)
    train_model(model, dataset, epochs=args.epochs)
