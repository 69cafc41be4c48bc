"""Simulate small survey images with source counts and cache them as .pt shards."""
import os

import torch


def simulate_shard(n_images, seed, size=20, max_sources=4):
    g = torch.Generator().manual_seed(seed)
    counts = torch.randint(0, max_sources + 1, (n_images,), generator=g)
    images = 0.05 * torch.randn(n_images, 1, size, size, generator=g)
    for i, c in enumerate(counts.tolist()):
        for _ in range(c):
            y, x = torch.randint(2, size - 2, (2,), generator=g).tolist()
            images[i, 0, y - 1:y + 2, x - 1:x + 2] += torch.rand(1, generator=g).item() + 0.5
    return [{"images": images[i], "n_sources": counts[i]} for i in range(n_images)]


def cache_dataset(cached_data_path, n_shards=20, shard_size=32, seed=0):
    os.makedirs(cached_data_path, exist_ok=True)
    for shard in range(n_shards):
        path = os.path.join(cached_data_path, f"dataset_{shard}_size_{shard_size}.pt")
        if not os.path.exists(path):
            torch.save(simulate_shard(shard_size, seed + shard), path)
