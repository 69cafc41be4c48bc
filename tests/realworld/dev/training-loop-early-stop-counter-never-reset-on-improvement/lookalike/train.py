import argparse

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import ConvAutoencoder
from trainer import BaseTrainer


class AutoencoderTrainer(BaseTrainer):
    def run_one_batch(self, batch, train=True):
        (images,) = batch
        images = images.to(self.device)
        return F.mse_loss(self.model(images), images)


def load_split(path):
    arr = np.load(path).astype(np.float32)  # (N, 2, 100, 100)
    return TensorDataset(torch.from_numpy(arr))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="data/train_crops.npy")
    parser.add_argument("--val", default="data/val_crops.npy")
    parser.add_argument("--homepath", default="runs/ae")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader = DataLoader(load_split(args.train), batch_size=64, shuffle=True, num_workers=4)
    val_loader = DataLoader(load_split(args.val), batch_size=128, num_workers=4)

    train_args = {"lr": 4e-4, "max_epoch": 100, "reducelr_patience": 4,
                  "reducelr_increment": 0.1, "earlystop_patience": 12}
    trainer = AutoencoderTrainer(train_args, ConvAutoencoder(), homepath=args.homepath, device=device)
    trainer.fit(train_loader, val_loader)


if __name__ == "__main__":
    main()
