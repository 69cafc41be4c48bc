import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from config import Config
from dataset import NuScenesFrames
from model import Detector


def build_model(device, local_rank):
    model = Detector()
    model = model.to(device)
    return DDP(model, device_ids=[local_rank], find_unused_parameters=False)


def main():
    cfg = Config()
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    model = build_model(device, local_rank)
    ds = NuScenesFrames("data/nuscenes", cfg.img_size)
    sampler = DistributedSampler(ds, shuffle=True)
    loader = DataLoader(ds, batch_size=cfg.samples_per_gpu, sampler=sampler, num_workers=cfg.workers_per_gpu)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for img, target in loader:
            out = model(img.to(device))
            loss = torch.nn.functional.cross_entropy(out, target.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
