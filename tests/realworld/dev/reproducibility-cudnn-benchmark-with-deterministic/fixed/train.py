import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torchvision.models import resnet50

from config import configurations


def main_worker(gpu, ngpus_per_node, cfg):
    SEED = cfg["SEED"]  # random seed for reproduce results
    torch.manual_seed(SEED)
    torch.cuda.manual_seed_all(SEED)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True

    dist.init_process_group("nccl", init_method=cfg["DIST_URL"], world_size=cfg["WORLD_SIZE"], rank=gpu)
    torch.cuda.set_device(gpu)
    backbone = resnet50(num_classes=cfg["EMBEDDING_SIZE"]).cuda(gpu)
    backbone = nn.parallel.DistributedDataParallel(backbone, device_ids=[gpu])
    head = nn.Linear(cfg["EMBEDDING_SIZE"], cfg["NUM_CLASS"]).cuda(gpu)
    optimizer = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=cfg["LR"], momentum=0.9)
    loader = cfg["LOADER_FN"](gpu, ngpus_per_node)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(cfg["NUM_EPOCH"]):
        for inputs, labels in loader:
            inputs, labels = inputs.cuda(gpu, non_blocking=True), labels.cuda(gpu, non_blocking=True)
            loss = criterion(head(backbone(inputs)), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def main():
    cfg = configurations[1]
    ngpus_per_node = torch.cuda.device_count()
    cfg["WORLD_SIZE"] = ngpus_per_node * cfg["WORLD_SIZE"]
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, cfg))


if __name__ == "__main__":
    main()
