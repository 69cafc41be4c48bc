from dataclasses import dataclass

import torch

from model import PolicyHead
from trainer import Trainer


@dataclass
class Config:
    steps: int = 300
    batch_size: int = 64
    lr: float = 3e-3
    in_dim: int = 16
    seed: int = 0


def make_batches(cfg):
    g = torch.Generator().manual_seed(cfg.seed)
    w = torch.randn(cfg.in_dim, 1, generator=g)
    for _ in range(cfg.steps):
        x = torch.randn(cfg.batch_size, cfg.in_dim, generator=g)
        y = torch.tanh(0.5 * (x @ w)) + 0.05 * torch.randn(cfg.batch_size, 1, generator=g)
        yield x, y


def main():
    cfg = Config()
    torch.manual_seed(cfg.seed)
    net = PolicyHead(in_dim=cfg.in_dim)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=0.0)
    trainer = Trainer(net, opt)
    history = trainer.fit(make_batches(cfg))
    print(f"final loss (last 50 steps): {sum(history[-50:]) / 50:.4f}")


if __name__ == "__main__":
    main()
