import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import models

import config
from dataset import FolderDataset, eval_augmentor, train_augmentor


def build_model(num_classes):
    model = models.resnet50(weights=models.ResNet50_Weights.IMAGENET1K_V2)
    for p in model.parameters():
        p.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_set = FolderDataset(os.path.join(config.DATA_ROOT, "train"), train_augmentor())
    val_set = FolderDataset(os.path.join(config.DATA_ROOT, "val"), eval_augmentor())
    train_loader = DataLoader(train_set, batch_size=config.BATCH_SIZE, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=config.BATCH_SIZE, num_workers=4)

    model = build_model(len(train_set.classes)).to(device)
    optimizer = torch.optim.Adam(model.fc.parameters(), lr=config.LR)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(config.EPOCHS):
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for images, labels in val_loader:
                preds = model(images.to(device)).argmax(1).cpu()
                correct += (preds == labels).sum().item()
                total += labels.numel()
        print(f"epoch {epoch}: loss {loss.item():.4f} val acc {correct / total:.4f}")


if __name__ == "__main__":
    main()
