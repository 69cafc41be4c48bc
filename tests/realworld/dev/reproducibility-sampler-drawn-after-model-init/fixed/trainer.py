import torch
from torch.utils.data import DataLoader, RandomSampler

from models import build_model


def build_loader(dataset, cfg):
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(cfg["seed"]))
    return DataLoader(dataset, batch_size=cfg["batch_size"], sampler=sampler, num_workers=cfg["num_workers"])


def train(cfg, dataset):
    torch.manual_seed(cfg["seed"])
    loader = build_loader(dataset, cfg)
    model = build_model(cfg["model"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    it = iter(loader)
    for step in range(cfg["iterations"]):
        try:
            voxels, labels = next(it)
        except StopIteration:
            it = iter(loader)
            voxels, labels = next(it)
        loss = torch.nn.functional.cross_entropy(model(voxels), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
