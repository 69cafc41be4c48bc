"""The ``overlapping-windows-split-at-random`` rule (``mlsleuth/scan/rules/data/overlapping_windows_split_at_random.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"overlapping-windows-split-at-random"}


def test_windows_appended_in_a_loop_then_train_test_split():
    src = """
        import numpy as np
        from sklearn.model_selection import train_test_split

        def make_windows(series, lookback):
            xs, ys = [], []
            for i in range(len(series) - lookback):
                window = series[i:i + lookback]
                xs.append(window)
                ys.append(series[i + lookback])
            xs = np.array(xs)
            ys = np.array(ys)
            X_train, X_val, y_train, y_val = train_test_split(xs, ys, test_size=0.2, random_state=0)  # expect: overlapping-windows-split-at-random
            return X_train, X_val, y_train, y_val
        """
    check(src, RULE)


def test_comprehension_helper_and_dataset_shapes():
    src = """
        import numpy as np
        import torch
        from torch.utils.data import Dataset, random_split
        from sklearn.model_selection import train_test_split, KFold

        def create_sequences(data, seq_len):
            X = [data[t:t + seq_len] for t in range(len(data) - seq_len)]
            y = [data[t + seq_len] for t in range(len(data) - seq_len)]
            return np.stack(X), np.stack(y)

        class SeriesWindows(Dataset):
            def __init__(self, values, window):
                self.values = torch.as_tensor(values)
                self.window = window

            def __len__(self):
                return len(self.values) - self.window

            def __getitem__(self, idx):
                return self.values[idx:idx + self.window], self.values[idx + self.window]

        prices = np.load("prices.npy")
        X, y = create_sequences(prices, 60)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.1)  # expect: overlapping-windows-split-at-random

        ds = SeriesWindows(prices, window=48)
        train_ds, val_ds = random_split(ds, [0.8, 0.2])  # expect: overlapping-windows-split-at-random

        frames = torch.as_tensor(prices).unfold(0, 32, 1)
        folds = KFold(n_splits=5, shuffle=True, random_state=1)
        for tr, va in folds.split(frames):  # expect: overlapping-windows-split-at-random
            pass
        """
    check(src, RULE)


def test_windows_built_in_another_module(tmp_path):
    check_project(tmp_path, {
        "windows.py": """
            import numpy as np

            def to_supervised(series, n_in):
                out = []
                for start in range(0, len(series) - n_in, 1):
                    out.append(series[start:start + n_in])
                return np.asarray(out)
            """,
        "train.py": """
            from sklearn.model_selection import train_test_split
            from windows import to_supervised

            def run(series, cfg):
                samples = to_supervised(series, cfg["n_in"])
                train, test = train_test_split(samples, test_size=0.25)  # expect: overlapping-windows-split-at-random
                return train, test
            """,
    }, RULE)


def test_chronological_or_non_overlapping_splits_stay_silent():
    src = """
        import numpy as np
        from sklearn.model_selection import train_test_split, TimeSeriesSplit
        from torch.utils.data import random_split

        def windows(series, w):
            return np.array([series[i:i + w] for i in range(len(series) - w)])

        def blocks(series, w):
            return np.array([series[i:i + w] for i in range(0, len(series) - w, w)])

        series = np.load("load.npy")
        X = windows(series, 24)
        X_train, X_test = train_test_split(X, test_size=0.2, shuffle=False)
        cut = int(0.8 * len(X))
        tr, te = X[:cut], X[cut:]
        for a, b in TimeSeriesSplit(n_splits=4).split(X):
            pass

        B = blocks(series, 24)
        b_train, b_test = train_test_split(B, test_size=0.2)

        ids = np.arange(100)
        id_train, id_test = train_test_split(ids, test_size=0.2)

        tokens = np.load("tokens.npy")
        pairs = [(tokens[i], tokens[i + 1]) for i in range(len(tokens) - 1)]
        p_train, p_test = random_split(pairs, [0.9, 0.1])
        """
    check(src, RULE)


def test_image_crops_and_per_item_datasets_stay_silent():
    src = """
        import torch
        from torch.utils.data import Dataset, random_split
        from sklearn.model_selection import train_test_split

        class Patients(Dataset):
            def __init__(self, records):
                self.records = records

            def __len__(self):
                return len(self.records)

            def __getitem__(self, idx):
                rec = self.records[idx]
                return rec["signal"][:100], rec["label"]

        class Strided(Dataset):
            def __init__(self, data, window, stride):
                self.data, self.window, self.stride = data, window, stride

            def __getitem__(self, idx):
                idx = idx * self.stride
                return self.data[idx:idx + self.window]

        train_p, val_p = random_split(Patients([]), [0.8, 0.2])
        train_s, val_s = random_split(Strided([], 10, 10), [0.8, 0.2])

        texts = open("corpus.txt").read().split()
        sents = [" ".join(texts[i:i + 1]) for i in range(len(texts))]
        s_train, s_test = train_test_split(sents)
        """
    check(src, RULE)
