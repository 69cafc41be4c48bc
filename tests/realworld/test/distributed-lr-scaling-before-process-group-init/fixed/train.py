import os

import torch
import torch.distributed as dist
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP

from dist_utils import get_world_size, scale_lr
from models import build_detector
from datasets import build_loader


def setup(cfg_path):
    with open(cfg_path) as f:
        cfg = yaml.safe_load(f)
    if "LOCAL_RANK" in os.environ:
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    if cfg.get("auto_scale_lr", True):
        cfg = scale_lr(cfg)
    return cfg


def main():
    cfg = setup("configs/det_r50.yaml")
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    model = build_detector(cfg).to(device)
    if get_world_size() > 1:
        model = DDP(model, device_ids=[device.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=1e-4)
    loader = build_loader(cfg, distributed=get_world_size() > 1)
    for epoch in range(cfg["epochs"]):
        if hasattr(loader.sampler, "set_epoch"):
            loader.sampler.set_epoch(epoch)
        for images, targets in loader:
            losses = model(images.to(device), targets)
            loss = sum(losses.values())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
