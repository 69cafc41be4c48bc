from dataclasses import dataclass
import torch
from torch.utils.data import DataLoader, random_split
from roost_model import Roost
from dataset import CompositionDataset
from train import fit


@dataclass
class Config:
    lr: float = 3e-4
    weight_decay: float = 1e-6
    max_epochs: int = 300
    patience: int = 20
    batch_size: int = 128


if __name__ == "__main__":
    cfg = Config()
    ds = CompositionDataset("data/bandgap.csv")
    n_val = len(ds) // 10
    train_ds, val_ds = random_split(ds, [len(ds) - n_val, n_val], generator=torch.Generator().manual_seed(0))
    model = Roost(elem_emb_len=200, n_targets=1)
    model, best = fit(model, DataLoader(train_ds, cfg.batch_size, shuffle=True), DataLoader(val_ds, cfg.batch_size), cfg)
    print(f"best validation MAE {best:.4f}")
    torch.save(model.state_dict(), "roost_bandgap.pt")
