import lightning.pytorch as pl
import torch
import torchvision.transforms.v2 as T
from torch.utils.data import DataLoader, random_split

from dataset import KeypointFrames


def build_augmentation(cfg):
    return T.Compose([
        T.RandomAffine(degrees=cfg["rotation"], translate=(0.1, 0.1), scale=(0.8, 1.2)),
        T.ColorJitter(0.3, 0.3, 0.3),
        T.RandomHorizontalFlip(),
        T.Resize((cfg["height"], cfg["width"])),
        T.ToDtype(torch.float32, scale=True),
    ])


class PoseDataModule(pl.LightningDataModule):
    def __init__(self, root, cfg, batch_size=16):
        super().__init__()
        self.root, self.cfg, self.batch_size = root, cfg, batch_size

    def setup(self, stage=None):
        # self-supervised consistency objective: validation also scores two augmented views of each frame
        pipeline = build_augmentation(self.cfg)
        full = KeypointFrames(self.root, transform=pipeline, views=2)
        n_val = int(0.1 * len(full))
        n_test = int(0.1 * len(full))
        self.train_set, self.val_set, self.test_set = random_split(
            full, [len(full) - n_val - n_test, n_val, n_test], generator=torch.Generator().manual_seed(0))

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, num_workers=8)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size, num_workers=8)

    def test_dataloader(self):
        plain = T.Compose([T.Resize((self.cfg["height"], self.cfg["width"])), T.ToDtype(torch.float32, scale=True)])
        test_frames = KeypointFrames(self.root, transform=plain, split="heldout")
        return DataLoader(test_frames, batch_size=self.batch_size, num_workers=8)
