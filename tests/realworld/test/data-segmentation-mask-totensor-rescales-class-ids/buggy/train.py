import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import FacadeSegmentation
from model import build_model, segmentation_logits


def miou(pred, target, num_classes):
    ious = []
    for c in range(num_classes):
        inter = ((pred == c) & (target == c)).sum().item()
        union = ((pred == c) | (target == c)).sum().item()
        if union > 0:
            ious.append(inter / union)
    return sum(ious) / max(len(ious), 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data/facades")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_set = FacadeSegmentation(args.root, "train")
    val_set = FacadeSegmentation(args.root, "val")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, num_workers=4)

    model = build_model(FacadeSegmentation.NUM_CLASSES).to(device)
    criterion = nn.CrossEntropyLoss()
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
                pred = segmentation_logits(model, images.to(device)).argmax(1).cpu()
                scores.append(miou(pred, masks, FacadeSegmentation.NUM_CLASSES))
        print(f"epoch {epoch}: loss {loss.item():.4f} val mIoU {sum(scores) / len(scores):.4f}")


if __name__ == "__main__":
    main()
