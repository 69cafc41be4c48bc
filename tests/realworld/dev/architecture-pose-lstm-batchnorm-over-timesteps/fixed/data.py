"""Load the 2D-pose HAR text files: one row of 36 keypoint coordinates per frame."""

import numpy as np
import torch

import config


def load_x(path):
    with open(path) as fh:
        rows = [line.strip().split(",") for line in fh if line.strip()]
    frames = np.asarray(rows, dtype=np.float32)
    blocks = len(frames) // config.N_STEPS
    return np.stack(np.split(frames[: blocks * config.N_STEPS], blocks))


def load_y(path):
    with open(path) as fh:
        labels = [int(line.split()[0]) for line in fh if line.strip()]
    return np.asarray(labels, dtype=np.int64) - 1


def load_split(name):
    x = load_x(f"{config.DATASET_PATH}X_{name}.txt")
    y = load_y(f"{config.DATASET_PATH}Y_{name}.txt")
    return torch.from_numpy(x), torch.from_numpy(y)


def random_batch(x, y, batch_size, generator=None):
    idx = torch.randint(0, len(x), (batch_size,), generator=generator)
    return x[idx], y[idx]
