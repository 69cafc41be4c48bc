"""Transductive cell-type classification on a spatial neighbourhood graph."""
import argparse

import torch
from torch import nn

from data import load_spatial_graph
from model import CellTypeGAT


def train_epoch(model, data, optimizer, loss_fn):
    model.train()
    optimizer.zero_grad()
    out = model(data.x, data.edge_index)
    loss = loss_fn(out, data.y)
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.no_grad()
def evaluate(model, data):
    model.eval()
    pred = model(data.x, data.edge_index).argmax(dim=-1)
    accs = {}
    for split in ("train", "val", "test"):
        mask = data[f"{split}_mask"]
        accs[split] = (pred[mask] == data.y[mask]).float().mean().item()
    return accs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graph", default="data/merfish_slice3.npz")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=5e-3)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = load_spatial_graph(args.graph).to(device)
    n_classes = int(data.y.max()) + 1
    model = CellTypeGAT(data.num_features, args.hidden, n_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()

    best_val, best_test = 0.0, 0.0
    for epoch in range(1, args.epochs + 1):
        loss = train_epoch(model, data, optimizer, loss_fn)
        accs = evaluate(model, data)
        if accs["val"] > best_val:
            best_val, best_test = accs["val"], accs["test"]
        if epoch % 20 == 0:
            print(f"epoch {epoch:03d} loss {loss:.4f} train {accs['train']:.3f} val {accs['val']:.3f} test {accs['test']:.3f}")
    print(f"best val {best_val:.4f} -> test {best_test:.4f}")


if __name__ == "__main__":
    main()
