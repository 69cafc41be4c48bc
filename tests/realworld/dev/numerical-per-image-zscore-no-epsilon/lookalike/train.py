import numpy as np
import torch
from torch.utils.data import DataLoader

from data import TileDataset


def fit(segmenter, tiles, masks, epochs=10, lr=1e-3):
    loader = DataLoader(TileDataset(tiles, masks), batch_size=16, shuffle=True)
    opt = torch.optim.Adam(segmenter.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for x, y in loader:
            loss = loss_fn(segmenter(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: {loss.item():.4f}")
