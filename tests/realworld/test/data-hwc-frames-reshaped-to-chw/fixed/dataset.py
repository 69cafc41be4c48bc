import glob

import numpy as np
import torch
from torch.utils.data import Dataset


class DemoDataset(Dataset):
    """Each .npz holds uint8 camera frames in (H, W, 3), joint positions and an action chunk."""

    def __init__(self, root, horizon=16):
        self.files = sorted(glob.glob(root + "/*.npz"))
        self.horizon = horizon

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        return {
            "img_top": torch.from_numpy(d["img_top"]),
            "img_hand": torch.from_numpy(d["img_hand"]),
            "qpos": torch.from_numpy(d["qpos"]).float(),
            "actions": torch.from_numpy(d["actions"][: self.horizon]).float(),
        }
