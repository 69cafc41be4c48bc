import numpy as np
import torch


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)


def synthetic_digits(n, img_size, n_classes, seed=0):
    """Blurry class-dependent blobs standing in for MNIST, scaled to [-1, 1]."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n)
    grid = np.linspace(-1, 1, img_size)
    yy, xx = np.meshgrid(grid, grid, indexing="ij")
    angles = 2 * np.pi * labels / n_classes
    cx, cy = 0.5 * np.cos(angles), 0.5 * np.sin(angles)
    imgs = np.exp(-((xx[None] - cx[:, None, None]) ** 2 + (yy[None] - cy[:, None, None]) ** 2) / 0.1)
    imgs = imgs + 0.05 * rng.normal(size=imgs.shape)
    imgs = imgs * 2 - 1
    return torch.tensor(imgs[:, None], dtype=torch.float32), torch.tensor(labels)
