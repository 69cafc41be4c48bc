"""Map-style datasets a DataLoader wraps: one whose __getitem__ writes into its cache, one whose __len__ is short.

argv[1]:
  inplace     the cached float images are normalised in place (sub_/div_ on a view of the cache): the bug
  copy        the same transform on a clone of the cached image: correct
  augment     random flips and noise out of place, from the global and the dataset's own generators: correct
  len-axis    __len__ returns images.shape[1] (the image height), not the number of images: the bug
  len-window  windows over a series, __len__ = N - window + 1: correct
The script prints the sum of its losses, so a run can be compared with and without the trace.
"""
import sys

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

mode = sys.argv[1] if len(sys.argv) > 1 else "inplace"
torch.manual_seed(0)
rng = np.random.default_rng(0)
N, SIDE = 256, 12
labels = rng.integers(0, 3, size=N)
pixels = (0.3 + 0.2 * labels[:, None, None] + 0.1 * rng.standard_normal((N, SIDE, SIDE))).astype(np.float32)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, img):
        return img.sub_(self.mean).div_(self.std)


class Images(Dataset):
    def __init__(self, images, targets, copy=False):
        self.images = torch.from_numpy(images).unsqueeze(1)
        self.targets = torch.from_numpy(targets)
        self.norm = Normalize(0.5, 0.25)
        self.copy = copy
        self.rng = np.random.default_rng(1)

    def __len__(self):
        return len(self.images) if mode != "len-axis" else self.images.shape[2]

    def __getitem__(self, i):
        img = self.images[i].clone() if self.copy else self.images[i]
        if mode == "augment":
            img = img.flip(-1) if torch.rand(()) < 0.5 else img
            img = img + 0.05 * torch.randn_like(img) + float(self.rng.normal(0, 0.01))
            return (img - 0.5) / 0.25, self.targets[i]
        return self.norm(img), self.targets[i]


class Windows(Dataset):
    def __init__(self, series, window=8):
        self.series, self.window = series, window

    def __len__(self):
        return len(self.series) - self.window + 1

    def __getitem__(self, i):
        w = self.series[i:i + self.window]
        return w[:-1].flatten(), w[-1, 0]


if mode == "len-window":
    data = Windows(torch.randn(300, 4).cumsum(0) / 10)
    model = nn.Sequential(nn.Linear(28, 32), nn.ReLU(), nn.Linear(32, 1))
else:
    data = Images(pixels, labels, copy=(mode == "copy"))
    model = nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, 32), nn.ReLU(), nn.Linear(32, 3))
loader = DataLoader(data, batch_size=32, shuffle=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
total = 0.0
for epoch in range(4):
    for x, y in loader:
        out = model(x)
        loss = nn.functional.mse_loss(out.squeeze(1), y) if mode == "len-window" else nn.functional.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
print(f"loss sum {total:.6f}")
