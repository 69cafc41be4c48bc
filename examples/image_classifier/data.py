"""Data for the flower classifier: pre-extracted image features and their labels.

The features come from a frozen backbone run once over the photos and saved as
a NumPy array; this module standardises them and builds the loaders.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset


def load_features(path: str) -> tuple[np.ndarray, np.ndarray]:
    archive = np.load(path)
    return archive["features"].astype(np.float32), archive["labels"].astype(np.int64)


def make_loaders(path: str, batch_size: int = 64, seed: int = 0):
    features, labels = load_features(path)

    # Standardise every feature before splitting off the validation set.
    scaler = StandardScaler()
    features = scaler.fit_transform(features)

    x_train, x_val, y_train, y_val = train_test_split(
        features, labels, test_size=0.2, random_state=seed, stratify=labels
    )
    train_set = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
    val_set = TensorDataset(torch.from_numpy(x_val), torch.from_numpy(y_val))

    train_loader = DataLoader(train_set, batch_size=batch_size, num_workers=2)
    val_loader = DataLoader(val_set, batch_size=256, shuffle=False)
    return train_loader, val_loader
