import argparse

import timm
import torch

from leaf_dataset import make_loaders


def train_one_epoch(clf, loader, optimizer, criterion, device):
    clf.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(clf(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def evaluate(clf, loader, device):
    clf.eval()
    hits = n = 0
    for x, y in loader:
        hits += (clf(x.to(device)).argmax(1).cpu() == y).sum().item()
        n += len(y)
    return hits / n


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="data/cassava")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--lr", type=float, default=3e-4)
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_dl, val_dl = make_loaders(args.root)
    clf = timm.create_model("efficientnet_b0", pretrained=True, num_classes=5).to(device)
    optimizer = torch.optim.AdamW(clf.parameters(), lr=args.lr, weight_decay=1e-2)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(args.epochs):
        loss = train_one_epoch(clf, train_dl, optimizer, criterion, device)
        print(f"epoch {epoch} loss {loss:.4f} val acc {evaluate(clf, val_dl, device):.4f}")
