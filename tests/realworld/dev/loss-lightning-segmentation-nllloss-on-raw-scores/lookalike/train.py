import argparse
import glob
import os

import numpy as np
import pytorch_lightning as pl
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

from segmodule import SegmentationModule

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class TileDataset(Dataset):
    """Aerial tiles with a single-channel class-id mask (255 = unlabeled)."""

    def __init__(self, root, split):
        self.images = sorted(glob.glob(os.path.join(root, split, "images", "*.png")))
        self.masks = [p.replace("images", "masks") for p in self.images]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        image = np.asarray(Image.open(self.images[idx]).convert("RGB"), dtype=np.float32) / 255.0
        image = (image - MEAN) / STD
        mask = np.asarray(Image.open(self.masks[idx]), dtype=np.int64)
        return torch.from_numpy(image).permute(2, 0, 1), torch.from_numpy(mask)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data/potsdam_tiles")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    pl.seed_everything(42)
    train_loader = DataLoader(TileDataset(args.root, "train"), batch_size=args.batch_size,
                              shuffle=True, num_workers=4)
    val_loader = DataLoader(TileDataset(args.root, "val"), batch_size=args.batch_size,
                            num_workers=4)
    model = SegmentationModule(num_classes=6, lr=args.lr)
    trainer = pl.Trainer(max_epochs=args.epochs, accelerator="auto", devices=1,
                         log_every_n_steps=20)
    trainer.fit(model, train_loader, val_loader)


if __name__ == "__main__":
    main()
