"""The ``dataset-len-wrong-axis`` rule (``mlsleuth/scan/rules/data/dataset_len_wrong_axis.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "dataset-len-wrong-axis"


def test_shape_of_second_axis_with_first_axis_indexing():
    src = """
    import torch
    from torch.utils.data import Dataset

    class Tiles(Dataset):
        def __init__(self, images, labels):
            self.images = images  # (num_images, height, width)
            self.labels = labels

        def __len__(self):
            return self.images.shape[1]  # expect: dataset-len-wrong-axis

        def __getitem__(self, idx):
            return torch.from_numpy(self.images[idx]), int(self.labels[idx])
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "axis 1" in f.message and "axis 0" in f.message


def test_keras_style_batches_size_and_len_of_first_row():
    src = """
    import math
    import numpy as np

    class BatchGenerator:
        def __init__(self, x, y, batch_size):
            self.x, self.y, self.batch_size = x, y, batch_size

        def __len__(self):
            return int(np.ceil(self.x.shape[1] / float(self.batch_size)))  # expect: dataset-len-wrong-axis

        def __getitem__(self, i):
            lo = i * self.batch_size
            return self.x[i * self.batch_size:(i + 1) * self.batch_size], self.y[lo:lo + self.batch_size]

    class Rows:
        def __init__(self, table):
            self.table = table

        def __len__(self):
            return len(self.table[0])  # expect: dataset-len-wrong-axis

        def __getitem__(self, index):
            return self.table[index]
    """
    check(src, {RULE})


def test_length_stored_in_init_and_torch_size():
    src = """
    from torch.utils.data import Dataset

    class Features(Dataset):
        def __init__(self, feats, targets):
            self.feats = feats
            self.targets = targets
            self.n = feats.shape[1]

        def __len__(self):
            return self.n  # expect: dataset-len-wrong-axis

        def __getitem__(self, i):
            return self.feats[i], self.targets[i]

    class Windows(Dataset):
        def __init__(self, series, window):
            self.series = series  # (channels, time)
            self.window = window

        def __len__(self):
            return self.series.size(0) - self.window  # expect: dataset-len-wrong-axis

        def __getitem__(self, t):
            return self.series[:, t:t + self.window]
    """
    check(src, {RULE})


def test_negative_matching_axes():
    src = """
    import numpy as np
    from torch.utils.data import Dataset

    class MatLayout(Dataset):
        def __init__(self, images):
            self.images = np.moveaxis(images, 0, -1)  # (h, w, n)

        def __len__(self):
            return self.images.shape[-1]

        def __getitem__(self, idx):
            return self.images[:, :, idx]

    class ChannelsFirst(Dataset):
        def __init__(self, series, window):
            self.series, self.window = series, window

        def __len__(self):
            return self.series.shape[1] - self.window

        def __getitem__(self, t):
            return self.series[:, t:t + self.window]

    class Pair(Dataset):
        def __init__(self, xs, ys):
            self.data = [xs, ys]

        def __len__(self):
            return len(self.data[0])

        def __getitem__(self, i):
            return self.data[0][i], self.data[1][i]

    class Shuffled(Dataset):
        def __init__(self, x, perm):
            self.x, self.perm = x, perm

        def __len__(self):
            return self.x.shape[1]

        def __getitem__(self, i):
            i = self.perm[i]
            return self.x[:, i]

    class Plain(Dataset):
        def __init__(self, x):
            self.x = x

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return self.x[i]
    """
    check(src, {RULE})
