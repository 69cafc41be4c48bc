import os

import numpy as np
import torch
from torch.utils.data import Dataset


class MOViClips(Dataset):
    """Pre-extracted MOVi videos: <root>/<split>/<id>/video.npy [T,H,W,3] and segmentations.npy [T,H,W]."""

    max_objects = 10

    def __init__(self, root, split, clip_len=6):
        self.dir = os.path.join(root, split)
        self.ids = sorted(os.listdir(self.dir))
        self.clip_len = clip_len

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, idx):
        folder = os.path.join(self.dir, self.ids[idx])
        video = np.load(os.path.join(folder, "video.npy"))[: self.clip_len]
        seg = np.load(os.path.join(folder, "segmentations.npy"))[: self.clip_len]
        video = torch.from_numpy(video).permute(0, 3, 1, 2).float() / 127.5 - 1.0
        return video, torch.from_numpy(seg.astype(np.int64))
