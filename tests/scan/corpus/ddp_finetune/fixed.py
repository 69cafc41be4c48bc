"""Distributed fine-tuning of a pretrained backbone with random-crop augmentation."""

import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class RandomCropDataset(Dataset):
    def __init__(self, images, labels, crop=24, seed=0):
        self.images = images
        self.labels = labels
        self.crop = crop

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = self.images[i]
        # the global NumPy generator is reseeded by PyTorch in every worker, every epoch
        top, left = np.random.randint(0, img.shape[-1] - self.crop, size=2)
        patch = img[..., top : top + self.crop, left : left + self.crop]
        return torch.as_tensor(patch), int(self.labels[i])


def load_backbone(model: nn.Module, path: str) -> nn.Module:
    state = torch.load(path, map_location="cpu", weights_only=True)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(not k.startswith("fc.") for k in missing):
        raise RuntimeError(f"checkpoint does not match the model: missing={missing}, unexpected={unexpected}")
    return model


def main(model, images, labels, epochs=10):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    model = load_backbone(model, "backbone.pt").cuda(rank)
    model = DDP(model, device_ids=[rank])
    dataset = RandomCropDataset(images, labels)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=4, pin_memory=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in loader:
            x, y = x.cuda(rank, non_blocking=True), y.cuda(rank, non_blocking=True)
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}")
    dist.destroy_process_group()
