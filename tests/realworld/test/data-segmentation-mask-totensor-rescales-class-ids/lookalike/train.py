import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import BuildingFootprints
from model import build_model, segmentation_logits


def iou(pred, target):
    inter = (pred & target).sum().item()
    union = (pred | target).sum().item()
    return inter / union if union > 0 else 1.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data/buildings")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_set = BuildingFootprints(args.root, "train")
    val_set = BuildingFootprints(args.root, "val")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, num_workers=4)

    model = build_model(BuildingFootprints.NUM_CLASSES).to(device)
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)

    for epoch in range(args.epochs):
        model.train()
        for images, masks in train_loader:
            images, masks = images.to(device), masks.to(device)
            loss = criterion(segmentation_logits(model, images), masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        model.eval()
        scores = []
        with torch.no_grad():
            for images, masks in val_loader:
                pred = segmentation_logits(model, images.to(device)).sigmoid().cpu() > 0.5
                scores.append(iou(pred, masks > 0.5))
        print(f"epoch {epoch}: loss {loss.item():.4f} val IoU {sum(scores) / len(scores):.4f}")


if __name__ == "__main__":
    main()
