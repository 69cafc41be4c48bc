import copy

import lightning as L
from torch.utils.data import DataLoader

from birds_dataset import BirdClips
from transforms import AudioTransforms


class BirdDataModule(L.LightningDataModule):
    def __init__(self, root, batch_size=64, num_workers=8):
        super().__init__()
        self.root, self.batch_size, self.num_workers = root, batch_size, num_workers
        self.transforms = AudioTransforms()

    def setup(self, stage=None):
        self.train_set = BirdClips(self.root, "train", transform=copy.deepcopy(self.transforms).set_mode("train"))
        self.val_set = BirdClips(self.root, "valid", transform=copy.deepcopy(self.transforms).set_mode("valid"))
        self.test_set = BirdClips(self.root, "test", transform=copy.deepcopy(self.transforms).set_mode("test"))

    def train_dataloader(self):
        return DataLoader(self.train_set, self.batch_size, shuffle=True, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.val_set, self.batch_size, num_workers=self.num_workers)

    def test_dataloader(self):
        return DataLoader(self.test_set, self.batch_size, num_workers=self.num_workers)
