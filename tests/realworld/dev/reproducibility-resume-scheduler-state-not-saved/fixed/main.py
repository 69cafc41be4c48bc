import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from training import Trainer


def make_data(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1200, 16, generator=g)
    y = torch.sin(x[:, :4].sum(1, keepdim=True)) + 0.3 * torch.randn(1200, 1, generator=g)
    train = DataLoader(TensorDataset(x[:1000], y[:1000]), batch_size=50, shuffle=True, generator=g)
    valid = DataLoader(TensorDataset(x[1000:], y[1000:]), batch_size=200)
    return train, valid


def build_model():
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))


if __name__ == "__main__":
    torch.manual_seed(0)
    train_loader, valid_loader = make_data()
    with tempfile.TemporaryDirectory() as ckpt_dir:
        print("-- first job (preempted after epoch 6)")
        Trainer(build_model(), train_loader, valid_loader, ckpt_dir).train(stop_after=7)
        print("-- resumed job")
        trainer = Trainer(build_model(), train_loader, valid_loader, ckpt_dir)
        trainer.load_checkpoint()
        trainer.train()
