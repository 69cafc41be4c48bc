import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision.datasets import VOCSegmentation

from model import DeepLab
from transforms import train_transforms, val_transforms


def fast_hist(pred, label, n):
    k = (label >= 0) & (label < n)
    return np.bincount(n * label[k] + pred[k], minlength=n ** 2).reshape(n, n)


def evaluate(model, loader, device, num_classes):
    model.eval()
    hist = np.zeros((num_classes, num_classes))
    with torch.no_grad():
        for images, targets in loader:
            preds = model(images.to(device)).argmax(1).cpu().numpy()
            hist += fast_hist(preds.flatten(), targets.numpy().flatten(), num_classes)
    iou = np.diag(hist) / (hist.sum(1) + hist.sum(0) - np.diag(hist) + 1e-10)
    return float(np.nanmean(iou))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="./VOCdevkit")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=7e-3)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set = VOCSegmentation(args.root, image_set="train", transforms=train_transforms(513))
    val_set = VOCSegmentation(args.root, image_set="val", transforms=val_transforms(513))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              num_workers=4, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=1, num_workers=2)

    model = DeepLab(num_classes=21, freeze_bn=True).to(device)
    params = [
        {"params": [p for n, p in model.named_parameters()
                    if p.requires_grad and n.startswith(("stem", "layers"))], "lr": args.lr},
        {"params": [p for n, p in model.named_parameters()
                    if p.requires_grad and n.startswith(("aspp", "classifier"))], "lr": args.lr * 10},
    ]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    total = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1 - it / total) ** 0.9)
    criterion = nn.CrossEntropyLoss(ignore_index=255)

    best_miou = 0.0
    for epoch in range(args.epochs):
        model.train()
        running = 0.0
        for i, (images, targets) in enumerate(train_loader):
            images, targets = images.to(device), targets.to(device)
            optimizer.zero_grad()
            loss = criterion(model(images), targets)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item()
        miou = evaluate(model, val_loader, device, 21)
        print(f"epoch {epoch}: train loss {running / len(train_loader):.4f}  val mIoU {miou:.4f}")
        if miou > best_miou:
            best_miou = miou
            torch.save(model.state_dict(), "deeplab_best.pth")


if __name__ == "__main__":
    main()
