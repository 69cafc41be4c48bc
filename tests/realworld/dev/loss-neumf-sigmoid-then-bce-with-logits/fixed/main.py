import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import NeuMF
from trainer import PointwiseTrainer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=256)
    args = p.parse_args()
    inter = torch.load("interactions.pt")
    ds = TensorDataset(inter["user"], inter["item"], inter["label"])
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)
    rec = NeuMF(int(inter["user"].max()) + 1, int(inter["item"].max()) + 1)
    PointwiseTrainer(rec, lr=args.lr).fit(loader, args.epochs)


if __name__ == "__main__":
    main()
