"""Inductive cell-type classification: train on whole slices, evaluate on unseen slices."""
import argparse

import torch
from torch import nn
from torch_geometric.loader import DataLoader

from data import load_slices
from model import CellTypeGAT

TRAIN_SLICES = [f"data/merfish_slice{i}.npz" for i in (1, 2, 3, 4, 5)]
VAL_SLICES = ["data/merfish_slice6.npz"]
TEST_SLICES = ["data/merfish_slice7.npz", "data/merfish_slice8.npz"]


def train_epoch(model, loader, optimizer, loss_fn, device):
    model.train()
    total = 0.0
    for data in loader:
        data = data.to(device)
        optimizer.zero_grad()
        out = model(data.x, data.edge_index)
        loss = loss_fn(out, data.y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, count = 0, 0
    for data in loader:
        data = data.to(device)
        pred = model(data.x, data.edge_index).argmax(dim=-1)
        correct += int((pred == data.y).sum())
        count += data.num_nodes
    return correct / count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=5e-3)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_graphs = load_slices(TRAIN_SLICES)
    train_loader = DataLoader(train_graphs, batch_size=1, shuffle=True)
    val_loader = DataLoader(load_slices(VAL_SLICES), batch_size=1)
    test_loader = DataLoader(load_slices(TEST_SLICES), batch_size=1)

    n_classes = int(max(g.y.max() for g in train_graphs)) + 1
    model = CellTypeGAT(train_graphs[0].num_features, args.hidden, n_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()

    best_val, best_test = 0.0, 0.0
    for epoch in range(1, args.epochs + 1):
        loss = train_epoch(model, train_loader, optimizer, loss_fn, device)
        val_acc = evaluate(model, val_loader, device)
        if val_acc > best_val:
            best_val, best_test = val_acc, evaluate(model, test_loader, device)
        if epoch % 20 == 0:
            print(f"epoch {epoch:03d} loss {loss:.4f} val {val_acc:.3f}")
    print(f"best val {best_val:.4f} -> test {best_test:.4f}")


if __name__ == "__main__":
    main()
