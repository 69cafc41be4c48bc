import argparse

import torch
from torch.utils.data import DataLoader

from dataset import WindowDataset
from forecaster import PatchForecaster


def run_epoch(model, loader, criterion, optimizer=None):
    train = optimizer is not None
    model.train(train)
    total = 0.0
    for x_batch, y_batch in loader:
        with torch.set_grad_enabled(train):
            pred = model(x_batch)
            loss = criterion(pred, y_batch)
        if train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.item() * len(x_batch)
    return total / len(loader.dataset)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pred-len", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=50)
    args = ap.parse_args()
    train_ds = WindowDataset("prices.csv", split="train", pred_len=args.pred_len)
    val_ds = WindowDataset("prices.csv", split="val", pred_len=args.pred_len)
    model = PatchForecaster(pred_len=args.pred_len)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = torch.nn.MSELoss()
    for epoch in range(args.epochs):
        tr = run_epoch(model, DataLoader(train_ds, batch_size=64, shuffle=True), criterion, opt)
        va = run_epoch(model, DataLoader(val_ds, batch_size=64), criterion)
        print(epoch, tr, va)


if __name__ == "__main__":
    main()
