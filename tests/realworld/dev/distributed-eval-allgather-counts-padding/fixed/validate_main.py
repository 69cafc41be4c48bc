import os

import torch
import torch.distributed as dist
import torchvision
import torchvision.transforms as T
from torch.nn.parallel import DistributedDataParallel as DDP

from evaluate import build_val_loader, validate


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    device = torch.device("cuda", rank)
    tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(),
                    T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    val_set = torchvision.datasets.ImageFolder("data/val", transform=tf)
    model = torchvision.models.resnet50(weights="IMAGENET1K_V2").to(device)
    model = DDP(model, device_ids=[rank])
    stats = validate(model, build_val_loader(val_set, 50), device)
    if dist.get_rank() == 0:
        print(f"top1 {stats['top1']:.4f} on {stats['n']} images")


if __name__ == "__main__":
    main()
