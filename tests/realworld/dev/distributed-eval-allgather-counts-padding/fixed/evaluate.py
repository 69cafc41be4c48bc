import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_val_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset, shuffle=False)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=4)


def all_gather_cat(t):
    parts = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, t)
    return torch.cat(parts)


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    preds, labels = [], []
    for images, target in loader:
        logits = model(images.to(device))
        preds.append(logits.argmax(dim=1))
        labels.append(target.to(device))
    preds = all_gather_cat(torch.cat(preds))
    labels = all_gather_cat(torch.cat(labels))
    n = len(loader.dataset)
    # DistributedSampler assigns index i to rank i % world_size: restore dataset order, drop the padding
    preds = preds.view(dist.get_world_size(), -1).t().reshape(-1)[:n]
    labels = labels.view(dist.get_world_size(), -1).t().reshape(-1)[:n]
    top1 = (preds == labels).float().mean().item()
    return {"top1": top1, "n": preds.numel()}
