import argparse

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import precision_recall_fscore_support
from torch.utils.data import DataLoader
from torchvision import models, transforms

from coco_multilabel import CocoMultiLabel


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--image_path", default="/data/coco")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--threshold", type=float, default=0.5)
    return parser.parse_args()


def build_loaders(args):
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_tf = transforms.Compose([transforms.RandomResizedCrop(448, scale=(0.5, 1.0)),
                                   transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize])
    val_tf = transforms.Compose([transforms.Resize((448, 448)), transforms.ToTensor(), normalize])
    train_set = CocoMultiLabel(f"{args.image_path}/train2014", f"{args.image_path}/annotations/instances_train2014.json", train_tf)
    val_set = CocoMultiLabel(f"{args.image_path}/val2014", f"{args.image_path}/annotations/instances_val2014.json", val_tf)
    return (DataLoader(train_set, args.batch_size, shuffle=True, num_workers=8, drop_last=True),
            DataLoader(val_set, args.batch_size, shuffle=False, num_workers=8),
            train_set.num_classes)


def build_model(num_classes):
    model = models.resnet101(weights=models.ResNet101_Weights.IMAGENET1K_V2)
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


@torch.no_grad()
def evaluate(model, loader, threshold, device):
    model.eval()
    all_preds, all_targets = [], []
    for images, targets in loader:
        probs = torch.sigmoid(model(images.to(device)))
        all_preds.append((probs > threshold).cpu().numpy().astype(np.int64))
        all_targets.append(targets.numpy().astype(np.int64))
    predictions = np.concatenate(all_preds)
    targets = np.concatenate(all_targets)
    micro = precision_recall_fscore_support(targets, predictions, average="micro", zero_division=0)
    macro = precision_recall_fscore_support(targets, predictions, average="macro", zero_division=0)
    return micro[:3], macro[:3]


def main():
    args = get_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, val_loader, num_classes = build_loaders(args)
    model = build_model(num_classes).to(device)
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        model.train()
        for step, (images, targets) in enumerate(train_loader):
            images, targets = images.to(device), targets.to(device)
            loss = criterion(model(images), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        (mp, mr, mf), (Mp, Mr, Mf) = evaluate(model, val_loader, args.threshold, device)
        print(f"epoch {epoch}  micro P {mp:.4f} R {mr:.4f} F1 {mf:.4f} | macro P {Mp:.4f} R {Mr:.4f} F1 {Mf:.4f}")
        torch.save(model.state_dict(), f"resnet101_bce_epoch{epoch}.pth")


if __name__ == "__main__":
    main()
