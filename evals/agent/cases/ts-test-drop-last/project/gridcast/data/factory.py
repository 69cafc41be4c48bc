"""Chronological train / val / test segments and their loaders.

The archive is cut at two borders. The validation and test segments start seq_len steps
before their border so that their first window can forecast the very first hour after
the border; the forecast targets of the three segments never overlap.
"""
from dataclasses import dataclass

from torch.utils.data import DataLoader

from .scaling import StandardScaler
from .synth import make_archive
from .windows import ForecastWindows


@dataclass
class Splits:
    train: ForecastWindows
    val: ForecastWindows
    test: ForecastWindows
    scaler: StandardScaler


def borders(n_steps: int, train_frac: float, test_frac: float, seq_len: int):
    n_train = int(n_steps * train_frac)
    n_test = int(n_steps * test_frac)
    n_val = n_steps - n_train - n_test
    starts = {"train": 0, "val": n_train - seq_len, "test": n_steps - n_test - seq_len}
    ends = {"train": n_train, "val": n_train + n_val, "test": n_steps}
    return starts, ends


def build_splits(cfg) -> Splits:
    raw = make_archive(cfg.n_steps, cfg.n_channels, cfg.seed)
    starts, ends = borders(len(raw), cfg.train_frac, cfg.test_frac, cfg.seq_len)
    scaler = StandardScaler().fit(raw[starts["train"]:ends["train"]])
    values = scaler.transform(raw)
    windows = {
        name: ForecastWindows(values[starts[name]:ends[name]], cfg.seq_len, cfg.pred_len)
        for name in ("train", "val", "test")
    }
    return Splits(scaler=scaler, **windows)


def make_loader(dataset, split: str, cfg) -> DataLoader:
    if split == "train":
        shuffle, drop_last, batch_size = True, True, cfg.batch_size
    elif split == "val":
        shuffle, drop_last, batch_size = False, False, cfg.eval_batch_size
    else:
        shuffle, drop_last, batch_size = False, True, cfg.eval_batch_size
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                      num_workers=cfg.num_workers)


def build_loaders(cfg):
    splits = build_splits(cfg)
    loaders = {name: make_loader(getattr(splits, name), name, cfg) for name in ("train", "val", "test")}
    return loaders, splits
