import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from .encoders import TableEncoder
from .simulate import FIELD_NAMES, simulate


def _take(rows: dict, mask: np.ndarray) -> dict:
    return {k: v[mask] for k, v in rows.items()}


def build_data(cfg):
    """Time-ordered split: the last `val_days` days are validation; encoders see training days only."""
    rows, clicks, day = simulate(cfg.n_days, cfg.rows_per_day, cfg.seed)
    is_train = day < cfg.n_days - cfg.val_days
    train_rows, val_rows = _take(rows, is_train), _take(rows, ~is_train)
    encoder = TableEncoder(FIELD_NAMES, cfg.min_count).fit(train_rows)

    def tensors(part_rows, part_clicks):
        x = torch.from_numpy(encoder.transform(part_rows))
        return TensorDataset(x, torch.from_numpy(part_clicks))

    train_set = tensors(train_rows, clicks[is_train])
    val_set = tensors(val_rows, clicks[~is_train])
    train = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True,
                       generator=torch.Generator().manual_seed(cfg.seed))
    val = DataLoader(val_set, batch_size=cfg.eval_batch_size, shuffle=False)
    return train, val, encoder
