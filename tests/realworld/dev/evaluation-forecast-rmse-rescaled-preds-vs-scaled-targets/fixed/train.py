import argparse

import torch
import torch.nn.functional as F

from data import prepare
from evaluate import report
from model import StackedLSTM


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", default="AAPL.csv")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    train_loader, arrays, scaler = prepare(args.csv)
    model = StackedLSTM()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for xb, yb in train_loader:
            loss = F.mse_loss(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        print(f"epoch {epoch} mse {total / len(train_loader.dataset):.6f}")
    report(model, arrays, scaler)
    torch.save(model.state_dict(), "lstm_close.pt")


if __name__ == "__main__":
    main()
