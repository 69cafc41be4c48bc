import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoProcessor

from data_processor import LazySupervisedDataset


def make_train_loader(args, collate_fn):
    processor = AutoProcessor.from_pretrained(args.model_name)
    ds = LazySupervisedDataset(args.annotation_paths, processor, max_len=args.max_len)
    sampler = DistributedSampler(ds, num_replicas=dist.get_world_size(), rank=dist.get_rank(),
                                 shuffle=True, seed=args.seed)
    return DataLoader(ds, batch_size=args.per_device_batch_size, sampler=sampler,
                      collate_fn=collate_fn, num_workers=4)
