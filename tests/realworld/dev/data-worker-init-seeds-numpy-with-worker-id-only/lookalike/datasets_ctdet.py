import numpy as np
import torch
from torch.utils.data import Dataset


class CTDetDataset(Dataset):
    def __init__(self, root, split, input_res=512, scale=0.4, shift=0.1, flip=0.5):
        self.index = np.load(f"{root}/{split}_index.npy", allow_pickle=True)
        self.root = root
        self.input_res, self.scale, self.shift, self.flip = input_res, scale, shift, flip

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        rec = self.index[i].item()
        img = np.load(f"{self.root}/{rec['file']}")
        s = max(img.shape[:2]) * np.clip(np.random.randn() * self.scale + 1, 1 - self.scale, 1 + self.scale)
        c = np.array(img.shape[1::-1], dtype=np.float32) / 2 + np.random.randn(2) * self.shift * s
        flipped = np.random.random() < self.flip
        return {"input": torch.from_numpy(img.transpose(2, 0, 1)).float(),
                "aug": torch.tensor([s, c[0], c[1], float(flipped)]),
                "hm": torch.from_numpy(rec["hm"]).float()}
