"""Daily closing prices -> scaled sliding windows for one-step-ahead forecasting."""

import numpy as np
import pandas as pd
import torch
from sklearn.preprocessing import MinMaxScaler
from torch.utils.data import DataLoader, TensorDataset

TIME_STEP = 100
TRAIN_FRACTION = 0.65


def load_close(csv_path):
    df = pd.read_csv(csv_path)
    return df["close"].to_numpy(dtype=np.float64).reshape(-1, 1)


def create_dataset(series, time_step=TIME_STEP):
    x, y = [], []
    for i in range(len(series) - time_step - 1):
        x.append(series[i:i + time_step, 0])
        y.append(series[i + time_step, 0])
    return np.asarray(x), np.asarray(y)


def prepare(csv_path, batch_size=64):
    close = load_close(csv_path)
    n_train = int(len(close) * TRAIN_FRACTION)
    scaler = MinMaxScaler(feature_range=(0, 1)).fit(close[:n_train])
    train_scaled = scaler.transform(close[:n_train])
    test_scaled = scaler.transform(close[n_train:])

    x_train, y_train = create_dataset(train_scaled)
    x_test, y_test = create_dataset(test_scaled)

    to_t = lambda a: torch.tensor(a, dtype=torch.float32)
    train_loader = DataLoader(TensorDataset(to_t(x_train)[..., None], to_t(y_train)[:, None]),
                              batch_size=batch_size, shuffle=True)
    arrays = {"x_train": x_train, "y_train": y_train, "x_test": x_test, "y_test": y_test}
    return train_loader, arrays, scaler
