import numpy as np


def make_training_splits(labeled_frames, val_fraction, seed=None):
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(labeled_frames))
    n_val = max(1, int(round(len(idx) * val_fraction)))
    val = [labeled_frames[i] for i in idx[:n_val]]
    train = [labeled_frames[i] for i in idx[n_val:]]
    return train, val
