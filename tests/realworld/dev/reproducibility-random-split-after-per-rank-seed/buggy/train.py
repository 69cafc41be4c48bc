from dataclasses import dataclass

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

from datasets import make_dataset
from utils import set_seed


@dataclass
class Cfg:
    root: str = "/data/robot_frames"
    val_ratio: float = 0.02
    seed: int = 1234
    batch_size: int = 32
    lr: float = 1e-4


def main(cfg=Cfg()):
    accelerator = Accelerator()
    set_seed(cfg.seed, accelerator=accelerator)
    train_ds, val_ds = make_dataset(cfg)
    train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=cfg.batch_size)
    policy = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.GELU(), torch.nn.Linear(512, 32))
    opt = torch.optim.AdamW(policy.parameters(), lr=cfg.lr)
    policy, opt, train_dl, val_dl = accelerator.prepare(policy, opt, train_dl, val_dl)
    for batch in train_dl:
        loss = torch.nn.functional.mse_loss(policy(batch["obs"]), batch["action"])
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
