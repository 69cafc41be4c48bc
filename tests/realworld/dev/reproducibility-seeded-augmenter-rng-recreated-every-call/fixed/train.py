import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader

from augment import AddNoise, Compose, RandomScale, TimeShift
from dataset import SensorWindows, load_split
from model import HARConvNet


def set_seed(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_augmenter(seed):
    return Compose([
        AddNoise(scale=0.05, seed=seed),
        RandomScale(0.8, 1.2, prob=0.5, seed=seed),
        TimeShift(max_shift=16, prob=0.5, seed=seed),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="data/har_train.npz")
    parser.add_argument("--val", default="data/har_val.npz")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    set_seed(args.seed)

    x_tr, y_tr = load_split(args.train)
    x_va, y_va = load_split(args.val)
    train_set = SensorWindows(x_tr, y_tr, augmenter=build_augmenter(args.seed))
    val_set = SensorWindows(x_va, y_va)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=0)
    val_loader = DataLoader(val_set, batch_size=256)

    model = HARConvNet(in_channels=x_tr.shape[1], n_classes=int(y_tr.max()) + 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        print(f"epoch {epoch}: loss {loss.item():.4f} val acc {correct / len(val_set):.4f}")


if __name__ == "__main__":
    main()
