import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset
from model import RTPredictor
from encode import encode_peptides


def load(path, stats=None):
    df = pd.read_csv(path)
    y = torch.tensor(df["rt"].values, dtype=torch.float32)
    if stats is None:
        stats = (y.mean(), y.std())
    y = (y - stats[0]) / stats[1]
    return TensorDataset(encode_peptides(df["sequence"]), y), stats


if __name__ == "__main__":
    train_ds, stats = load("data/rt_train.csv")
    val_ds, _ = load("data/rt_val.csv", stats)
    net = RTPredictor()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    mse = torch.nn.MSELoss()
    for epoch in range(30):
        net.train()
        for seqs, rt in DataLoader(train_ds, batch_size=128, shuffle=True):
            loss = mse(net(seqs), rt)
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            seqs, rt = val_ds.tensors
            print(f"epoch {epoch} val mse {mse(net(seqs), rt).item():.4f}")
